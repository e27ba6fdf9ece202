"""Context: sampling, elicitation, roots, lifespan, cancellation; the example over stdio."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from mcpkit.session import ClientSession
from mcpkit.transports import StdioClientTransport
from tests.conftest import ROOT, server_env
from tests.server.helpers import CLIENT_INFO, call, connected, text

sys.path.insert(0, str(ROOT / "examples"))
import server_everything

app = server_everything.app


async def test_sampling_elicitation_roots(wire: Any) -> None:
    caps = {"sampling": {}, "elicitation": {"form": {}}, "roots": {"listChanged": True}}
    async with connected(app, wire, capabilities=caps) as (client, _):
        seen: list[Any] = []

        async def sampling(params: Any, ctx: Any) -> Any:
            seen.append(params)
            return {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "m"}

        async def elicit(params: Any, ctx: Any) -> Any:
            seen.append(params)
            return {"action": "accept", "content": {"name": "Ada", "color": "blue"}}

        async def roots(params: Any, ctx: Any) -> Any:
            return {"roots": [{"uri": "file:///work", "name": "work"}]}

        client.set_request_handler("sampling/createMessage", sampling)
        client.set_request_handler("elicitation/create", elicit)
        client.set_request_handler("roots/list", roots)
        assert text(await call(client, "ask_llm", {"question": "q?"})) == "42"
        assert seen[0]["systemPrompt"] == "Be brief." and seen[0]["maxTokens"] == 100
        assert text(await call(client, "ask_user")) == "hello Ada (blue)"
        props = seen[1]["requestedSchema"]["properties"]
        assert props["color"]["enum"] == ["red", "green", "blue"]
        assert props["email"]["type"] == "string" and seen[1]["mode"] == "form"
        r = await call(client, "roots")
        assert r["structuredContent"] == {"result": ["file:///work"]}
        assert (await call(client, "answers"))["structuredContent"] == {"result": 42}


async def test_missing_client_capabilities_are_clear_errors(wire: Any) -> None:
    async with connected(app, wire) as (client, _):
        for tool, word in (
            ("ask_llm", "sampling"),
            ("ask_user", "elicitation"),
            ("roots", "roots"),
        ):
            r = await call(client, tool, {"question": "q"} if tool == "ask_llm" else {})
            assert r["isError"] is True and word in text(r), text(r)


async def test_example_over_stdio(wire: Any) -> None:
    transport = StdioClientTransport(
        sys.executable,
        [str(ROOT / "examples" / "server_everything.py")],
        env=server_env(),
        cwd=str(ROOT),
    )
    client = ClientSession(transport, tracer=wire())
    await client.start()
    try:
        init = await client.initialize(CLIENT_INFO, {})
        assert init["serverInfo"]["title"] == "Everything"
        assert init["instructions"].startswith("A demo server")
        progress: list[float] = []
        r = await client.request(
            "tools/call",
            {"name": "forecast", "arguments": {"city": "Oslo", "days": 2}},
            on_progress=lambda p, t, m: progress.append(p),
            timeout=10,
        )
        assert r["structuredContent"] == {"city": "Oslo", "days": 2, "summary": "sunny"}
        assert progress == [1, 2]
        r = await call(client, "forecast", {"city": "Oslo", "days": 9})
        assert r["isError"] is True and "'days'" in text(r)
        r = await call(client, "add", {"a": 2, "b": 3})
        assert r["structuredContent"] == {"result": 5}
        r = await client.request("resources/read", {"uri": "weather://oslo/current"})
        assert r["contents"][0]["mimeType"] == "application/json"
        r = await client.request(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "weather://{city}/current"},
                "argument": {"name": "city", "value": "o"},
            },
        )
        assert r["completion"]["values"] == ["Oslo", "Osaka", "Ottawa"]
        assert (await call(client, "answers"))["structuredContent"] == {"result": 42}
    finally:
        await client.close()


async def test_cancellation_reaches_the_tool(wire: Any) -> None:
    from mcpkit import Context, Server

    srv = Server("cancel")
    started = asyncio.Event()
    cancelled = asyncio.Event()

    @srv.tool()
    async def hang(ctx: Context) -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    async with connected(srv, wire) as (client, _):
        task = asyncio.ensure_future(call(client, "hang"))
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        await asyncio.wait_for(cancelled.wait(), 5)
