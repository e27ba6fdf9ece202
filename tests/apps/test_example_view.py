"""The example app's view in a real browser: headless Chromium (Debian's) renders it in a
sandboxed iframe under its CSP, with a minimal host around it that speaks the host side of
the bridge and relays the view's tool calls through mcpkit's host helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcpkit import Client
from mcpkit.client import ProtocolOptions
from mcpkit.client.apps import APPS_EXTENSION, call_tool_for_app, read_app
from tests.conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / ".cache" / "screenshots" / "apps"

HOST = """<!doctype html><html><body>
<iframe id="app" sandbox="allow-scripts" style="width:400px;height:200px"></iframe>
<script>
const frame = document.getElementById("app");
window.seen = [];
window.addEventListener("message", async (event) => {
  if (event.source !== frame.contentWindow) return;
  const msg = event.data;
  window.seen.push(msg.method);
  const reply = (result) =>
    frame.contentWindow.postMessage({jsonrpc: "2.0", id: msg.id, result}, "*");
  if (msg.method === "ui/initialize") {
    reply({protocolVersion: "2026-01-26", hostInfo: {name: "test-host", version: "1"},
           hostCapabilities: {serverTools: {}}, hostContext: {theme: "light"}});
  } else if (msg.method === "tools/call") {
    reply(JSON.parse(await window.callTool(JSON.stringify(msg.params))));
  } else if (msg.method === "ui/message") {
    window.message = msg.params.content[0].text;
    reply({});
  }
});
window.start = (html, result) => {
  frame.srcdoc = html;
  window.pushResult = () => frame.contentWindow.postMessage(
    {jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result}, "*");
};
</script></body></html>"""


async def test_the_example_view_renders_and_calls_back() -> None:
    from examples.weather_app.server import app
    from playwright.async_api import async_playwright

    async with Client(app, protocol=ProtocolOptions(extensions=APPS_EXTENSION)) as client:
        view = await read_app(client, "ui://weather/view")
        first = await client.call_tool("forecast", {"city": "Oslo"})
        calls: list[dict[str, Any]] = []

        async def call_tool(params_json: str) -> str:
            params = json.loads(params_json)
            calls.append(params)
            result = await call_tool_for_app(client, params["name"], params.get("arguments"))
            return json.dumps(result.model_dump(by_alias=True, exclude_none=True, mode="json"))

        # The view's document gets the CSP the host derives from its metadata.
        html = view.html.replace(
            "<head>",
            f'<head><meta http-equiv="Content-Security-Policy" content="{view.csp_header()}">',
            1,
        )
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
            )
            try:
                page = await browser.new_page()
                await page.expose_function("callTool", call_tool)
                await page.set_content(HOST)
                result = first.model_dump(by_alias=True, exclude_none=True, mode="json")
                await page.evaluate("([h, r]) => window.start(h, r)", [html, result])
                await page.wait_for_function(
                    "window.seen.includes('ui/notifications/initialized')", timeout=20_000
                )
                await page.evaluate("window.pushResult()")
                app_frame = page.frame_locator("#app")
                await app_frame.locator("#city").filter(has_text="Oslo").wait_for(timeout=20_000)
                temperature = await app_frame.locator("#temp").text_content()
                SHOTS.mkdir(parents=True, exist_ok=True)
                await page.screenshot(path=str(SHOTS / "weather_view.png"))
                await app_frame.locator("#refresh").click()
                await page.wait_for_function("window.seen.includes('tools/call')", timeout=20_000)
                await app_frame.locator("#ask").click()
                await page.wait_for_function("window.message !== undefined", timeout=20_000)
                message = await page.evaluate("window.message")
            finally:
                await browser.close()
    assert temperature is not None and temperature.endswith("°C")
    assert first.structured_content is not None
    assert temperature == f"{first.structured_content['temperature']}°C"
    # The refresh button called the app-only tool through the host.
    assert calls == [{"name": "refresh_forecast", "arguments": {"city": "Oslo"}}]
    assert message == "What should I pack for Oslo?"
