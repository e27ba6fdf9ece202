"""Requests served inline (no task of their own): which tool calls qualify, that they
answer exactly as before, keep their context variables to themselves, and that one that
waits after all goes on in a task, answers, and can still be cancelled."""

from __future__ import annotations

import asyncio
import contextvars
import functools
from typing import Any

from mcpkit import Context, Server, ToolError
from mcpkit.server.invoke import never_suspends
from mcpkit.session import ClientSession, RequestContext, ServerSession
from mcpkit.transports import MemoryTransport
from tests.server.helpers import call, connected, text

marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


async def plain(text: str) -> str:
    return text


async def awaits(text: str) -> str:
    await asyncio.sleep(0)
    return text


async def with_block(lock: asyncio.Lock) -> None:
    async with lock:
        pass


async def loops(items: Any) -> list[Any]:
    return [i async for i in items]


class Callable:
    async def __call__(self, text: str) -> str:
        return text


def test_never_suspends_reads_the_function_body() -> None:
    assert never_suspends(plain)
    assert not never_suspends(awaits)
    assert not never_suspends(with_block)
    assert not never_suspends(loops)
    assert not never_suspends(Callable())  # an object: its code is not looked at
    assert not never_suspends(functools.partial(plain, "x"))
    assert not never_suspends(lambda: None)  # not a coroutine function


def inline_flags(app: Server, session: Any) -> dict[str, bool]:
    return {
        name: session.serves_inline("tools/call", {"name": name, "arguments": {}})
        for name in app.tools.tools
    }


async def test_which_calls_are_served_inline(wire: Any) -> None:
    app = Server("inline")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    @app.tool()
    async def slow(text: str) -> str:
        await asyncio.sleep(0)
        return text

    @app.tool()
    def sync_echo(text: str) -> str:
        return text

    @app.tool()
    async def with_ctx(text: str, ctx: Context) -> str:
        return text

    @app.tool()
    def sync_with_ctx(text: str, ctx: Context) -> str:
        return text

    @app.tool(task_support="optional")
    async def as_task(text: str) -> str:
        return text

    async with connected(app, wire) as (_, server):
        assert inline_flags(app, server) == {
            "echo": True,
            "slow": False,
            "sync_echo": True,  # it waits on the worker pool only, with no task
            "with_ctx": False,
            "sync_with_ctx": False,
            "as_task": False,
        }
        assert not server.serves_inline("tools/call", {"name": "echo", "task": {}})
        assert not server.serves_inline("tools/list", None)
        assert not server.serves_inline("tools/call", {"name": "missing"})

        async def outer(ctx: Any, call_next: Any) -> Any:
            return await call_next(ctx)

        app.add_middleware(outer)  # tools/call is wrapped now: nothing is known about it
        assert not any(inline_flags(app, server).values())


async def test_inline_calls_answer_and_keep_their_context_variables(wire: Any) -> None:
    app = Server("inline")

    @app.tool()
    async def mark(text: str) -> str:
        before = marker.get()
        marker.set(text)
        return before

    @app.tool()
    async def fails(text: str) -> str:
        raise ToolError(f"no {text}")

    async with connected(app, wire) as (client, _):
        results = await asyncio.gather(
            *(call(client, "mark", {"text": f"t{i}"}) for i in range(20))
        )
        # Each call ran in its own copy of the context: none saw another's value.
        assert [text(r) for r in results] == ["unset"] * 20
        assert marker.get() == "unset"
        failed = await call(client, "fails", {"text": "way"})
        assert failed["isError"] is True and text(failed) == "Error executing tool 'fails': no way"
        invalid = await call(client, "mark", {"text": 3})
        assert invalid["isError"] is True


