"""Redis stopped and restarted under load: clear errors, no hang, service comes back."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from mcpkit import McpError
from tests.scaleout.conftest import Deployment
from tests.scaleout.tours import client, text, until

#: What a request may fail with while Redis is down (never anything else, never a hang).
CLEAR = ("Shared store unavailable", "503")


async def load(c: Any, outcomes: list[str], stop: asyncio.Event, limit: int) -> None:
    for i in range(limit):
        if stop.is_set():
            return
        try:
            result = await asyncio.wait_for(c.call_tool("echo", {"text": f"m{i}"}), 15)
            assert text(result) == f"m{i}"
            outcomes.append("ok")
        except McpError as exc:
            assert any(mark in exc.message for mark in CLEAR), exc.message
            outcomes.append("unavailable")
        await asyncio.sleep(0.01)


@pytest.mark.timeout(120)
async def test_redis_stopped_and_restarted_during_load(isolated: Deployment) -> None:
    live = isolated
    legacy_outcomes: list[str] = []
    modern_outcomes: list[str] = []
    stop = asyncio.Event()
    async with client(live.url, "legacy") as legacy, client(live.url, "2026-07-28") as modern:
        workers = [
            asyncio.get_running_loop().create_task(load(legacy, legacy_outcomes, stop, 2000)),
            asyncio.get_running_loop().create_task(load(modern, modern_outcomes, stop, 2000)),
        ]
        await until(lambda: len(legacy_outcomes) >= 10 and len(modern_outcomes) >= 10)
        live.redis.stop()
        before = len(legacy_outcomes)
        await until(lambda: "unavailable" in legacy_outcomes[before:])
        # Without Redis a 2025 session cannot be served; stateless 2026 calls that need
        # nothing shared go on.
        mark = len(modern_outcomes)
        await until(lambda: modern_outcomes[mark:].count("ok") >= 5)
        with pytest.raises(McpError, match="Shared store unavailable"):
            await modern.start_tool_task("slow", {"seconds": 0.1})
        live.redis.start()
        after = len(legacy_outcomes)
        # The sessions were in the restarted (empty) Redis: the client starts a new one
        # transparently and carries on.
        await until(lambda: legacy_outcomes[after:].count("ok") >= 10, timeout=30)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*workers), 30)
        # Everything shared works again, on every replica: the bus, tasks, MRTR.
        async with modern.listen(resources=["note://back"]) as events:
            got: list[str] = []

            async def read() -> None:
                async for event in events:
                    got.append(event.uri or "")

            reader = asyncio.get_running_loop().create_task(read())
            for _ in range(3):
                await modern.call_tool("touch", {"uri": "note://back"})
            await until(lambda: len(got) >= 1)
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        handle = await modern.start_tool_task("slow", {"seconds": 0.1})
        await handle.result(timeout=20)
        assert handle.status == "completed"
    assert "unavailable" in legacy_outcomes and legacy_outcomes[-1] == "ok"
