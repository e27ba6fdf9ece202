"""The run of a quick ``def`` function waited for in place: while the loop has no callback
ready, the loop thread waits (the GIL released) for the worker's outcome for at most the
pool's ``inline_wait`` and goes on with no loop turn; a run that takes longer is handed back
as any other (the loop is free again), and its function is not waited for again for a while.
Orderings and outcomes are asserted, not durations: a wait that did not end at its bound
shows as a function that never saw the loop go on."""

from __future__ import annotations

import asyncio
import contextvars
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.eager import Handoff
from mcpkit.server.offload import Offloader, _cancel, _Waiter
from tests.server.test_def_tool_handoff import post, text_of

FOREVER = 3600.0

where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="unset")


def loop_thread_function(thread_id: int) -> str:
    """The name of the Python function the given thread is in."""
    frame = sys._current_frames().get(thread_id)
    return "" if frame is None else frame.f_code.co_name


def seen_from_worker(thread_id: int, name: str) -> bool:
    """From a worker: whether the loop thread shows up in the function ``name`` (polled:
    the loop thread may not have got there yet)."""
    for _ in range(10_000):
        if loop_thread_function(thread_id) == name:
            return True
        time.sleep(0.001)
    return False


def call(pool: Offloader, fn: Callable[..., Any], **kwargs: Any) -> Any:
    """``pool.start_call`` in a copy of the current context, as ``tools/call`` makes it."""
    return pool.start_call(contextvars.copy_context().run, fn, kwargs)