async def test_an_inline_call_that_must_wait_goes_on_in_a_task(wire: Any) -> None:
    app = Server("inline")
    ran: list[str] = []

    @app.tool(max_concurrency=1, max_queued=4)
    async def one_at_a_time(text: str) -> str:
        marker.set(text)
        ran.append(text)
        return text

    async with connected(app, wire) as (client, server):
        assert inline_flags(app, server)["one_at_a_time"]
        entry = app.tools.tools["one_at_a_time"]
        assert entry.limiter is not None
        await entry.limiter.acquire()  # the tool's slot is taken: its calls must queue
        first = asyncio.ensure_future(call(client, "one_at_a_time", {"text": "a"}))
        second = asyncio.ensure_future(call(client, "one_at_a_time", {"text": "b"}))
        for _ in range(50):
            if len(server._in_flight) == 2:
                break
            await asyncio.sleep(0.01)
        waiting = list(server._in_flight.values())
        assert len(waiting) == 2 and all(c.task is not None for c in waiting)
        assert ran == []
        entry.limiter.release()
        assert [text(await first), text(await second)] == ["a", "b"]
        assert ran == ["a", "b"] and marker.get() == "unset"


async def test_a_waiting_inline_call_can_be_cancelled(wire: Any) -> None:
    app = Server("inline")

    @app.tool(max_concurrency=1, max_queued=4)
    async def gated(text: str) -> str:
        return text

    async with connected(app, wire) as (client, server):
        entry = app.tools.tools["gated"]
        assert entry.limiter is not None
        await entry.limiter.acquire()
        pending = asyncio.ensure_future(call(client, "gated", {"text": "never"}))
        for _ in range(50):
            if server._in_flight:
                break
            await asyncio.sleep(0.01)
        (rctx,) = server._in_flight.values()
        assert rctx.task is not None
        await client.notify("notifications/cancelled", {"requestId": rctx.request_id})
        await asyncio.wait_for(rctx.task, 5)
        assert not server._in_flight and not pending.done()  # a cancelled call gets no answer
        entry.limiter.release()
        assert text(await call(client, "gated", {"text": "next"})) == "next"  # slot was freed
        pending.cancel()


class InlineSession(ServerSession):
    def serves_inline(self, method: str, params: Any) -> bool:
        return method == "custom/wait"


async def test_the_engine_resumes_a_handler_where_it_stopped() -> None:
    """The engine alone: an inline handler that awaits twice goes on in a task, in the
    context it started in; cancelled there, it gets CancelledError where it waits."""
    gates: asyncio.Queue[asyncio.Future[Any]] = asyncio.Queue()
    seen: list[Any] = []

    async def handler(params: Any, ctx: RequestContext) -> dict[str, Any]:
        marker.set("handler")
        loop = asyncio.get_running_loop()
        for _ in range(2):
            gate = loop.create_future()
            gates.put_nowait(gate)
            try:
                seen.append(await gate)
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise
        return {"seen": list(seen), "marker": marker.get()}

    a, b = MemoryTransport.pair()
    server = InlineSession(b, server_info={"name": "s", "version": "1"})
    server.set_request_handler("custom/wait", handler)
    client = ClientSession(a)
    await server.start()
    await client.start()
    try:
        await client.initialize({"name": "c", "version": "1"})
        answer = asyncio.ensure_future(client.request("custom/wait", {}, timeout=10))
        gate = await asyncio.wait_for(gates.get(), 5)
        (rctx,) = server._in_flight.values()
        assert rctx.task is not None  # it waits: a task carries it on
        gate.set_result(1)
        (await asyncio.wait_for(gates.get(), 5)).set_result(2)
        assert await answer == {"seen": [1, 2], "marker": "handler"}
        assert marker.get() == "unset"

        seen.clear()
        cancelled = asyncio.ensure_future(client.request("custom/wait", {}, timeout=10))
        (await asyncio.wait_for(gates.get(), 5)).set_result(1)
        await asyncio.wait_for(gates.get(), 5)
        (rctx,) = server._in_flight.values()
        assert rctx.task is not None
        cancelled.cancel()  # the client sends notifications/cancelled
        await asyncio.wait_for(rctx.task, 5)
        assert seen == [1, "cancelled"] and not server._in_flight
    finally:
        await client.close()
        await server.close()
