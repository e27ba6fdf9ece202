"""The inspector page in a real browser: Debian's headless Chromium driven by Playwright
(never a downloaded browser), against a dev server running the sample server. Each step
saves a screenshot under .cache/screenshots/dev/ (a CI artefact)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mcpkit.dev import DevServer
from tests.conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / ".cache" / "screenshots" / "dev"
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT = 30_000  # ms: generous, the machine is shared


@pytest.fixture
def chromium() -> Path:
    """Debian's Chromium; its absence fails the tests (they are never skipped)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/system_packages.sh", pytrace=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    return CHROMIUM


@pytest.fixture
async def page(chromium: Path) -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(chromium), args=ARGS)
        try:
            context = await browser.new_context(viewport={"width": 1400, "height": 900})
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on(
                "console",
                lambda msg: errors.append(msg.text) if msg.type == "error" else None,
            )
            page.errors = errors
            yield page
        finally:
            await browser.close()


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


async def _shot(page: Any, name: str) -> None:
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


async def test_the_inspector_drives_the_sample_server(
    dev: DevServer, sample_file: Path, page: Any
) -> None:
    await page.goto(dev.url)
    tools = page.locator("#tool-list .item")
    await page.locator('#tool-list .item[data-key="echo"]').wait_for(timeout=WAIT)
    assert await tools.count() == 7
    assert "dev-sample 0.1.0" in (await page.locator("#server-info").text_content() or "")
    await _shot(page, "01_tools")

    # A form from the input schema: string, integer, boolean, enum.
    await page.click('#tool-list .item[data-key="echo"]')
    await page.fill("#tool-text", "hi")
    await page.fill("#tool-times", "2")
    await page.check("#tool-loud")
    await page.select_option("#tool-mood", label="busy")
    await page.click("#call-button")
    await (
        page.locator("#result .content-text").filter(has_text="HI HI (busy)").wait_for(timeout=WAIT)
    )
    await _shot(page, "02_call")

    # Progress and logs arrive over SSE while the tool runs.
    await page.click('#tool-list .item[data-key="count"]')
    await page.fill("#tool-steps", "3")
    await page.click("#call-button")
    await page.locator("#progress .bar .status").filter(has_text="3/3").wait_for(timeout=WAIT)
    await page.locator("#log li").filter(has_text="step 3").wait_for(timeout=WAIT)
    assert "step 3 of 3" in (
        await page.locator("#progress .bar .message").first.text_content() or ""
    )
    await _shot(page, "03_progress")

    # An elicitation is answered in the page's form.
    await page.click('#tool-list .item[data-key="ask_user"]')
    await page.click("#call-button")
    card = page.locator('.request[data-kind="elicitation"]')
    await card.wait_for(timeout=WAIT)
    await card.locator('input[name="name"]').fill("Ada")
    await card.locator('select[name="color"]').select_option(label="blue")
    await _shot(page, "04_elicitation")
    await card.locator("button.accept").click()
    await (
        page.locator("#result .content-text")
        .filter(has_text="hello Ada (blue)")
        .wait_for(timeout=WAIT)
    )
    assert await card.count() == 0

    # A tool with a ui:// view: the result renders in the sandboxed iframe, and the view's
    # tools/call and ui/message come back through the host bridge.
    await page.click('#tool-list .item[data-key="add"]')
    await page.fill("#tool-a", "2")
    await page.fill("#tool-b", "3")
    await page.click("#call-button")
    frame = page.frame_locator("#app-frame")
    await frame.locator("#status").filter(has_text="result: 5").wait_for(timeout=WAIT)
    assert await page.get_attribute("#app-frame", "sandbox") == "allow-scripts"
    await frame.locator("#go").click()
    message = page.locator('#app-messages li[data-method="ui/message"]')
    await message.filter(has_text="sum is 42").wait_for(timeout=WAIT)
    await frame.locator("#status").filter(has_text="app got 42").wait_for(timeout=WAIT)
    calls = page.locator('#app-messages li[data-method="tools/call"]')
    assert "add" in (await calls.first.text_content() or "")
    await _shot(page, "05_app")

    # Completion as you type for a prompt argument, then the prompt itself.
    await page.click('#prompt-list .item[data-key="greet"]')
    await page.locator("#prompt-name").press_sequentially("a")
    # (a locator, not wait_for_function: the page's CSP forbids eval)
    await page.locator('#prompt-name[data-suggestions="Ada,Alan"]').wait_for(timeout=WAIT)
    await page.fill("#prompt-name", "Grace")
    await page.click("#get-button")
    await (
        page.locator("#result")
        .filter(has_text="Say hello to Grace in english.")
        .wait_for(timeout=WAIT)
    )
    await _shot(page, "06_prompt")

    # A sampling request: the user plays the model.
    await page.click('#tool-list .item[data-key="ask_llm"]')
    await page.fill("#tool-question", "2+2?")
    await page.click("#call-button")
    sampling = page.locator('.request[data-kind="sampling"]')
    await sampling.filter(has_text="2+2?").wait_for(timeout=WAIT)
    await sampling.locator("textarea.sampling-reply").fill("4")
    await sampling.locator("button.accept").click()
    await (
        page.locator("#result .content-text")
        .filter(has_text="model said: 4")
        .wait_for(timeout=WAIT)
    )

    # Another era: the dev server's client reconnects with the initialize handshake.
    await page.select_option("#era-select", "legacy")
    await (
        page.locator("#server-info").filter(has_text="initialize 2025-11-25").wait_for(timeout=WAIT)
    )

    # A tool run as a task: its status in the task list, its result in the panel.
    await page.click('#tool-list .item[data-key="long_job"]')
    await page.fill("#tool-steps", "2")
    await page.check("#as-task")
    await page.click("#call-button")
    await page.locator('#task-list li[data-status="completed"]').wait_for(timeout=WAIT)
    await (
        page.locator("#result .content-text")
        .filter(has_text="done after 2 steps")
        .wait_for(timeout=WAIT)
    )
    await _shot(page, "07_task")

    # An edit of the server's file restarts it; the page stays connected and lists the new tool.
    view_before = await page.get_attribute("#app-frame", "src")
    _append(sample_file, "\n\n@app.tool()\ndef shout(text: str) -> str:\n    return text.upper()\n")
    await page.locator('#tool-list .item[data-key="shout"]').wait_for(timeout=WAIT)
    await page.locator("#log li").filter(has_text="reloaded after a change").wait_for(timeout=WAIT)
    # The open app view is loaded again from the restarted server, with the last result.
    await page.locator(f'#app-frame:not([src="{view_before}"])').wait_for(timeout=WAIT)
    await frame.locator("#status").filter(has_text="result: 5").wait_for(timeout=WAIT)
    await _shot(page, "08_reloaded")
    assert page.errors == []


