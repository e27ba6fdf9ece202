"""The middleware chain: order, short circuits, errors, changed params and results, the
context a middleware sees, notifications, ``initialize``/``ping``, raw handlers, and no
chain at all without middleware; in memory and over HTTP, in both eras."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Client, Context, McpError, Server
from mcpkit.server.middleware import (
    CallNext,
    Middleware,
    MiddlewareContext,
    plain_result,
)
from tests.server.middleware.helpers import IDS, WAYS, connect


def echo_server(**options: Any) -> Server[Any]:
    app: Server[Any] = Server("mw", **options)
    calls: list[str] = []

    @app.tool()
    def echo(text: str) -> str:
        calls.append(text)
        return text

    @app.tool()
    def secret() -> str:
        return "hidden"

    app.state_calls = calls  # type: ignore[attr-defined]
    return app


class Recorder(Middleware):
    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    async def on_call_tool(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        self.log.append(f"{self.name} in")
        result = await call_next(ctx)
        self.log.append(f"{self.name} out")
        result = dict(result)
        result["content"] = [*result["content"], {"type": "text", "text": self.name}]
        return result


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_first_added_is_outermost_and_each_wraps_the_result(transport: str, era: str) -> None:
    log: list[str] = []
    app = echo_server(middleware=[Recorder("outer", log)])
    app.add_middleware(Recorder("inner", log))
    async with connect(app, transport, era) as client:
        result = await client.call_tool("echo", {"text": "hi"})
    assert [c.text for c in result.content] == ["hi", "inner", "outer"]  # type: ignore[union-attr]
    assert log == ["outer in", "inner in", "inner out", "outer out"]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_short_circuit_error_and_changed_params(transport: str, era: str) -> None:
    async def policy(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        if ctx.method == "tools/call" and ctx.params is not None:
            text = ctx.params["arguments"]["text"]
            if text == "answer":
                return {"content": [{"type": "text", "text": "from middleware"}]}
            if text == "refuse":
                raise McpError(-31000, "Refused by policy", {"why": "test"})
            if text == "crash":
                raise RuntimeError("middleware bug")
            ctx.params = {**ctx.params, "arguments": {"text": text.upper()}}
        return await call_next(ctx)

    app = echo_server(middleware=[policy])
    async with connect(app, transport, era) as client:
        short = await client.call_tool("echo", {"text": "answer"})
        assert short.content[0].text == "from middleware"  # type: ignore[union-attr]
        assert app.state_calls == []  # type: ignore[attr-defined]
        with pytest.raises(McpError) as refused:
            await client.call_tool("echo", {"text": "refuse"})
        assert (refused.value.code, refused.value.message) == (-31000, "Refused by policy")
        assert refused.value.data == {"why": "test"}
        with pytest.raises(McpError) as crashed:
            await client.call_tool("echo", {"text": "crash"})
        assert crashed.value.code == -32603
        changed = await client.call_tool("echo", {"text": "quiet"})  # the session goes on
        assert changed.content[0].text == "QUIET"  # type: ignore[union-attr]
    assert app.state_calls == ["QUIET"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_what_a_middleware_knows(transport: str, era: str) -> None:
    seen: list[dict[str, Any]] = []

    class Facts(Middleware):
        async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            if ctx.method == "tools/call":
                context = ctx.context
                assert context is ctx.context  # made once
                seen.append(
                    {
                        "era": ctx.era,
                        "name": ctx.name,
                        "context": isinstance(context, Context),
                        "same_id": context.request_id == ctx.request_id,
                        "context_era": context.era,
                        "session_id": ctx.session_id,
                        "remote": ctx.remote_address,
                        "client": ctx.client_id.split(":")[0],
                        "principal": ctx.principal,
                        "notification": ctx.is_notification,
                        "server": ctx.server.name,
                    }
                )
            return await call_next(ctx)

    app = echo_server(middleware=[Facts()])
    async with connect(app, transport, era) as client:
        await client.call_tool("echo", {"text": "x"})
    modern = era != "legacy"
    (facts,) = seen
    assert facts["era"] == facts["context_era"] == ("modern" if modern else "legacy")
    assert facts["name"] == "echo" and facts["context"] and facts["same_id"]
    assert facts["principal"] is None and not facts["notification"]
    assert facts["server"] == "mw"
    if transport == "memory":
        assert facts["remote"] is None and facts["session_id"] is None
        assert facts["client"] == "connection"
    elif modern:  # stateless: no session, the address identifies the client
        assert facts["remote"] == "127.0.0.1" and facts["session_id"] is None
        assert facts["client"] == "address"
    else:
        assert facts["remote"] == "127.0.0.1" and facts["session_id"]
        assert facts["client"] == "session"


async def test_hooks_of_one_middleware_nest_message_request_method() -> None:
    log: list[str] = []

    class Layers(Middleware):
        async def on_message(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            log.append(f"message {ctx.method}")
            return await call_next(ctx)

        async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            log.append(f"request {ctx.method}")
            return await call_next(ctx)

        async def on_notification(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            log.append(f"notification {ctx.method}")
            return await call_next(ctx)

        async def on_call_tool(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            log.append("call_tool")
            return await call_next(ctx)

    app = echo_server(middleware=[Layers()])
    async with Client(app, era="legacy", timeout=10) as client:
        await client.call_tool("echo", {"text": "x"})
        await client.ping()
    # (the client may list the tools to check the call's output: not this test's matter)
    assert [e for e in log if "tools/list" not in e] == [
        "message initialize",
        "request initialize",
        "message notifications/initialized",
        "notification notifications/initialized",
        "message tools/call",
        "request tools/call",
        "call_tool",
        "message ping",
        "request ping",
    ]


async def test_notifications_pass_the_chain_and_can_be_dropped() -> None:
    got: list[Any] = []
    roots_changed = asyncio.Event()
    app = echo_server()

    @app.notification_handler("notifications/custom")
    def custom(params: Any) -> None:
        got.append(params)

    @app.on_roots_changed
    def changed(session: Any) -> None:
        roots_changed.set()

    seen: list[str] = []
    dropped = asyncio.Event()

    class Gate(Middleware):
        async def on_notification(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            seen.append(ctx.method)
            assert ctx.is_notification and ctx.request_id is None
            with pytest.raises(RuntimeError, match="no Context"):
                ctx.context
            if ctx.params and ctx.params.get("drop"):
                dropped.set()
                return None
            return await call_next(ctx)

    app.add_middleware(Gate())
    async with Client(app, era="legacy", timeout=10, roots=["file:///a"]) as client:
        await client.session.notify("notifications/custom", {"drop": True})
        await dropped.wait()
        await client.session.notify("notifications/custom", {"n": 1})
        await client.set_roots(["file:///b"])
        await asyncio.wait_for(roots_changed.wait(), 10)
        await client.ping()
    assert got == [{"n": 1}]
    assert seen[0] == "notifications/initialized"
    assert "notifications/roots/list_changed" in seen
    assert seen.count("notifications/custom") == 2


async def test_a_raw_request_handler_is_wrapped_too_even_when_added_while_connected() -> None:
    log: list[str] = []

    async def mark(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        log.append(ctx.method)
        return await call_next(ctx)

    app = echo_server(middleware=[mark])
    async with Client(app, era="legacy", timeout=10) as client:

        @app.request_handler("tools/list")
        async def only_echo(params: Any, rctx: Any) -> dict[str, Any]:
            return {"tools": [app.tools.tools["echo"].definition]}

        tools = await client.list_tools(cache="bypass")
        assert [t.name for t in tools] == ["echo"]
    assert log[-1] == "tools/list"


async def test_filtering_a_list_result_leaves_the_servers_pages_alone() -> None:
    class Hide(Middleware):
        async def on_list_tools(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            result = plain_result(await call_next(ctx))
            result["tools"] = [t for t in result["tools"] if t["name"] != "secret"]
            return result

    app = echo_server(middleware=[Hide()])
    for era in ("legacy", "2026-07-28"):
        async with Client(app, era=era, timeout=10) as client:  # type: ignore[arg-type]
            assert [t.name for t in await client.list_tools(cache="bypass")] == ["echo"]
    page = app.tools.paginator.page(None)
    assert {t["name"] for t in plain_result(page)["tools"]} == {"echo", "secret"}


async def test_without_middleware_the_handlers_are_the_features_own() -> None:
    app = echo_server()
    table = app.handler_table()
    assert table["tools/call"] == app.tools.call_tool
    assert table["tools/list"] == app.tools.list_tools
    assert "initialize" not in table and "ping" not in table  # the engine's own serve them

    class ToolsOnly(Middleware):
        async def on_call_tool(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
            return await call_next(ctx)

    app.add_middleware(ToolsOnly())
    table = app.handler_table()
    assert table["tools/call"] != app.tools.call_tool
    assert table["tools/list"] == app.tools.list_tools  # no hook for it: left as it is
    with pytest.raises(TypeError, match="middleware must be"):
        app.add_middleware(42)  # type: ignore[arg-type]


async def test_middleware_added_while_connected_sees_the_next_requests() -> None:
    log: list[str] = []
    app = echo_server()
    async with Client(app, era="legacy", timeout=10) as client:
        await client.call_tool("echo", {"text": "before"})
        app.add_middleware(Recorder("late", log))
        result = await client.call_tool("echo", {"text": "after"})
    assert [c.text for c in result.content] == ["after", "late"]  # type: ignore[union-attr]
    assert log == ["late in", "late out"]


async def test_a_middleware_instance_is_also_a_plain_middleware_function() -> None:
    log: list[str] = []
    recorder = Recorder("direct", log)

    async def delegate(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        return await recorder(ctx, call_next)

    app = echo_server(middleware=[delegate])
    async with Client(app, era="2026-07-28", timeout=10) as client:
        result = await client.call_tool("echo", {"text": "x"})
        await client.list_tools()
    assert [c.text for c in result.content] == ["x", "direct"]  # type: ignore[union-attr]
    assert log == ["direct in", "direct out"]


async def test_the_middleware_of_one_message_share_its_state() -> None:
    seen: list[Any] = []

    async def outer(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        ctx.state["started"] = ctx.method
        return await call_next(ctx)

    async def inner(ctx: MiddlewareContext, call_next: CallNext) -> Any:
        seen.append(ctx.state.get("started"))
        return await call_next(ctx)

    app = echo_server(middleware=[outer, inner])
    async with Client(app, era="legacy", timeout=10) as client:
        await client.call_tool("echo", {"text": "x"})
    assert seen[:3] == ["initialize", "notifications/initialized", "tools/call"]


async def test_a_mounted_server_runs_its_own_middleware_inside_its_parents() -> None:
    log: list[tuple[str, str | None, str]] = []

    def recorder(who: str) -> Any:
        async def record(ctx: MiddlewareContext, call_next: CallNext) -> Any:
            if ctx.method == "tools/call":
                log.append((who, ctx.name, ctx.server.name))
            return await call_next(ctx)

        return record

    child: Server[Any] = Server("child", middleware=[recorder("child")])

    @child.tool()
    def lookup(key: str) -> str:
        return key

    parent: Server[Any] = Server("parent", middleware=[recorder("parent")])
    parent.mount(child, prefix="kv")
    async with Client(parent, era="legacy", timeout=10) as client:
        result = await client.call_tool("kv_lookup", {"key": "a"})
    assert result.content[0].text == "a"  # type: ignore[union-attr]
    assert log == [("parent", "kv_lookup", "parent"), ("child", "lookup", "child")]
