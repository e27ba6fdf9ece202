"""The thread pool that runs sync handlers off the event loop (mcpkit.server.offload)."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from mcpkit.server.offload import Offloader, run_sync

var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")


async def test_result_exception_and_thread() -> None:
    pool = Offloader(2, thread_name_prefix="t-offload")
    try:
        main = threading.get_ident()
        assert await run_sync(pool, lambda: threading.get_ident()) != main
        assert threading.current_thread().name not in ("t-offload_0", "t-offload_1")

        def boom() -> None:
            raise ValueError("nope")

        with pytest.raises(ValueError, match="nope"):
            await run_sync(pool, boom)
        names = await asyncio.gather(
            *(run_sync(pool, lambda: threading.current_thread().name) for _ in range(20))
        )
        assert set(names) <= {"t-offload_0", "t-offload_1"}
    finally:
        pool.shutdown()


async def test_context_variables_are_copied() -> None:
    pool = Offloader(1)
    try:
        var.set("outer")

        def read_and_set() -> str:
            value = var.get()
            var.set("inner")
            return value

        assert await run_sync(pool, read_and_set) == "outer"
        assert var.get() == "outer"
    finally:
        pool.shutdown()


async def test_blocking_calls_run_in_parallel_and_the_loop_keeps_running() -> None:
    pool = Offloader(4)
    try:
        barrier = threading.Barrier(3, timeout=10)
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        tick_task = asyncio.create_task(ticker())

        def wait_for_others() -> int:
            return barrier.wait()  # only returns when three threads are in it at once

        results = await asyncio.gather(*(run_sync(pool, wait_for_others) for _ in range(3)))
        tick_task.cancel()
        assert sorted(results) == [0, 1, 2]
        assert ticks > 0
    finally:
        pool.shutdown()


async def test_many_results_in_one_burst() -> None:
    pool = Offloader(3)
    try:
        results = await asyncio.gather(*(run_sync(pool, lambda i=i: i * 2) for i in range(2000)))
        assert results == [i * 2 for i in range(2000)]
    finally:
        pool.shutdown()


async def test_cancelled_waiter_does_not_break_later_results() -> None:
    pool = Offloader(1)
    try:
        release = threading.Event()
        started = threading.Event()

        def slow() -> str:
            started.set()
            release.wait(10)
            return "slow"

        task = asyncio.create_task(run_sync(pool, slow))
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        assert await run_sync(pool, lambda: "next") == "next"
    finally:
        pool.shutdown()


async def test_max_workers_bounds_the_threads() -> None:
    pool = Offloader(2)
    try:
        await asyncio.gather(
            *(run_sync(pool, lambda: threading.Event().wait(0.01)) for _ in range(8))
        )
        assert len(pool._threads) <= 2
    finally:
        pool.shutdown()


def test_is_a_regular_executor() -> None:
    pool = Offloader(2)
    fut = pool.submit(lambda a, b: a + b, 2, b=3)
    assert fut.result(timeout=10) == 5
    failing = pool.submit(int, "x")
    with pytest.raises(ValueError):
        failing.result(timeout=10)
    pool.shutdown(wait=True)
    with pytest.raises(RuntimeError):
        pool.submit(int, "1")
    with pytest.raises(ValueError):
        Offloader(0)


async def test_shutdown_cancels_queued_work() -> None:
    pool = Offloader(1)
    release = threading.Event()
    started = threading.Event()

    def block() -> str:
        started.set()
        release.wait(10)
        return "done"

    first = asyncio.ensure_future(run_sync(pool, block))
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
    queued = asyncio.ensure_future(run_sync(pool, lambda: "never"))
    await asyncio.sleep(0)
    pool.shutdown(wait=False, cancel_futures=True)
    release.set()
    assert await first == "done"
    with pytest.raises(asyncio.CancelledError):
        await queued
    with pytest.raises(RuntimeError):
        await run_sync(pool, lambda: None)


async def test_other_executors_still_work() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        var.set("x")
        assert await run_sync(pool, var.get) == "x"


def test_two_event_loops_share_a_pool() -> None:
    pool = Offloader(2)
    try:
        for _ in range(2):
            assert asyncio.run(run_sync(pool, lambda: 41 + 1)) == 42
    finally:
        pool.shutdown()
