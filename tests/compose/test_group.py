"""ClientGroup: many servers as one client (in memory and over stdio), one that fails to
start among them."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client, ClientGroup, McpError, Server, ServerFailure
from mcpkit.client import StdioOptions
from mcpkit.client.group import NameCollision, UnknownName
from tests.conftest import server_env

APPS = Path(__file__).parent / "apps.py"
BROKEN = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}


def small(name: str) -> Server[Any]:
    server: Server[Any] = Server(name)

    @server.tool()
    def status() -> str:
        """Same name on every server."""
        return f"{name} ok"

    @server.tool(name=f"only_{name}")
    def only() -> str:
        return name

    @server.prompt()
    def hello() -> str:
        return f"hello from {name}"

    @server.resource(f"{name}://info")
    def info() -> str:
        return f"info of {name}"

    @server.resource(f"{name}://item/{{id}}")
    def item(id: str) -> str:
        return f"{name} item {id}"

    return server


def text(result: Any) -> str:
    return str(result.content[0].text)


async def test_config_with_a_failing_server() -> None:
    config = {
        "mcpServers": {
            "weather": {"command": sys.executable, "args": [str(APPS)], "env": server_env()},
            "broken": BROKEN,
        }
    }
    async with ClientGroup(config, connect_timeout=30) as group:
        assert group.servers == ["weather", "broken"]
        tools = await group.list_tools()
        names = {t.name for t in tools}
        assert {"weather_own", "weather_weather_forecast"} <= names  # the gateway's, prefixed
        assert set(tools.failures) == {"broken"}
        failure = tools.failures["broken"]
        assert isinstance(failure, ServerFailure) and failure.operation == "connect"
        assert failure.server == "broken" and "broken" in str(failure)
        result = await group.call_tool("weather_weather_forecast", {"city": "Oslo"})
        assert text(result) == "sunny in Oslo, in celsius"
        with pytest.raises(ServerFailure) as err:  # routed to the broken server
            await group.call_tool("broken_anything")
        assert err.value.server == "broken"
        assert set(group.failures) == {"broken"}


async def test_names_prefixes_and_mappings() -> None:
    a, b = small("a"), small("b")
    async with ClientGroup({"a": a, "b": b}) as group:
        tools = await group.list_tools()
        assert [t.name for t in tools] == ["a_status", "a_only_a", "b_status", "b_only_b"]
        assert not tools.failures
        assert text(await group.call_tool("b_status")) == "b ok"
        prompts = await group.list_prompts()
        assert [p.name for p in prompts] == ["a_hello", "b_hello"]
        got = await group.get_prompt("b_hello")
        assert got.messages[0].content.text == "hello from b"  # type: ignore[union-attr]
        with pytest.raises(UnknownName):
            await group.call_tool("nothing")
        with pytest.raises(McpError, match="Unknown tool"):  # the server's own answer
            await group.call_tool("a_nothing")

    async with ClientGroup([a, b], prefix=False) as group:
        with pytest.raises(NameCollision, match="'status'"):
            await group.list_tools()
    mapping = {"a": {"status": "a_health"}, "b": {"status": "b_health"}}
    async with ClientGroup([a, b], prefix=False, names=mapping) as group:
        assert group.servers == ["a", "b"]  # named after the servers
        tools = await group.list_tools()
        assert [t.name for t in tools] == ["a_health", "only_a", "b_health", "only_b"]
        assert text(await group.call_tool("b_health")) == "b ok"
        assert text(await group.call_tool("only_a")) == "a"


async def test_lazy_connections_and_close() -> None:
    a, b = small("a"), small("b")
    group = ClientGroup({"a": a, "b": b})
    async with group:
        assert not a.sessions and not b.sessions  # nothing connected yet
        assert text(await group.call_tool("a_status")) == "a ok"  # routed by its prefix
        assert len(a.sessions) == 1 and not b.sessions  # only the server asked
        assert await group.connect() == {}
        assert len(b.sessions) == 1
    assert not a.sessions and not b.sessions  # closed on exit


async def test_resources_route_to_their_server() -> None:
    a, b = small("a"), small("b")
    async with ClientGroup({"a": a, "b": b}) as group:
        with pytest.raises(UnknownName):
            await group.read_resource("b://info")
        assert [str(r.uri) for r in await group.list_resources()] == ["a://info", "b://info"]
        templates = await group.list_resource_templates()
        assert [t.uri_template for t in templates] == ["a://item/{id}", "b://item/{id}"]
        assert (await group.read_resource("b://info")).contents[0].text == "info of b"  # type: ignore[union-attr]
        read = await group.read_resource("a://item/7")
        assert read.contents[0].text == "a item 7"  # type: ignore[union-attr]
        with pytest.raises(McpError):
            await group.read_resource("a://nope", server="a")


async def test_retry_and_reconnect() -> None:
    async with ClientGroup({"broken": BROKEN, "a": small("a")}, retry_after=3600) as group:
        first = (await group.list_tools()).failures["broken"]
        again = (await group.list_tools()).failures["broken"]
        assert again is first  # not tried again before retry_after
        with pytest.raises(ServerFailure):
            await group.reconnect("broken")  # tried at once
        assert group.failures["broken"] is not first


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least one"):
        ClientGroup({})
    with pytest.raises(ValueError, match="unknown server"):
        ClientGroup({"a": "x"}, options={"b": {}})
    with pytest.raises(TypeError):
        ClientGroup(42)  # type: ignore[arg-type]


def test_target_names() -> None:
    group = ClientGroup(
        [
            "npx -y @modelcontextprotocol/server-everything",
            "python weather.py",
            [sys.executable, "weather.py"],
            "http://127.0.0.1:8000/mcp",
            {"command": "uvx", "args": ["mcp-server-fetch"]},
        ]
    )
    assert group.servers == [
        "server-everything",
        "weather",
        "weather2",
        "127-0-0-1",
        "mcp-server-fetch",
    ]


async def test_client_refuses_a_config_of_several_servers(tmp_path: Path) -> None:
    config = {"mcpServers": {"a": BROKEN, "b": BROKEN}}
    with pytest.raises(ValueError, match=r"ClientGroup.*Client.from_config"):
        async with Client(config):
            pass
    one = {"mcpServers": {"w": {"command": sys.executable, "args": [str(APPS)]}}}
    async with Client(
        one, connection=StdioOptions(env=server_env())
    ) as c:  # a config of one server is that server
        assert c.server_info.name == "gateway"


async def test_servers_connect_concurrently() -> None:
    """Each server's start waits for the other's: only connections made side by side
    both succeed."""
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    def waiting_for(me: str, other: str) -> Server[Any]:
        @contextlib.asynccontextmanager
        async def lifespan(server: Server[Any]) -> AsyncIterator[None]:
            started[me].set()
            await asyncio.wait_for(started[other].wait(), 10)
            yield

        server: Server[Any] = Server(me, lifespan=lifespan)
        server.add_tool(lambda: me, name="who")
        return server

    async with ClientGroup([waiting_for("a", "b"), waiting_for("b", "a")]) as group:
        tools = await group.list_tools()
        assert not tools.failures
        assert [t.name for t in tools] == ["a_who", "b_who"]
