"""MCP Apps on the server: the extension's capability, resource and tool metadata, and the
visibility rules, on both eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from mcpkit.apps import EXTENSION_ID, MIME_TYPE, RESOURCE_URI_KEY
from mcpkit.client import ProtocolOptions
from mcpkit.client.apps import APPS_EXTENSION
from tests.apps.app_server import HTML, make_server

ERAS = ("legacy", "2026-07-28")
Check = Callable[[str, Any], list[str]]


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


async def test_the_extension_is_advertised_in_both_eras(era: str, wire: Any) -> None:
    async with Client(make_server(), era=era, tracer=wire()) as client:
        caps = dump(client.server_capabilities)
        discovered = client.discover_result
    assert caps["extensions"] == {EXTENSION_ID: {}}
    if era == "legacy":
        assert discovered is None
    else:  # server/discover carries it too
        assert discovered is not None
        assert discovered["capabilities"]["extensions"][EXTENSION_ID] == {}


async def test_a_server_without_apps_advertises_no_extension(era: str) -> None:
    app = Server("plain")

    @app.tool()
    def echo(text: str) -> str:
        return text

    async with Client(app, era=era) as client:
        assert "extensions" not in dump(client.server_capabilities)


async def test_app_resource_metadata_has_the_ext_apps_shape(
    era: str, ext_apps_schema: Check, wire: Any
) -> None:
    async with Client(
        make_server(), era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION), tracer=wire()
    ) as client:
        [listed] = [dump(r) for r in await client.list_resources()]
        read = dump(await client.read_resource("ui://apps/dashboard"))
    expected_ui = {
        "csp": {
            "connectDomains": ["https://api.example.com", "wss://live.example.com"],
            "resourceDomains": ["https://*.cdn.example.com"],
        },
        "permissions": {"geolocation": {}, "clipboardWrite": {}},
        "domain": "a904794854a047f6.claudemcpcontent.com",
        "prefersBorder": False,
    }
    assert listed == {
        "uri": "ui://apps/dashboard",
        "name": "dashboard",
        "title": "Dashboard",
        "description": "The dashboard's view.",
        "mimeType": MIME_TYPE,
        "_meta": {"ui": expected_ui},
    }
    # The read contents carry the metadata too (hosts read it there first).
    [contents] = read["contents"]
    assert contents == {
        "uri": "ui://apps/dashboard",
        "mimeType": "text/html;profile=mcp-app",
        "text": HTML,
        "_meta": {"ui": expected_ui},
    }
    assert ext_apps_schema("McpUiResourceMeta", listed["_meta"]["ui"]) == []
    assert ext_apps_schema("McpUiResourceMeta", contents["_meta"]["ui"]) == []


async def test_linked_tools_carry_the_ext_apps_tool_meta(era: str, ext_apps_schema: Check) -> None:
    async with Client(
        make_server(), era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION)
    ) as client:
        tools = {t.name: dump(t) for t in await client.list_tools()}
    assert tools["show"]["_meta"] == {
        "ui": {"resourceUri": "ui://apps/dashboard"},  # visibility left to its default
        RESOURCE_URI_KEY: "ui://apps/dashboard",  # the deprecated flat key older hosts read
    }
    assert tools["refresh"]["_meta"]["ui"] == {
        "resourceUri": "ui://apps/dashboard",
        "visibility": ["app"],
    }
    assert tools["summarize"]["_meta"]["ui"]["visibility"] == ["model"]
    assert "_meta" not in tools["plain"]
    for name in ("show", "refresh", "summarize"):
        assert ext_apps_schema("McpUiToolMeta", tools[name]["_meta"]["ui"]) == []
    # The schema is strict enough to catch a wrong shape.
    assert ext_apps_schema("McpUiToolMeta", {"resourceUri": "ui://x", "visibility": ["user"]})
    assert ext_apps_schema("McpUiToolMeta", {"resourceUri": "ui://x", "csp": {}})


async def test_the_client_declaration_has_the_ext_apps_shape(ext_apps_schema: Check) -> None:
    assert ext_apps_schema("McpUiClientCapabilities", APPS_EXTENSION[EXTENSION_ID]) == []


async def test_app_only_tools_are_hidden_from_clients_without_the_extension(
    era: str, wire: Any
) -> None:
    async with Client(make_server(), era=era, tracer=wire()) as client:
        names = [t.name for t in await client.list_tools()]
        with pytest.raises(McpError) as refused:
            await client.call_tool("refresh", {"city": "Oslo"})
        # The session goes on; the model-only and default tools work.
        show = await client.call_tool("show", {"city": "Oslo"})
        plain = await client.call_tool("plain")
    assert names == ["show", "summarize", "plain"]
    assert refused.value.code == -32602
    assert "Unknown tool: refresh" in refused.value.message
    assert show.content[0].text == "dashboard for Oslo"  # type: ignore[union-attr]
    assert plain.content[0].text == "text only"  # type: ignore[union-attr]


async def test_clients_declaring_the_extension_list_and_call_app_only_tools(
    era: str, wire: Any
) -> None:
    async with Client(
        make_server(), era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION), tracer=wire()
    ) as client:
        names = [t.name for t in await client.list_tools()]
        refreshed = await client.call_tool("refresh", {"city": "Oslo"})
        plain = await client.call_tool("plain")
    assert names == ["show", "refresh", "summarize", "plain"]
    assert refreshed.content[0].text == "refreshed Oslo"  # type: ignore[union-attr]
    assert plain.content[0].text == "apps"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"mimeTypes": []},
        {"mimeTypes": ["text/html"]},
        {"mimeTypes": "text/html;profile=mcp-app"},
    ],
)
async def test_a_declaration_without_the_app_mime_type_is_no_declaration(
    era: str, settings: dict[str, Any]
) -> None:
    # mimeTypes is required and must include text/html;profile=mcp-app.
    async with Client(
        make_server(), era=era, protocol=ProtocolOptions(extensions={EXTENSION_ID: settings})
    ) as client:
        assert "refresh" not in [t.name for t in await client.list_tools()]


async def test_the_filtered_list_pages_with_its_own_cursors(era: str) -> None:
    app = make_server(page_size=1)
    async with (
        Client(app, era=era) as without,
        Client(app, era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION)) as with_apps,
    ):
        assert [t.name for t in await without.list_tools()] == ["show", "summarize", "plain"]
        assert [t.name for t in await with_apps.list_tools()] == [
            "show",
            "refresh",
            "summarize",
            "plain",
        ]
        first = await without.list_tools_page()
        assert [t.name for t in first.tools] == ["show"] and first.next_cursor


async def test_a_modern_tools_list_that_depends_on_the_client_is_private() -> None:
    app = make_server(ttl_ms=60_000, cache_scope="public")
    async with Client(app, era="2026-07-28", cache=False) as client:
        raw = await client.request("tools/list", {})
    assert raw["cacheScope"] == "private" and raw["ttlMs"] == 60_000


async def test_a_list_without_app_only_tools_keeps_its_hints() -> None:
    app = Server("s", ttl_ms=60_000, cache_scope="public")

    @app.ui("ui://s/v")
    def view() -> str:
        return HTML

    @app.tool(ui="ui://s/v")
    def show() -> str:
        return "x"

    async with Client(app, era="2026-07-28", cache=False) as client:
        raw = await client.request("tools/list", {})
    assert raw["cacheScope"] == "public"


# -- registration errors ------------------------------------------------------------------------


async def test_a_tool_linked_to_an_unknown_app_fails_at_startup() -> None:
    app = Server("s")

    @app.ui("ui://s/view")
    def view() -> str:
        return HTML

    @app.tool(ui="ui://s/veiw")
    def show() -> str:
        return "x"

    # Registration order is free (a tool may come before its app); serving checks.
    with pytest.raises(ValueError, match=r"'show' links to the app ui://s/veiw.*ui://s/view"):
        async with Client(app):
            pass
    with pytest.raises(ValueError, match="no resource is registered at that URI"):
        async with app.running():
            pass


async def test_a_tool_registered_while_serving_is_checked_at_once() -> None:
    app = make_server()
    async with Client(app, protocol=ProtocolOptions(extensions=APPS_EXTENSION)) as client:
        with pytest.raises(ValueError, match="ui://apps/nowhere"):

            @app.tool(ui="ui://apps/nowhere")
            def lost() -> str:
                return "x"

        assert "lost" not in [t.name for t in await client.list_tools()]


async def test_a_tool_linked_to_a_resource_that_is_not_an_app_fails() -> None:
    app = Server("s")

    @app.resource("ui://s/page", mime_type="text/html")
    def page() -> str:
        return HTML

    @app.tool(ui="ui://s/page")
    def show() -> str:
        return "x"

    with pytest.raises(ValueError, match="MIME type is 'text/html':"):
        async with app.running():
            pass


@pytest.mark.parametrize(
    ("visibility", "message"),
    [
        ([], "empty list"),
        (["user"], "'user' is not 'model' or 'app'"),
        (["app", "app"], "'app' is given twice"),
        (42, "visibility must be a list"),
    ],
)
def test_bad_visibility_is_refused_at_registration(visibility: Any, message: str) -> None:
    app = make_server()
    with pytest.raises(ValueError, match=message):

        @app.tool(ui="ui://apps/dashboard", visibility=visibility)
        def bad() -> str:
            return "x"

    assert "bad" not in app.tools.tools


def test_a_single_visibility_string_is_accepted() -> None:
    app = make_server()

    @app.tool(ui="ui://apps/dashboard", visibility="app")
    def only_app() -> str:
        return "x"

    assert app.tools.tools["only_app"].definition["_meta"]["ui"]["visibility"] == ["app"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"uri": "https://example.com/view"}, "must be a ui:// URI"),
        ({"uri": "ui://"}, "must be a ui:// URI"),
        ({"uri": "ui://s/{city}"}, "not a template"),
        ({"csp": {"connect": ["https://a.example"]}}, "unknown key 'connect'"),
        ({"csp": {"connectDomains": "https://a.example"}}, "must be a list of origins"),
        ({"csp": {"connectDomains": ["api.example.com"]}}, "is not an origin"),
        ({"csp": {"resourceDomains": ["https://a.example; script-src *"]}}, "is not an origin"),
        ({"csp": {"frameDomains": ["https://a.example/path"]}}, "is not an origin"),
        ({"permissions": ["webcam"]}, "unknown permission 'webcam'"),
        ({"permissions": {"camera": True}}, "must map to an object"),
        ({"domain": ""}, "domain must be a non-empty string"),
        ({"prefers_border": "yes"}, "prefers_border must be True, False or None"),
        ({"meta": {"ui": {}}}, "pass those instead"),
    ],
)
def test_bad_app_resources_are_refused_at_registration(
    kwargs: dict[str, Any], message: str
) -> None:
    app = Server("s")
    uri = kwargs.pop("uri", "ui://s/view")
    with pytest.raises(ValueError, match=message):
        app.add_ui(uri, HTML, **kwargs)
    assert not app.resources.resources and not app.resources.templates


def test_tool_meta_and_ui_cannot_both_say_ui() -> None:
    app = make_server()
    with pytest.raises(ValueError, match="not a 'ui' key in meta"):

        @app.tool(ui="ui://apps/dashboard", meta={"ui": {"resourceUri": "ui://apps/x"}})
        def both() -> str:
            return "x"


def test_other_meta_keys_are_kept_beside_the_link() -> None:
    app = make_server()

    @app.tool(ui="ui://apps/dashboard", meta={"example.com/owner": "team"})
    def owned() -> str:
        return "x"

    meta = app.tools.tools["owned"].definition["_meta"]
    assert meta["example.com/owner"] == "team" and meta["ui"]["resourceUri"]


# -- sources of the HTML ------------------------------------------------------------------------


async def test_an_html_file_is_read_at_every_read(tmp_path: Path) -> None:
    page = tmp_path / "view.html"
    page.write_text("<p>one</p>", encoding="utf-8")
    app = Server("s")
    app.add_ui("ui://s/view", page)
    async with Client(app) as client:
        first = await client.read_resource("ui://s/view")
        page.write_text("<p>two</p>", encoding="utf-8")
        second = await client.read_resource("ui://s/view")
    assert first.contents[0].text == "<p>one</p>"  # type: ignore[union-attr]
    assert second.contents[0].text == "<p>two</p>"  # type: ignore[union-attr]
    assert second.contents[0].mime_type == MIME_TYPE


def test_a_missing_html_file_is_refused_at_registration(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no HTML file at"):
        Server("s").add_ui("ui://s/view", tmp_path / "missing.html")


async def test_async_and_context_taking_functions_and_bytes(era: str) -> None:
    from mcpkit import Context

    app = Server("s")

    @app.ui("ui://s/async", permissions={"camera": {}})
    async def async_view(ctx: Context) -> bytes:
        return f"<p>{ctx.era}</p>".encode()

    async with Client(app, era=era) as client:
        read = dump(await client.read_resource("ui://s/async"))
    [item] = read["contents"]
    assert item["text"] == f"<p>{'legacy' if era == 'legacy' else 'modern'}</p>"
    assert item["mimeType"] == MIME_TYPE
    assert item["_meta"] == {"ui": {"permissions": {"camera": {}}}}


async def test_over_streamable_http_in_both_eras(era: str, wire: Any) -> None:
    from mcpkit.transports.http import running

    async with running(make_server().http_app()) as base:
        url = f"{base}/mcp"
        async with (
            Client(url, era=era, tracer=wire()) as plain,
            Client(
                url, era=era, protocol=ProtocolOptions(extensions=APPS_EXTENSION), tracer=wire()
            ) as host,
        ):
            assert dump(plain.server_capabilities)["extensions"] == {EXTENSION_ID: {}}
            assert plain.modern == (era != "legacy")
            assert "refresh" not in [t.name for t in await plain.list_tools()]
            assert "refresh" in [t.name for t in await host.list_tools()]
            done = await host.call_tool("refresh", {"city": "Oslo"})
            with pytest.raises(McpError, match="Unknown tool: refresh"):
                await plain.call_tool("refresh", {"city": "Oslo"})
    assert done.content[0].text == "refreshed Oslo"  # type: ignore[union-attr]


def test_add_tool_takes_the_app_options_too() -> None:
    app = make_server()

    def later(city: str) -> str:
        return city

    app.add_tool(later, ui="ui://apps/dashboard", visibility=["app"])
    assert app.tools.tools["later"].definition["_meta"] == {
        "ui": {"resourceUri": "ui://apps/dashboard", "visibility": ["app"]},
        RESOURCE_URI_KEY: "ui://apps/dashboard",
    }
    with pytest.raises(ValueError, match="visibility"):
        app.add_tool(lambda: "x", name="bad", visibility=[])
