"""MCP Apps on the client: declaring the extension, the apps of tools, reading an app, and
the host's visibility rules."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, Context, Server
from mcpkit.apps import EXTENSION_ID, MIME_TYPE, RESOURCE_URI_KEY
from mcpkit.client import ProtocolOptions
from mcpkit.client.apps import (
    APPS_EXTENSION,
    AppToolRefused,
    NotAnApp,
    call_tool_for_app,
    list_tool_apps,
    model_tools,
    read_app,
)
from tests.apps.app_server import HTML, make_server
from tests.interop.conftest import PythonPeer

ERAS = ("legacy", "2026-07-28")


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_the_client_declares_the_extension_in_both_eras(era: str, wire: Any) -> None:
    app = Server("s")
    seen: list[Any] = []

    @app.tool()
    def caps(ctx: Context) -> str:
        seen.append(ctx.client_capabilities.get("extensions"))
        return "ok"

    async with Client(
        app, era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION), tracer=wire()
    ) as client:
        await client.call_tool("caps")
    async with Client(app, era=era) as client:
        await client.call_tool("caps")
    assert seen == [{EXTENSION_ID: {"mimeTypes": [MIME_TYPE]}}, None]


async def test_tools_with_a_ui_and_what_the_model_sees(era: str) -> None:
    async with Client(
        make_server(), era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION)
    ) as client:
        apps = await list_tool_apps(client)
        tools = await client.list_tools()
    assert [(a.name, a.resource_uri, a.visibility) for a in apps] == [
        ("show", "ui://apps/dashboard", ("model", "app")),
        ("refresh", "ui://apps/dashboard", ("app",)),
        ("summarize", "ui://apps/dashboard", ("model",)),
    ]
    assert [(a.model_visible, a.app_callable) for a in apps] == [
        (True, True),
        (False, True),
        (True, False),
    ]
    # The host's rule: tools whose visibility lacks "model" stay out of the agent's list.
    assert [t.name for t in model_tools(tools)] == ["show", "summarize", "plain"]


async def test_read_app_hands_over_the_html_and_its_sandbox_needs(era: str) -> None:
    async with Client(
        make_server(), era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION)
    ) as client:
        view = await read_app(client, "ui://apps/dashboard")
    assert view.html == HTML and view.mime_type == MIME_TYPE
    assert view.csp.connect_domains == ("https://api.example.com", "wss://live.example.com")
    assert view.csp.resource_domains == ("https://*.cdn.example.com",)
    assert view.permissions.names() == ["geolocation", "clipboardWrite"]
    assert view.domain == "a904794854a047f6.claudemcpcontent.com"
    assert view.prefers_border is False
    assert "connect-src https://api.example.com wss://live.example.com" in view.csp_header()
    assert "img-src 'self' data: https://*.cdn.example.com" in view.csp_header()
    assert view.allow_attribute() == "geolocation; clipboard-write"


async def test_the_listing_metadata_is_the_fallback_and_blobs_are_decoded() -> None:
    # A hand-written app: metadata on the resources/list entry only, HTML as a blob.
    app = Server("s")
    blob = base64.b64encode("<p>ünïcode</p>".encode()).decode()

    @app.resource(
        "ui://s/raw",
        mime_type=MIME_TYPE,
        meta={"ui": {"csp": {"frameDomains": ["https://www.youtube.com"]}, "extra": 1}},
    )
    def raw() -> dict[str, Any]:
        return {"blob": blob}

    @app.tool(meta={RESOURCE_URI_KEY: "ui://s/raw"})  # only the deprecated flat key
    def legacy_linked() -> str:
        return "x"

    async with Client(app) as client:
        view = await read_app(client, "ui://s/raw")
        [found] = await list_tool_apps(client)
    assert view.html == "<p>ünïcode</p>"
    assert view.csp.frame_domains == ("https://www.youtube.com",)
    assert "frame-src https://www.youtube.com" in view.csp_header()
    assert (found.name, found.resource_uri, found.visibility) == (
        "legacy_linked",
        "ui://s/raw",
        ("model", "app"),
    )


async def test_what_is_not_an_app_is_refused() -> None:
    app = Server("s")

    @app.resource("ui://s/plain", mime_type="text/html")
    def plain() -> str:
        return HTML

    @app.resource("file:///x.html", mime_type=MIME_TYPE)
    def elsewhere() -> str:
        return HTML

    async with Client(app) as client:
        with pytest.raises(NotAnApp, match="served as 'text/html', not"):
            await read_app(client, "ui://s/plain")
        with pytest.raises(NotAnApp, match="ui:// scheme"):
            await read_app(client, "file:///x.html")


async def test_an_app_may_call_only_tools_visible_to_apps(era: str) -> None:
    async with Client(
        make_server(), era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION)
    ) as client:
        refreshed = await call_tool_for_app(client, "refresh", {"city": "Oslo"})
        shown = await call_tool_for_app(client, "show", {"city": "Oslo"})
        plain = await call_tool_for_app(client, "plain")
        with pytest.raises(AppToolRefused, match=r"'summarize': its visibility is \['model'\]"):
            await call_tool_for_app(client, "summarize", {"city": "Oslo"})
        with pytest.raises(AppToolRefused, match="does not list"):
            await call_tool_for_app(client, "nope")
    assert refreshed.content[0].text == "refreshed Oslo"  # type: ignore[union-attr]
    assert shown.content[0].text == "dashboard for Oslo"  # type: ignore[union-attr]
    assert plain.content[0].text == "apps"  # type: ignore[union-attr]


async def test_the_apps_of_an_official_sdk_server(py_peer: PythonPeer) -> None:
    # The official Python SDK's Apps extension, read by mcpkit's host helpers.
    script = Path(__file__).with_name("official_apps_server.py")
    async with Client(
        [str(py_peer.python), str(script)], protocol=ProtocolOptions(extensions=APPS_EXTENSION)
    ) as client:
        caps = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        apps = await list_tool_apps(client)
        view = await read_app(client, "ui://clock/app.html")
    assert caps["extensions"] == {EXTENSION_ID: {}}
    assert [(a.name, a.resource_uri, a.visibility) for a in apps] == [
        ("get_time", "ui://clock/app.html", ("model", "app")),
        ("tick", "ui://clock/app.html", ("app",)),
    ]
    assert view.html == "<!doctype html><p>clock</p>"
    assert view.csp.connect_domains == ("https://time.example.com",)
    assert view.permissions.names() == ["clipboardWrite"] and view.prefers_border is True
