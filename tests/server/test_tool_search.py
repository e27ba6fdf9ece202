"""Tool search: ``tools/list`` answers the pinned tools and ``search_tools``; the search ranks
every tool (own and mounted) by BM25 and answers their definitions; tools left out of the
list stay callable by name. In memory and over HTTP, in both eras."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit import McpError, Server
from mcpkit.proxy import ProxyServer
from mcpkit.server import ToolSearch
from mcpkit.server.tool_search import rank
from tests.server.middleware.helpers import IDS, WAYS, connect


def mail_server(**options: Any) -> Server[Any]:
    app: Server[Any] = Server("office", **options)

    @app.tool()
    def help() -> str:
        """What this server does."""
        return "an office"

    @app.tool()
    def send_email(to: str, subject: str, body: str = "") -> str:
        """Send an email message to someone."""
        return f"sent to {to}"

    @app.tool()
    def read_inbox(folder: str = "inbox") -> str:
        """Read the newest messages of a mailbox folder."""
        return f"read {folder}"

    @app.tool(title="Calendar")
    def create_event(day: str, attendees: list[str]) -> str:
        """Put a meeting in the calendar."""
        return f"event on {day}"

    for i in range(30):  # the haystack
        app.add_tool(lambda: "x", name=f"report_{i}", description=f"Quarterly report number {i}")
    return app


def test_bm25_ranks_names_and_descriptions() -> None:
    tools = [
        {"name": "send_email", "description": "Send an email message."},
        {"name": "read_inbox", "description": "Read email messages of a folder."},
        {"name": "get_weather", "description": "The forecast."},
        {
            "name": "convert",
            "description": "Convert money.",
            "inputSchema": {"properties": {"currencyCode": {"description": "ISO code"}}},
        },
    ]
    assert [t["name"] for t in rank("email", tools, 5)] == ["send_email", "read_inbox"]
    assert next(t["name"] for t in rank("inbox messages", tools, 5)) == "read_inbox"
    assert [t["name"] for t in rank("currency", tools, 5)] == ["convert"]  # camelCase split
    assert rank("email", tools, 1) == [tools[0]]
    assert rank("nothing-matches", tools, 5) == []
    assert rank("  ", tools, 5) == []


def test_a_server_without_tool_search_serves_its_registry_directly() -> None:
    app = mail_server()
    assert app.handler_table()["tools/list"] == app.tools.list_tools
    assert app.handler_table()["tools/call"] == app.tools.call_tool
    searching = mail_server(tool_search=ToolSearch())
    assert searching.handler_table()["tools/list"] != searching.tools.list_tools
    # calls are served as without it (the search tool is a registered tool)
    assert searching.handler_table()["tools/call"] == searching.tools.call_tool
    with pytest.raises(TypeError):
        ToolSearch(pinned="help")
    with pytest.raises(ValueError):
        ToolSearch(max_results=0)


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_list_search_and_call(transport: str, era: str) -> None:
    app = mail_server(tool_search=ToolSearch(pinned=["help"], max_results=3), page_size=5)
    async with connect(app, transport, era) as client:
        assert sorted(t.name for t in await client.list_tools()) == ["help", "search_tools"]
        result = await client.call_tool("search_tools", {"query": "send an email"})
        found = result.structured_content["tools"]  # type: ignore[index]
        assert found[0]["name"] == "send_email"
        assert set(found[0]["inputSchema"]["properties"]) == {"to", "subject", "body"}
        assert found[0]["description"] == "Send an email message to someone."
        result = await client.call_tool("search_tools", {"query": "calendar meeting", "limit": 1})
        assert [t["name"] for t in result.structured_content["tools"]] == ["create_event"]  # type: ignore[index]
        result = await client.call_tool("search_tools", {"query": "quarterly report"})
        assert len(result.structured_content["tools"]) == 3  # type: ignore[index]
        result = await client.call_tool("search_tools", {"query": "zebra"})
        assert result.structured_content == {"tools": []}
        # more than max_results is refused
        try:
            result = await client.call_tool("search_tools", {"query": "report", "limit": 50})
        except McpError:
            pass
        else:
            assert result.is_error
        # a tool left out of the list is called by its name, found or not
        result = await client.call_tool("read_inbox", {"folder": "sent"})
        assert result.content[0].text == "read sent"  # type: ignore[union-attr]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_search_covers_mounted_servers(transport: str, era: str) -> None:
    app: Server[Any] = Server("gateway", tool_search=ToolSearch(name="find_tools"))

    @app.tool()
    def status() -> str:
        """Is the gateway up."""
        return "up"

    app.mount(mail_server(), prefix="office")
    async with connect(app, transport, era) as client:
        assert [t.name for t in await client.list_tools()] == ["find_tools"]
        result = await client.call_tool("find_tools", {"query": "email"})
        names = [t["name"] for t in result.structured_content["tools"]]  # type: ignore[index]
        assert names[0] == "office_send_email"
        assert "find_tools" not in names
        result = await client.call_tool("find_tools", {"query": "gateway up"})
        assert next(t["name"] for t in result.structured_content["tools"]) == "status"  # type: ignore[index]
        result = await client.call_tool("office_send_email", {"to": "a@b", "subject": "s"})
        assert result.content[0].text == "sent to a@b"  # type: ignore[union-attr]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_search_on_a_proxy_and_a_mounted_proxy(transport: str, era: str) -> None:
    proxy = ProxyServer(mail_server(), tool_search=ToolSearch(pinned=["help"]))
    gateway: Server[Any] = Server("gateway", tool_search=ToolSearch())
    gateway.mount(ProxyServer(mail_server()), prefix="mail")
    for app, prefix in ((proxy, ""), (gateway, "mail_")):
        async with connect(app, transport, era) as client:
            listed = sorted(t.name for t in await client.list_tools())
            assert listed == (["help", "search_tools"] if app is proxy else ["search_tools"])
            result = await client.call_tool("search_tools", {"query": "email", "limit": 2})
            names = [t["name"] for t in result.structured_content["tools"]]  # type: ignore[index]
            assert names[0] == f"{prefix}send_email"
            result = await client.call_tool(f"{prefix}read_inbox", {})
            assert result.content[0].text == "read inbox"  # type: ignore[union-attr]


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_search_and_component_tools_keep_scoped_components_hidden(era: str) -> None:
    from mcpkit.transports.http import running
    from tests.server.test_scopes_visibility import client, make_server

    app = make_server(tool_search=ToolSearch())
    app.add_resource_tools()
    asgi = app.http_app()
    async with running(asgi) as base:
        for key, sees in (("sk-bob", False), ("sk-ada", True)):
            async with client(base, key, era) as c:
                result = await c.call_tool("search_tools", {"query": "wipe"})
                found = [t["name"] for t in result.structured_content["tools"]]  # type: ignore[index]
                assert found == (["wipe"] if sees else [])
                listed = await c.call_tool("list_resources", {})
                uris = [r["uri"] for r in listed.structured_content["resources"]]  # type: ignore[index]
                assert ("file:///secret.txt" in uris) is sees
                read = await c.call_tool("read_resource", {"uri": "file:///secret.txt"})
                assert read.is_error is not sees
    await asgi.aclose()