async def test_the_weather_example_in_the_inspector(page: Any) -> None:
    async with DevServer(str(ROOT / "examples" / "weather_app" / "server.py")) as dev:
        await page.goto(dev.url)
        await page.locator('#tool-list .item[data-key="forecast"]').wait_for(timeout=WAIT)
        await page.click('#tool-list .item[data-key="forecast"]')
        await page.fill("#tool-city", "Oslo")
        await page.click("#call-button")
        frame = page.frame_locator("#app-frame")
        await frame.locator("#city").filter(has_text="Oslo").wait_for(timeout=WAIT)
        temperature = await frame.locator("#temp").text_content()
        assert temperature is not None and temperature.endswith("°C")
        await _shot(page, "09_weather_app")
        await frame.locator("#refresh").click()  # the app-only tool, through the bridge
        refresh = page.locator('#app-messages li[data-method="tools/call"]')
        await refresh.filter(has_text="refresh_forecast").wait_for(timeout=WAIT)
        await frame.locator("#ask").click()
        await (
            page.locator('#app-messages li[data-method="ui/message"]')
            .filter(has_text="What should I pack for Oslo?")
            .wait_for(timeout=WAIT)
        )
        await _shot(page, "10_weather_message")
    assert page.errors == []


async def test_the_page_tells_the_server_state_plainly(
    dev: DevServer, sample_file: Path, page: Any
) -> None:
    """A fresh start shows no reload count; a required field left empty is refused in the
    page (nothing is sent); a server that died turns the dot red and its banner names each
    line once."""
    await page.goto(dev.url)
    await page.locator('#tool-list .item[data-key="echo"]').wait_for(timeout=WAIT)
    info = await page.locator("#server-info").text_content() or ""
    assert "dev-sample 0.1.0" in info and "reload" not in info
    assert await page.get_attribute("#link", "class") == "link up"

    sent: list[Any] = []
    call_tool = dev.upstream.call_tool

    async def counted(*args: Any, **kwargs: Any) -> Any:
        sent.append(args)
        return await call_tool(*args, **kwargs)

    dev.upstream.call_tool = counted  # type: ignore[method-assign]
    await page.click('#tool-list .item[data-key="echo"]')
    await page.click("#call-button")  # "text" is required and left empty
    await page.locator("#result").filter(has_text="text is required").wait_for(timeout=WAIT)
    assert sent == []

    await page.click('#tool-list .item[data-key="crash"]')
    await page.click("#call-button")
    await page.locator("#server-info").filter(has_text="not running").wait_for(timeout=WAIT)
    await page.locator("#link.down").wait_for(timeout=WAIT)
    banner = (await page.locator("#banner").text_content() or "").splitlines()
    assert banner[0] == "The server did not start:"
    assert len(banner) == len(set(banner)), banner  # no line twice
    assert sum("boom: the server is going down" in line for line in banner) == 1
    await _shot(page, "11_not_running")

    await page.click("#restart-button")
    await page.locator("#link:not(.down)").wait_for(timeout=WAIT)
    after = await page.locator("#server-info").text_content() or ""
    assert "reload #1" in after, after
