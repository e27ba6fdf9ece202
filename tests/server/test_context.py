"""Context: sampling, elicitation, roots, lifespan, request accessors, read_resource,
cancellation; the example server over stdio."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
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
    from mcpkit import Server

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


# -- Context accessors, lifespan, read_resource ------------------------------------------------


@asynccontextmanager
async def lifespan(app: Server) -> AsyncIterator[dict[str, str]]:
    yield {"db": "connected"}


def context_app() -> Server:
    app = Server("ctx", lifespan=lifespan)

    @app.tool()
    async def inspect_request(ctx: Context) -> dict[str, Any]:
        return {
            "id": ctx.request_id,
            "meta": ctx.meta,
            "token": ctx.progress_token,
            "cancelled": ctx.cancelled,
            "db": ctx.lifespan["db"],
            "client": ctx.client_capabilities,
        }

    @app.tool()
    async def read_own(uri: str, ctx: Context) -> str:
        result = await ctx.read_resource(uri)
        return "|".join(getattr(c, "text", "") or "" for c in result.contents)

    @app.resource("mem://greeting")
    def greeting(ctx: Context) -> str:
        return f"hello ({ctx.lifespan['db']})"

    @app.resource("mem://users/{id}")
    def user_by_id(id: int) -> str:
        return f"user {id + 1}"

    return app


async def test_context_exposes_the_request(wire: Any) -> None:
    async with connected(context_app(), wire, capabilities={"roots": {}}) as (client, _):
        r = await client.request(
            "tools/call",
            {"name": "inspect_request", "_meta": {"example.com/trace": "t-1"}},
            on_progress=lambda *a: None,
            timeout=10,
        )
        data = r["structuredContent"]
        assert data["meta"]["example.com/trace"] == "t-1"
        assert data["token"] is not None and data["meta"]["progressToken"] == data["token"]
        assert isinstance(data["id"], int) and data["cancelled"] is False
        assert data["db"] == "connected" and data["client"] == {"roots": {}}


async def test_ctx_read_resource_reads_static_and_templated(wire: Any) -> None:
    async with connected(context_app(), wire) as (client, _):
        assert text(await call(client, "read_own", {"uri": "mem://greeting"})) == (
            "hello (connected)"
        )
        assert text(await call(client, "read_own", {"uri": "mem://users/41"})) == "user 42"
        # The McpError raised inside the tool travels as the JSON-RPC error it is.
        with pytest.raises(McpError) as err:
            await call(client, "read_own", {"uri": "mem://nothing"})
        assert err.value.code == -32002 and err.value.data == {"uri": "mem://nothing"}


# -- the example server over stdio: the bullets the other stdio tests do not reach -------------


async def _stdio_example(wire: Any, capabilities: dict[str, Any]) -> Any:
    import sys

    from mcpkit.session import ClientSession
    from mcpkit.transports import StdioClientTransport
    from tests.conftest import ROOT, server_env
    from tests.server.helpers import CLIENT_INFO

    transport = StdioClientTransport(
        sys.executable,
        [str(ROOT / "examples" / "server_everything.py")],
        env=server_env(),
        cwd=str(ROOT),
    )
    client = ClientSession(transport, tracer=wire())
    await client.start()
    await client.initialize(CLIENT_INFO, capabilities)
    return client


async def test_example_over_stdio_subscriptions_levels_url_elicitation_roots(wire: Any) -> None:
    caps = {"elicitation": {"url": {}}, "roots": {"listChanged": True}}
    client = await _stdio_example(wire, caps)
    try:
        updated: list[Any] = []
        logs: list[Any] = []
        completed: list[Any] = []
        arrived = asyncio.Event()

        def note(store: list[Any]) -> Any:
            def handler(params: Any) -> None:
                store.append(params)
                arrived.set()

            return handler

        async def next_of(store: list[Any]) -> Any:
            while not store:
                await asyncio.wait_for(arrived.wait(), 10)
                arrived.clear()
            return store.pop(0)

        client.set_notification_handler("notifications/resources/updated", note(updated))
        client.set_notification_handler("notifications/message", note(logs))
        client.set_notification_handler("notifications/elicitation/complete", note(completed))
        # Subscriptions: only subscribed URIs are announced.
        await client.request("resources/subscribe", {"uri": "test://static-text"})
        await call(client, "touch", {"uri": "test://static-binary"})
        await call(client, "touch", {"uri": "test://static-text"})
        assert await next_of(updated) == {"uri": "test://static-text"}
        await client.request("resources/unsubscribe", {"uri": "test://static-text"})
        await call(client, "touch", {"uri": "test://static-text"})
        await client.ping()
        assert updated == []
        # Logging level per session.
        await call(client, "forecast", {"city": "Oslo", "days": 1})
        assert (await next_of(logs))["data"] == "forecasting Oslo"
        await client.request("logging/setLevel", {"level": "warning"})
        await call(client, "forecast", {"city": "Oslo", "days": 1})
        await client.ping()
        assert logs == []
        await client.request("logging/setLevel", {"level": "info"})

        # URL elicitation and its completion notification.
        async def accept(params: Any, ctx: Any) -> Any:
            return {"action": "accept"}

        async def roots(params: Any, ctx: Any) -> Any:
            return {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}

        client.set_request_handler("elicitation/create", accept)
        assert text(await call(client, "connect")) == "user chose accept"
        assert await next_of(completed) == {"elicitationId": "connect-1"}
        # Roots changed: the server's hook asks for them again.
        client.set_request_handler("roots/list", roots)
        await client.notify("notifications/roots/list_changed")
        assert (await next_of(logs))["data"] == "roots changed: 2 root(s)"
        # Resource links and embedded resources with annotations.
        content = (await call(client, "files"))["content"]
        assert [c["type"] for c in content] == ["resource_link", "resource"]
        assert content[1]["annotations"]["lastModified"] == "2025-05-03T14:30:00Z"
    finally:
        await client.close()


async def test_example_over_stdio_url_elicitation_required(wire: Any) -> None:
    client = await _stdio_example(wire, {})
    try:
        with pytest.raises(McpError) as err:
            await call(client, "connect")
        assert err.value.code == -32042
        (entry,) = err.value.data["elicitations"]
        assert entry["mode"] == "url" and entry["url"] == "https://example.com/connect"
        assert entry["elicitationId"]
        await client.ping()
    finally:
        await client.close()
