"""A ``def`` tool that blocks runs in a worker thread: calls of other sessions (async and
sync tools alike) are answered while it blocks."""

from __future__ import annotations

import asyncio
import threading
import time

from mcpkit import Client, Server
from mcpkit.transports.http import running


def make() -> tuple[Server, threading.Event, threading.Event]:
    app = Server("blocking", "1.0")
    entered = threading.Event()
    gate = threading.Event()

    @app.tool()
    def slow() -> str:
        """Blocks its thread until released (time.sleep would do the same to the loop)."""
        entered.set()
        gate.wait(60)
        time.sleep(0.01)
        return "slow done"

    @app.tool()
    def quick(n: int) -> str:
        """A sync tool that returns at once."""
        return f"quick {n}"

    @app.tool()
    async def async_quick(n: int) -> str:
        """An async tool."""
        return f"async {n}"

    return app, entered, gate


async def test_a_blocking_def_tool_stalls_no_other_session() -> None:
    app, entered, gate = make()
    async with running(app.http_app("/mcp")) as base:
        async with Client(f"{base}/mcp") as one, Client(f"{base}/mcp") as two:
            blocked = asyncio.create_task(one.call_tool("slow", {}))
            try:
                await asyncio.to_thread(entered.wait, 60)
                # the slow tool is inside its thread, holding it: everything else goes on
                for n in range(20):
                    assert (await two.call_tool("quick", {"n": n})).content[0].text == f"quick {n}"
                    got = await two.call_tool("async_quick", {"n": n})
                    assert got.content[0].text == f"async {n}"
                # the same session's other calls too (requests run concurrently)
                assert (await one.call_tool("quick", {"n": 99})).content[0].text == "quick 99"
                assert not blocked.done()
            finally:
                gate.set()
            assert (await blocked).content[0].text == "slow done"


async def test_as_many_blocking_calls_as_workers_leave_async_tools_served() -> None:
    app, entered, gate = make()
    async with running(app.http_app("/mcp")) as base:
        async with Client(f"{base}/mcp") as one, Client(f"{base}/mcp") as two:
            blocked = [asyncio.create_task(one.call_tool("slow", {})) for _ in range(4)]
            try:
                await asyncio.to_thread(entered.wait, 60)
                for n in range(10):
                    got = await two.call_tool("async_quick", {"n": n})
                    assert got.content[0].text == f"async {n}"
                assert not any(t.done() for t in blocked)
            finally:
                gate.set()
            for task in blocked:
                assert (await task).content[0].text == "slow done"
