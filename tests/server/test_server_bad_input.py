"""Everything a client can send wrong, case by case: each gets the spec's error and the session
goes on. Arguments are checked against the advertised inputSchema with JSON semantics."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from enum import Enum
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from mcpkit import McpError, Server
from mcpkit.session import ClientSession
from mcpkit.transports import StdioClientTransport
from tests.conftest import ROOT, server_env
from tests.server.helpers import CLIENT_INFO, call, connected, text, unchecked


class Point(BaseModel):
    x: int
    y: float


@dataclasses.dataclass
class Size:
    w: int


class Tag(TypedDict):
    name: str


class Color(Enum):
    RED = "red"
    BLUE = "blue"


def make_app() -> Server:
    app = Server("bad-input", page_size=1)

    @app.tool()
    def typed(
        count: int,
        ratio: float = 1.0,
        flag: bool = False,
        name: str = "x",
        color: Color = Color.RED,
        tags: list[str] | None = None,
    ) -> str:
        return f"{count}|{ratio!r}|{flag}|{name}|{color.value}|{tags}"

    @app.tool()
    def nested(point: Point, size: Size, tag: Tag) -> str:
        assert isinstance(point, Point) and isinstance(size, Size) and isinstance(tag, dict)
        return f"{point.x},{point.y!r},{size.w},{tag['name']}"

    @app.tool()
    def noargs() -> str:
        return "ok"

    @app.tool()
    def size_of(text: str) -> int:
        return len(text)

    @app.tool(input_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    def raw(n: int = 0) -> str:
        return str(n)

    @app.tool()
    def spare() -> str:
        return "spare"

    @app.prompt()
    def greet(name: str) -> str:
        return f"hello {name}"

    @app.prompt()
    def other() -> str:
        return "other"

    @app.resource("test://one")
    def one() -> str:
        return "1"

    @app.resource("test://two")
    def two() -> str:
        return "2"

    @app.resource("test://items/{id}")
    def item(id: int) -> str:
        return f"item {id}"

    @app.resource("test://things/{id}")
    def thing(id: str) -> str:
        return id

    return app


async def invalid(client: ClientSession, tool: str, arguments: Any) -> str:
    r = await call(client, tool, arguments)
    assert r.get("isError") is True, (arguments, r)
    return text(r)


async def test_wrong_argument_types_follow_the_input_schema(wire: Any) -> None:
    async with connected(make_app(), wire) as (client, _):
        # JSON semantics: no string-to-number, number-to-string or bool-to-int coercion.
        for args, field in [
            ({"count": "5"}, "count"),
            ({"count": 5.5}, "count"),
            ({"count": True}, "count"),
            ({"count": None}, "count"),
            ({"count": 1, "ratio": "1.5"}, "ratio"),
            ({"count": 1, "flag": "true"}, "flag"),
            ({"count": 1, "flag": 1}, "flag"),
            ({"count": 1, "name": 5}, "name"),
            ({"count": 1, "color": "green"}, "color"),
            ({"count": 1, "tags": "a,b"}, "tags"),
            ({"count": 1, "tags": [1, 2]}, "tags"),
        ]:
            message = await invalid(client, "typed", args)
            assert f"'{field}" in message, (args, message)
        # What the schema allows is accepted and converted.
        r = await call(client, "typed", {"count": 5, "ratio": 2, "color": "blue", "tags": ["a"]})
        assert text(r) == "5|2.0|False|x|blue|['a']"
        assert text(await call(client, "typed", {"count": 5.0})).startswith("5|")
        r = await call(
            client, "nested", {"point": {"x": 1, "y": 2}, "size": {"w": 3}, "tag": {"name": "t"}}
        )
        assert text(r) == "1,2.0,3,t"
        for args, field in [
            ({"point": {"x": "1", "y": 2}, "size": {"w": 3}, "tag": {"name": "t"}}, "point.x"),
            ({"point": {"x": 1, "y": 2}, "size": {"w": "3"}, "tag": {"name": "t"}}, "size.w"),
            ({"point": {"x": 1, "y": 2}, "size": {"w": 3}, "tag": {"name": 7}}, "tag.name"),
            ({"point": [1, 2], "size": {"w": 3}, "tag": {"name": "t"}}, "point"),
        ]:
            message = await invalid(client, "nested", args)
            assert f"'{field}'" in message, (args, message)
        # A hand-written schema is the contract too.
        assert "'n'" in await invalid(client, "raw", {"n": "1"})
        assert text(await call(client, "raw", {"n": 2})) == "2"


async def test_extra_and_missing_arguments(wire: Any) -> None:
    async with connected(make_app(), wire, check_server_received=False) as (client, _):
        message = await invalid(client, "typed", {"count": 1, "colour": "red"})
        assert "'colour'" in message and "Unexpected" in message
        assert "'point'" in await invalid(client, "nested", {"size": {"w": 1}, "tag": {}})
        assert "'count'" in await invalid(client, "typed", {})
        assert "'count'" in await invalid(client, "typed", None)
        assert "'point.x'" in await invalid(
            client, "nested", {"point": {"y": 1}, "size": {"w": 1}, "tag": {"name": "t"}}
        )
        assert "'surprise'" in await invalid(client, "noargs", {"surprise": 1})
        r = await unchecked(client, "tools/call", {"name": "typed", "arguments": [1]})
        assert r["isError"] is True and "object" in text(r)
        assert text(await call(client, "noargs")) == "ok"


async def test_unknown_names_and_malformed_params(wire: Any) -> None:
    async with connected(make_app(), wire, check_server_received=False) as (client, _):
        cases: list[tuple[str, Any, int]] = [
            ("tools/call", {"name": "nope"}, -32602),
            ("tools/call", {"name": 5}, -32602),
            ("tools/call", None, -32602),
            ("prompts/get", {"name": "nope"}, -32602),
            ("prompts/get", {"name": "greet"}, -32602),  # missing required argument
            ("prompts/get", {"name": "greet", "arguments": {"name": 5}}, -32602),
            ("resources/read", {"uri": "test://nope"}, -32002),
            ("resources/read", {"uri": 5}, -32602),
            ("resources/read", {"uri": "test://items/abc"}, -32002),  # no such item
            ("resources/subscribe", {"uri": "test://nope"}, -32002),
            ("logging/setLevel", {"level": "loud"}, -32602),
            (
                "completion/complete",
                {
                    "ref": {"type": "ref/prompt", "name": "nope"},
                    "argument": {"name": "a", "value": ""},
                },
                -32602,
            ),
            ("no/such/method", {}, -32601),
        ]
        for method, params, code in cases:
            with pytest.raises(McpError) as err:
                await unchecked(client, method, params)
            assert err.value.code == code, (method, params, err.value)
            if code == -32002:
                assert err.value.data == {"uri": params["uri"]}
        assert (await client.request("prompts/get", {"name": "greet", "arguments": {"name": "A"}}))[
            "messages"
        ]


async def test_broken_cursors(wire: Any) -> None:
    async with connected(make_app(), wire, check_server_received=False) as (client, _):
        for method, key in [
            ("tools/list", "tools"),
            ("prompts/list", "prompts"),
            ("resources/list", "resources"),
            ("resources/templates/list", "resourceTemplates"),
        ]:
            first = await client.request(method, {})
            assert len(first[key]) == 1 and "nextCursor" in first  # page_size=1
            second = await client.request(method, {"cursor": first["nextCursor"]})
            assert second[key] != first[key]
            for bad in ("not-a-cursor", "", "eyJvIjo5OTl9", "eyJvIjotMX0", "x" * 500):
                with pytest.raises(McpError) as err:
                    await client.request(method, {"cursor": bad})
                assert err.value.code == -32602, (method, bad)
            with pytest.raises(McpError) as err:
                await unchecked(client, method, {"cursor": 42})
            assert err.value.code == -32602


async def test_capabilities_the_server_did_not_declare(wire: Any) -> None:
    tools_only = Server("tools-only")

    @tools_only.tool()
    def hello() -> str:
        return "hi"

    async with connected(tools_only, wire) as (client, _):
        caps = client.initialize_result["capabilities"]
        assert set(caps) == {"logging", "tools"}
        for method, params in [
            ("prompts/list", {}),
            ("prompts/get", {"name": "x"}),
            ("resources/list", {}),
            ("resources/read", {"uri": "test://x"}),
            ("resources/templates/list", {}),
            ("resources/subscribe", {"uri": "test://x"}),
            (
                "completion/complete",
                {
                    "ref": {"type": "ref/prompt", "name": "x"},
                    "argument": {"name": "a", "value": ""},
                },
            ),
            ("tasks/get", {"taskId": "x"}),
            ("tasks/list", {}),
        ]:
            # Bypass the client's own capability check: a misbehaving client.
            client.lifecycle.peer_capabilities = {
                **caps,
                "prompts": {},
                "resources": {"subscribe": True},
                "completions": {},
                "tasks": {"list": {}},
            }
            with pytest.raises(McpError) as err:
                await client.request(method, params, timeout=10)
            assert err.value.code == -32601, method
        assert text(await call(client, "hello")) == "hi"


async def test_huge_argument_in_memory(wire: Any) -> None:
    big = "x" * (3 * 1024 * 1024)
    async with connected(make_app(), wire) as (client, _):
        r = await call(client, "size_of", {"text": big})
        assert r["structuredContent"] == {"result": len(big)}
        await client.ping()


async def test_huge_arguments_over_stdio(wire: Any) -> None:
    transport = StdioClientTransport(
        sys.executable,
        [str(ROOT / "examples" / "server_everything.py")],
        env=server_env(),
        cwd=str(ROOT),
    )
    checker = wire()
    client = ClientSession(transport, tracer=checker)
    await client.start()
    try:
        await client.initialize(CLIENT_INFO, {})
        big = "y" * (3 * 1024 * 1024)  # within the 4 MiB limit: served
        r = await call(client, "echo", {"text": big})
        assert len(text(r)) == len(big)
        # Over the limit: the server's transport drops it and answers -32600 with its id, so
        # the call fails at once instead of waiting for its timeout.
        huge = asyncio.ensure_future(call(client, "echo", {"text": "z" * (5 * 1024 * 1024)}))
        await asyncio.sleep(0)
        await client.ping()  # answered after the oversize line was dealt with: in order
        with pytest.raises(McpError) as info:
            await asyncio.wait_for(huge, 10)
        assert info.value.code == -32600 and "size limit" in info.value.message
        # The session goes on.
        assert text(await call(client, "echo", {"text": "still here"})) == "still here"
    finally:
        await client.close()
