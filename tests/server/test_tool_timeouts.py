"""Tool timeouts: ``@app.tool(timeout=...)`` and ``Server(tool_timeout=...)`` cancel a call
that runs too long and answer an error result, in both eras, in memory and over HTTP; a
task-augmented call lives by its task's TTL instead; a server without timed tools serves
``tools/call`` without the timer."""

from __future__ import annotations

import asyncio
import math
import threading
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.server.tasks import TaskManager
from tests.ways import connect


class Probe:
    def __init__(self) -> None:
        self.cancelled = asyncio.Event()
        self.release = threading.Event()


def make_server(probe: Probe, **options: Any) -> Server:
    app = Server("timeouts", tasks=TaskManager(poll_interval=20), **options)

    @app.tool(timeout=0.2)
    async def slow() -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            probe.cancelled.set()
            raise
        return "finished"

    @app.tool(timeout=0.2)
    def blocking() -> str:
        probe.release.wait(30)  # a thread cannot be cancelled: its result is dropped
        return "finished"

    @app.tool(timeout=5)
    async def quick(n: int) -> int:
        await asyncio.sleep(0)
        return n * 2

    @app.tool()
    async def untimed(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return "slept"

    @app.tool(timeout=0.2, task_support="optional")
    async def long_job(release: bool = True) -> str:
        await asyncio.sleep(0.5)
        return "job done"

    return app


async def test_a_call_over_its_timeout_is_cancelled_with_an_error_result(
    era: str, transport: str, wire: Any
) -> None:
    probe = Probe()
    app = make_server(probe)
    async with connect(app, era, transport, wire) as client:
        result = await client.call_tool("slow")
        assert result.is_error
        assert result.content[0].text == "Tool 'slow' timed out after 0.2s"  # type: ignore[union-attr]
        await asyncio.wait_for(probe.cancelled.wait(), 10)  # the tool itself was cancelled

        result = await client.call_tool("blocking")
        probe.release.set()
        assert result.is_error and "timed out after 0.2s" in result.content[0].text  # type: ignore[union-attr]

        assert (await client.call_tool("quick", {"n": 21})).structured_content == {"result": 42}
        # The session goes on serving after a timeout.
        assert not (await client.call_tool("untimed", {"seconds": 0})).is_error


async def test_the_server_default_and_opting_out(era: str, wire: Any) -> None:
    app = Server("defaults", tool_timeout=0.2)

    @app.tool()
    async def slow() -> str:
        await asyncio.sleep(60)
        return "finished"

    @app.tool(timeout=math.inf)
    async def patient() -> str:
        await asyncio.sleep(0.4)
        return "waited"

    @app.tool(timeout=30)
    async def own() -> str:
        await asyncio.sleep(0.4)
        return "own limit"

    assert app.tools.tools["slow"].timeout == 0.2
    assert app.tools.tools["patient"].timeout is None
    async with connect(app, era, "memory", wire) as client:
        assert (await client.call_tool("slow")).is_error
        assert (await client.call_tool("patient")).content[0].text == "waited"  # type: ignore[union-attr]
        assert (await client.call_tool("own")).content[0].text == "own limit"  # type: ignore[union-attr]


async def test_a_task_lives_by_its_ttl_not_the_tool_timeout(era: str, wire: Any) -> None:
    app = make_server(Probe())
    async with connect(app, era, "memory", wire) as client:
        handle = await client.start_tool_task("long_job")
        result = await handle.result(timeout=10)
        assert not result.is_error  # type: ignore[union-attr]
        assert result.content[0].text == "job done"  # type: ignore[union-attr]
        # Called directly, the same tool is timed.
        direct = await client.call_tool("long_job")
        assert direct.is_error and "timed out" in direct.content[0].text  # type: ignore[union-attr]


def test_no_timer_without_timed_tools() -> None:
    app = Server("plain")

    @app.tool()
    def echo(text: str) -> str:
        return text

    assert app.handler_table()["tools/call"] == app.tools.call_tool
    app.add_tool(lambda: "x", name="timed", timeout=1)
    assert app.handler_table()["tools/call"] == app.tools.call_tool_timed
    app.remove_tool("timed")
    assert app.handler_table()["tools/call"] == app.tools.call_tool


def test_bad_timeouts_are_refused() -> None:
    app = Server("s")
    for bad in (0, -1, "5", True, math.nan):
        with pytest.raises(ValueError, match="positive number of seconds"):
            app.add_tool(lambda: "x", name="t", timeout=bad)
    with pytest.raises(ValueError, match="positive number of seconds"):
        Server("s", tool_timeout=0)


async def test_a_timed_tool_that_never_waits(era: str, transport: str, wire: Any) -> None:
    # An async tool with no await is served inline (no task of its own): its timeout has
    # nothing to interrupt, and the call must still be answered.
    app = Server("inline")

    @app.tool(timeout=1)
    async def instant(n: int) -> int:
        return n + 1

    # Its timer needs a task of its own (asyncio.timeout cancels the current task).
    assert app.tools.tools["instant"].function.never_suspends is False
    async with connect(app, era, transport, wire) as client:
        result = await client.call_tool("instant", {"n": 1})
    assert not result.is_error and result.structured_content == {"result": 2}