def step(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` up to its first suspension; its value if it finished there."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise AssertionError("the coroutine suspended")


@pytest.fixture
def pool() -> Any:
    pool = Offloader(2, inline_wait=FOREVER)
    yield pool
    pool.shutdown()


async def test_a_quick_run_is_waited_for_in_place_and_awaited_without_suspending(
    pool: Offloader,
) -> None:
    loop_thread = threading.get_ident()
    seen: list[bool] = []

    def quick(n: int) -> int:
        seen.append(seen_from_worker(loop_thread, "_wait_in_place"))
        return n * 2

    async def caller() -> int:
        value: int = await call(pool, quick, n=21)
        return value

    # the caller finishes on its first step: no suspension, so no loop turn
    assert step(caller()) == 42
    assert seen == [True]


async def test_an_exception_of_a_run_waited_for_in_place_is_raised_to_the_caller(
    pool: Offloader,
) -> None:
    error = ValueError("boom")

    def fails() -> None:
        raise error

    async def caller() -> BaseException:
        try:
            await call(pool, fails)
        except ValueError as exc:
            return exc
        raise AssertionError("no exception")

    assert step(caller()) is error


async def test_a_run_waited_for_in_place_sees_the_callers_context_and_leaves_it_alone(
    pool: Offloader,
) -> None:
    where.set("caller")

    def reads_and_sets() -> str:
        seen = where.get()
        where.set("worker")
        return seen

    async def caller() -> str:
        value: str = await call(pool, reads_and_sets)
        return value

    assert step(caller()) == "caller"
    assert where.get() == "caller"


async def test_a_run_is_not_waited_for_while_a_callback_is_ready(pool: Offloader) -> None:
    loop = asyncio.get_running_loop()
    ran: list[str] = []
    gate = threading.Event()

    def waits_for_the_callback() -> bool:
        return gate.wait(30)  # the loop must run the ready callback first

    loop.call_soon(lambda: (ran.append("callback"), gate.set()))
    awaitable = call(pool, waits_for_the_callback)
    assert type(awaitable) is Handoff
    assert await awaitable is True
    assert ran == ["callback"]


async def test_a_run_is_not_waited_for_while_every_worker_is_busy() -> None:
    pool = Offloader(1, inline_wait=FOREVER)
    gate = threading.Event()
    entered = threading.Event()
    try:

        def blocks() -> str:
            entered.set()
            gate.wait(30)
            return "blocked"

        first = asyncio.ensure_future(pool.start(blocks))
        await asyncio.to_thread(entered.wait, 30)
        # the only worker is busy: waiting in place would wait for ``blocks`` first
        awaitable = call(pool, lambda: "second")
        assert type(awaitable) is Handoff
        gate.set()
        assert await first == "blocked"
        assert await awaitable == "second"
    finally:
        pool.shutdown()


async def test_a_slow_run_is_waited_for_no_longer_than_the_bound() -> None:
    """The run waits for a timer of the loop's: had the loop waited on it for good, the
    timer could never fire and the run would report it timed out."""
    pool = Offloader(2, inline_wait=0.01)
    loop = asyncio.get_running_loop()
    order: list[str] = []
    try:

        def slow(gate: threading.Event) -> bool:
            fired = gate.wait(30)
            order.append("run done")
            return fired

        async def slow_call() -> bool:
            gate = threading.Event()
            # a timer is not a ready callback: the loop has nothing ready and waits in place
            loop.call_later(0, lambda: (order.append("timer"), gate.set()))
            result: bool = await call(pool, slow, gate=gate)
            return result

        assert await slow_call() is True
        assert order == ["timer", "run done"]

        # Slow once: its next calls are not waited for in place, even with no bound at all
        # (were one waited for, its timer could not fire: the run would return False).
        pool.inline_wait = FOREVER
        for _ in range(8):
            order.clear()
            assert await slow_call() is True
            assert order == ["timer", "run done"]
    finally:
        pool.shutdown()


async def test_a_function_quick_again_is_waited_for_in_place_again() -> None:
    pool = Offloader(2, inline_wait=0.01)
    loop = asyncio.get_running_loop()
    loop_thread = threading.get_ident()
    try:

        def runs(gate: threading.Event | None, loop_in: str = "") -> bool:
            if gate is not None:
                return gate.wait(30)
            return seen_from_worker(loop_thread, loop_in)

        gate = threading.Event()
        loop.call_later(0, gate.set)
        assert await call(pool, runs, gate=gate) is True  # slow: past the bound
        pool.inline_wait = FOREVER
        for _ in range(8):  # the backoff: handed back, the loop free (in its selector)
            awaitable = call(pool, runs, gate=None, loop_in="select")
            assert type(awaitable) is Handoff
            assert await awaitable is True
        # then waited for in place again
        awaitable = call(pool, runs, gate=None, loop_in="_wait_in_place")
        assert type(awaitable) is _Waiter
        assert await awaitable is True
    finally:
        pool.shutdown()


async def test_cancelling_a_handed_back_slow_run_drops_its_outcome() -> None:
    pool = Offloader(1, inline_wait=0.01)
    entered = threading.Event()
    gate = threading.Event()
    try:

        def blocks() -> str:
            entered.set()
            gate.wait(30)
            return "late"

        async def caller() -> str:
            value: str = await call(pool, blocks)
            return value

        task = asyncio.ensure_future(caller())
        await asyncio.to_thread(entered.wait, 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.set()
        # the outcome of the cancelled run is dropped; the pool goes on
        pool.inline_wait = FOREVER
        assert await pool.start(lambda: "next") == "next"
    finally:
        pool.shutdown()


async def test_a_shutdown_cancels_a_queued_run_the_loop_waits_for() -> None:
    # the state of a run queued and waited for in place, as a shutdown that cancels the
    # queue finds it: the wait ends with the cancellation
    waiter: _Waiter[int] = _Waiter()
    waiter.lock.acquire()
    _cancel((lambda: 1, None, None, waiter, None))  # type: ignore[arg-type]
    assert waiter.lock.acquire(False)
    with pytest.raises(asyncio.CancelledError):
        await waiter

    # the loop gave up waiting first: its Handoff is cancelled
    later: _Waiter[int] = _Waiter()
    later.handoff = Handoff(loop=asyncio.get_running_loop())
    later.claim.pop()
    _cancel((lambda: 1, None, None, later, None))  # type: ignore[arg-type]
    with pytest.raises(asyncio.CancelledError):
        await later.handoff


@pytest.fixture(params=["legacy", "modern"])
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_a_def_tool_on_stateless_http_is_waited_for_in_place(era: str) -> None:
    server = Server("in-place", version="1.0")
    server.workers.inline_wait = FOREVER
    loop_thread = threading.get_ident()

    @server.tool()
    def where_is_the_loop(text: str) -> str:
        """Names the function the loop thread is in."""
        seen = seen_from_worker(loop_thread, "_wait_in_place")
        return f"{text}: {'waits in place' if seen else 'elsewhere'}"

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    app = server.http_app(stateless=True, json_response=True)
    # (the app's first call starts what it runs beside the calls: a task ready to run)
    assert text_of(await post(app, era, 1, "echo", "first")) == "first"
    answer = await post(app, era, 2, "where_is_the_loop", "loop")
    assert text_of(answer) == "loop: waits in place"
    server.workers.shutdown()


async def test_concurrent_def_calls_with_a_slow_one_all_get_their_answers(era: str) -> None:
    server = Server("in-place", version="1.0")
    gate = threading.Event()

    @server.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    @server.tool()
    def waits(text: str) -> str:
        """Waits until the async tool ran (on the loop)."""
        return f"{text} {gate.wait(30)}"

    @server.tool()
    async def opens(text: str) -> str:
        """Releases ``waits``."""
        gate.set()
        return text

    app = server.http_app(stateless=True, json_response=True)
    calls = [post(app, era, 1, "waits", "waited")]
    calls += [post(app, era, 10 + n, "echo", f"e{n}") for n in range(30)]
    calls.append(post(app, era, 2, "opens", "opened"))
    answers = await asyncio.gather(*calls)
    assert [text_of(a) for a in answers] == (
        ["waited True"] + [f"e{n}" for n in range(30)] + ["opened"]
    )
    server.workers.shutdown()


def test_on_uvloop_a_quick_run_is_waited_for_in_place_and_a_slow_one_is_bounded() -> None:
    """uvloop (the loop mcpkit serves on when it is installed) does not show its ready
    queue: the wait's other bounds hold alone there, and a slow run still lets the loop go
    on past the bound (its timer fires, which a loop blocked for good could not do)."""
    uvloop = pytest.importorskip("uvloop")
    loop_thread = threading.get_ident()
    seen: list[bool] = []
    order: list[str] = []

    def quick(n: int) -> int:
        seen.append(seen_from_worker(loop_thread, "_wait_in_place"))
        return n * 2

    def slow(gate: threading.Event) -> bool:
        fired = gate.wait(30)
        order.append("run done")
        return fired

    async def body() -> None:
        pool = Offloader(2, inline_wait=FOREVER)
        try:

            async def caller() -> int:
                value: int = await call(pool, quick, n=21)
                return value

            assert step(caller()) == 42  # no suspension: waited for in place
            assert seen == [True]
            pool.inline_wait = 0.01
            gate = threading.Event()
            asyncio.get_running_loop().call_later(0, lambda: (order.append("timer"), gate.set()))
            assert await call(pool, slow, gate=gate) is True
            assert order == ["timer", "run done"]
        finally:
            pool.shutdown()

    loop = uvloop.new_event_loop()
    try:
        loop.run_until_complete(body())
    finally:
        loop.close()
