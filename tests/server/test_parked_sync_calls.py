"""A ``def`` tool's call served inline: it waits on its run in the worker pool with no task
of its own (parked on a Handoff) and is continued in place when the run is over; a task is
made for it only when one is needed (its cancellation, the end of the connection). Answers,
errors, context variables, cancellation and a blocking tool behave as with a task."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

from mcpkit import Server, ToolError
from mcpkit.transports import MemoryTransport
from tests.server.helpers import CLIENT_INFO, call, connected, text

marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


async def until(condition: Any) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never met")


def gated_server(max_workers: int | None = None) -> tuple[Server, threading.Event, threading.Event]:
    app = Server("parked", max_workers=max_workers)
    entered = threading.Event()
    gate = threading.Event()

    @app.tool()
    def blocks(text: str) -> str:
        entered.set()
        gate.wait(30)
        return f"released {text}"

    @app.tool()
    def mark(text: str) -> str:
        before = marker.get()
        marker.set(text)
        return before

    @app.tool()
    async def async_echo(text: str) -> str:
        return text

    return app, entered, gate


async def test_a_def_tool_call_waits_with_no_task(wire: Any) -> None:
    app, entered, gate = gated_server()
    async with connected(app, wire) as (client, server):
        pending = asyncio.ensure_future(call(client, "blocks", {"text": "a"}))
        await asyncio.to_thread(entered.wait, 30)
        (rctx,) = server._in_flight.values()
        assert rctx.task is None and rctx._parked is not None
        gate.set()
        assert text(await pending) == "released a"
        assert not server._in_flight


async def test_many_def_tool_calls_answer_each_in_its_own_context(wire: Any) -> None:
    app, _, _ = gated_server()
    async with connected(app, wire) as (client, _):
        results = await asyncio.gather(
            *(call(client, "mark", {"text": f"t{i}"}) for i in range(64))
        )
        # Each call ran in its own copy of the context: none saw another's value.
        assert [text(r) for r in results] == ["unset"] * 64
        assert marker.get() == "unset"


async def test_def_tool_errors_answer_as_with_a_task(wire: Any) -> None:
    app = Server("parked")

    @app.tool()
    def fails(text: str) -> str:
        raise RuntimeError(f"no {text}")

    @app.tool()
    def refuses(text: str) -> str:
        raise ToolError(f"not {text}")

    async with connected(app, wire) as (client, _):
        failed = await call(client, "fails", {"text": "luck"})
        assert failed["isError"] is True
        assert text(failed).startswith("Error executing tool 'fails' (error id ")  # masked
        refused = await call(client, "refuses", {"text": "this"})
        assert text(refused) == "Error executing tool 'refuses': not this"


async def test_a_coroutine_a_def_tool_hands_back_runs_in_a_task(wire: Any) -> None:
    """What a sync function returns is awaited; a coroutine may need a task (a timeout,
    a cancel scope), which the call continued in place does not have: it gets one."""
    app = Server("parked")

    async def later(text: str) -> str:
        async with asyncio.timeout(5):  # raises outside a task
            await asyncio.sleep(0)
        return f"{text} in a task: {asyncio.current_task() is not None}"

    @app.tool()
    def hands_back(text: str):  # type: ignore[no-untyped-def]
        return later(text)

    async with connected(app, wire) as (client, _):
        assert text(await call(client, "hands_back", {"text": "x"})) == "x in a task: True"


async def test_a_parked_call_cancelled_gets_no_answer(wire: Any) -> None:
    app, entered, gate = gated_server()
    async with connected(app, wire) as (client, server):
        pending = asyncio.ensure_future(call(client, "blocks", {"text": "never"}))
        await asyncio.to_thread(entered.wait, 30)
        (rctx,) = server._in_flight.values()
        await client.notify("notifications/cancelled", {"requestId": rctx.request_id})
        await until(lambda: not server._in_flight)
        assert rctx.task is not None  # its cancellation made it a task
        gate.set()  # the thread ends: its result is dropped
        assert text(await call(client, "async_echo", {"text": "next"})) == "next"
        assert text(await call(client, "mark", {"text": "next"})) == "unset"
        assert not pending.done()  # a cancelled call gets no answer
        pending.cancel()


async def test_closing_the_session_ends_parked_calls(wire: Any) -> None:
    app, entered, gate = gated_server()
    a, b = MemoryTransport.pair()
    from mcpkit.session import ClientSession

    server = app.session(b)
    client = ClientSession(a)
    await server.start()
    await client.start()
    try:
        await client.initialize(CLIENT_INFO, {})
        pending = asyncio.ensure_future(call(client, "blocks", {"text": "x"}))
        await asyncio.to_thread(entered.wait, 30)
        (rctx,) = server._in_flight.values()
        await server.close()
        assert rctx.task is not None
        await asyncio.wait_for(asyncio.wait({rctx.task}), 5)
        assert rctx.task.cancelled()
    finally:
        gate.set()
        await client.close()
        await server.close()
    assert pending.done()


async def test_a_parked_call_whose_run_is_dropped_with_the_pool_ends(wire: Any) -> None:
    """The pool shut down with the call's run still queued: the call ends unanswered,
    leaving nothing behind."""
    app, entered, gate = gated_server(max_workers=1)
    async with connected(app, wire) as (client, server):
        first = asyncio.ensure_future(call(client, "blocks", {"text": "first"}))
        await asyncio.to_thread(entered.wait, 30)
        second = asyncio.ensure_future(call(client, "mark", {"text": "queued"}))
        await until(lambda: len(server._in_flight) == 2)
        app.workers.shutdown()  # the queued run is cancelled, the running one goes on
        await until(lambda: len(server._in_flight) == 1)
        gate.set()
        assert text(await first) == "released first"
        assert not second.done()
        second.cancel()
        assert text(await call(client, "mark", {"text": "after"})) == "unset"  # a new pool


async def test_a_blocking_def_tool_stalls_no_other_session(wire: Any) -> None:
    app, entered, gate = gated_server()
    async with connected(app, wire) as (one, _), connected(app, wire) as (two, _):
        blocked = asyncio.ensure_future(call(one, "blocks", {"text": "slow"}))
        try:
            await asyncio.to_thread(entered.wait, 30)
            # The tool holds its worker thread: every other call is answered meanwhile.
            for n in range(20):
                assert text(await call(two, "mark", {"text": f"{n}"})) == "unset"
                assert text(await call(two, "async_echo", {"text": f"{n}"})) == f"{n}"
            assert text(await call(one, "async_echo", {"text": "same"})) == "same"
            assert text(await call(one, "mark", {"text": "same"})) == "unset"
            assert not blocked.done()
        finally:
            gate.set()
        assert text(await blocked) == "released slow"
