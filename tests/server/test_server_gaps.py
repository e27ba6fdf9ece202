"""URL-mode elicitation, sampling with tools, the roots hook, raw handlers, older versions."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Audio, Context, McpError, Server
from tests.server.helpers import call, connected, text
from tests.wire import WireChecker

WAV = b"RIFF\x00\x00\x00\x00WAVEfmt " + b"\x00" * 8


def make_app() -> Server:
    app = Server("gaps", icons=[{"src": "https://example.com/i.png"}], website_url="https://x.y")

    @app.tool()
    async def sign_in(ctx: Context) -> str:
        answer = await ctx.elicit_url("Sign in to continue", "https://example.com/auth", "el-1")
        if answer.accepted:
            await ctx.complete_elicitation("el-1")
        return answer.action

    @app.tool()
    async def needs_auth(ctx: Context) -> str:
        raise ctx.url_elicitation_required("Authorize access", "https://example.com/oauth", "el-2")

    @app.tool()
    async def agent(ctx: Context) -> str:
        result = await ctx.sample(
            "What is the weather?",
            max_tokens=50,
            tools=[
                {
                    "name": "get_weather",
                    "description": "Weather for a city",
                    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
                }
            ],
            tool_choice="auto",
        )
        content = result.content
        block = content[0] if isinstance(content, list) else content
        return f"{result.stop_reason}:{block.type}"

    @app.tool(icons=[{"src": "https://example.com/t.png"}])
    def sound() -> Audio:
        return Audio(WAV)

    @app.tool()
    def link() -> list[object]:
        return [
            {"type": "text", "text": "see"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
        ]

    @app.tool()
    def number() -> int:
        return 7

    @app.prompt()
    def listen() -> list[object]:
        return [Audio(WAV)]

    return app


async def test_url_elicitation_and_completion_notification(wire: Any) -> None:
    caps = {"elicitation": {"url": {}}}
    async with connected(make_app(), wire, capabilities=caps) as (client, _):
        seen: list[Any] = []
        completed = asyncio.Event()

        async def elicit(params: Any, ctx: Any) -> Any:
            seen.append(params)
            return {"action": "accept"}

        client.set_request_handler("elicitation/create", elicit)
        client.set_notification_handler(
            "notifications/elicitation/complete",
            lambda p: (seen.append(p), completed.set()),
        )
        assert text(await call(client, "sign_in")) == "accept"
        await completed.wait()
        assert seen[0]["mode"] == "url" and seen[0]["url"] == "https://example.com/auth"
        assert seen[0]["elicitationId"] == "el-1" and seen[0]["message"] == "Sign in to continue"
        assert seen[1] == {"elicitationId": "el-1"}


async def test_url_elicitation_needs_the_capability(wire: Any) -> None:
    async with connected(make_app(), wire, capabilities={"elicitation": {"form": {}}}) as (
        client,
        _,
    ):
        r = await call(client, "sign_in")
        assert r["isError"] is True and "elicitation.url" in text(r)


async def test_url_elicitation_required_error(wire: Any) -> None:
    caps = {"elicitation": {"url": {}}}
    async with connected(make_app(), wire, capabilities=caps) as (client, _):
        with pytest.raises(McpError) as err:
            await call(client, "needs_auth")
        assert err.value.code == -32042
        (entry,) = err.value.data["elicitations"]
        assert entry == {
            "mode": "url",
            "elicitationId": "el-2",
            "url": "https://example.com/oauth",
            "message": "Authorize access",
        }
        await client.ping()  # the session goes on


async def test_sampling_with_tools(wire: Any) -> None:
    async with connected(make_app(), wire, capabilities={"sampling": {"tools": {}}}) as (
        client,
        _,
    ):
        seen: list[Any] = []

        async def sample(params: Any, ctx: Any) -> Any:
            seen.append(params)
            return {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "X"}}
                ],
                "model": "m",
                "stopReason": "toolUse",
            }

        client.set_request_handler("sampling/createMessage", sample)
        assert text(await call(client, "agent")) == "toolUse:tool_use"
        tool = seen[0]["tools"][0]
        assert tool["name"] == "get_weather" and tool["inputSchema"]["type"] == "object"
        assert seen[0]["toolChoice"] == {"mode": "auto"}
    # Without sampling.tools: a clear tool error, nothing is sent.
    async with connected(make_app(), wire, capabilities={"sampling": {}}) as (client, _):
        client.set_request_handler("sampling/createMessage", sample)
        seen.clear()
        r = await call(client, "agent")
        assert r["isError"] is True and "sampling.tools" in text(r)
        assert seen == []


async def test_on_roots_changed_hook(wire: Any) -> None:
    app = make_app()
    got: list[Any] = []
    done = asyncio.Event()

    @app.on_roots_changed
    async def changed(session: Any) -> None:
        got.append(await session.list_roots())
        done.set()

    caps = {"roots": {"listChanged": True}}
    async with connected(app, wire, capabilities=caps) as (client, _):

        async def roots(params: Any, ctx: Any) -> Any:
            return {"roots": [{"uri": "file:///work", "name": "work"}]}

        client.set_request_handler("roots/list", roots)
        await client.notify("notifications/roots/list_changed")
        await done.wait()
        assert [r.uri for r in got[0]] == ["file:///work"]


class _SkipMethod:
    """Passes everything but one custom method (not in the schema) and its answers on to the
    schema checker."""

    def __init__(self, checker: WireChecker, method: str) -> None:
        self.checker = checker
        self.method = method
        self.ids: set[Any] = set()

    def __call__(self, direction: str, message: Any) -> None:
        if isinstance(message, dict):
            if message.get("method") == self.method:
                self.ids.add(message.get("id"))
                return
            if "method" not in message and message.get("id") in self.ids:
                return
        self.checker(direction, message)


async def test_raw_request_handler_for_a_custom_method(wire: Any) -> None:
    from mcpkit.session import ClientSession
    from mcpkit.transports import MemoryTransport
    from tests.server.helpers import CLIENT_INFO

    app = make_app()

    @app.request_handler("example/echo")
    async def echo(params: Any, rctx: Any) -> Any:
        return {"echo": params, "method": rctx.method}

    @app.request_handler("tools/list")
    async def only_one(params: Any, rctx: Any) -> Any:
        return {"tools": [{"name": "custom", "inputSchema": {"type": "object"}}]}

    a, b = MemoryTransport.pair()
    server = app.session(b, tracer=_SkipMethod(wire(), "example/echo"))
    client = ClientSession(a, tracer=_SkipMethod(wire(), "example/echo"))
    async with app.running():
        await server.start()
        await client.start()
        try:
            await client.initialize(CLIENT_INFO, {})
            r = await client.request("example/echo", {"x": 1}, timeout=10)
            assert r == {"echo": {"x": 1}, "method": "example/echo"}
            listed = await client.request("tools/list", timeout=10)
            assert [t["name"] for t in listed["tools"]] == ["custom"]
        finally:
            await client.close()
            await server.close()


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
async def test_older_versions_get_what_their_schema_allows(wire: Any, version: str) -> None:
    # Every message is validated against `version`'s schema by the wire checkers.
    async with connected(make_app(), wire, version=version) as (client, _):
        init = client.initialize_result
        assert init["protocolVersion"] == version
        assert "tasks" not in init["capabilities"]
        await client.request("tools/list", timeout=10)
        audio = (await call(client, "sound"))["content"][0]
        linked = (await call(client, "link"))["content"][1]
        prompt = await client.request("prompts/get", {"name": "listen"}, timeout=10)
        number = await call(client, "number")
        if version == "2024-11-05":
            assert audio["type"] == "text" and "audio" in audio["text"]
            assert prompt["messages"][0]["content"]["type"] == "text"
        else:
            assert audio["type"] == "audio"
            assert prompt["messages"][0]["content"]["type"] == "audio"
        if version in ("2024-11-05", "2025-03-26"):
            assert linked == {"type": "text", "text": "Resource: a.txt <file:///a.txt>"}
        else:
            assert linked["type"] == "resource_link"
            assert number["structuredContent"] == {"result": 7}
        assert "7" in text(number)
        # Invalid arguments are a protocol error before 2025-11-25.
        with pytest.raises(McpError) as err:
            await call(client, "sign_in", {"unexpected": 1})
        assert err.value.code == -32602
