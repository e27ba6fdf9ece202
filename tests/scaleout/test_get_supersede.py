"""A second GET stream of a 2025 session opened on the same replica while the first one's
catch-up is still reading the bus log takes over cleanly: the broadcasts the session
missed reach the newest stream once each.

Each GET stream reads the bus log after the session's position (the broadcasts missed
while no stream was open) and sends them; a stream opened meanwhile ends the older one,
whose catch-up must then leave the sending to the newer one's (which reads the log after
it). Here the holder's log reads wait until both catch-ups are reading. Two replicas in
this process on a redis-server of their own; the session is made on replica a, its GET
streams opened on replica b."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from mcpkit.bus import BusEvent
from mcpkit.redis import RedisBackend
from tests.scaleout.broadcasts import GetStream, RawSession
from tests.scaleout.cluster import Redis, free_port
from tests.scaleout.inprocess import announcing_server, replicas_in_process, settle, until


@pytest.fixture
async def pair(server: Redis) -> AsyncIterator[tuple[list[str], list[RedisBackend]]]:
    async with replicas_in_process(server.url, f"gs{free_port()}", announcing_server) as both:
        yield both


async def test_a_get_stream_opened_during_the_last_ones_catch_up_gets_each_missed_once(
    pair: tuple[list[str], list[RedisBackend]],
) -> None:
    """Broadcasts missed, a first GET stream opens and its catch-up reads the log; a
    second opens (ending the first) and its catch-up reads too; a broadcast is heard
    meanwhile. The second stream gets each once (the first, nothing)."""
    (a, b), (_, holder) = pair
    async with httpx.AsyncClient(timeout=20) as http:
        session = RawSession(http, a)
        await session.open()
        for uri in ("note://p", "note://q", "note://marker"):
            await session.request("resources/subscribe", {"uri": uri})
        bus = holder.shared_bus
        assert bus is not None
        heard = bus.received
        for _ in range(2):  # missed: no GET stream is open
            await session.call("touch", uri="note://p")
            await session.call("changed")
        await until(lambda: bus.received >= heard + 4, "b heard them")
        since = bus.since
        reading: list[str] = []
        proceed = asyncio.Event()

        async def together(after: str) -> tuple[list[tuple[str, BusEvent]], bool]:
            reading.append(after)
            await proceed.wait()
            return await since(after)

        bus.since = together  # type: ignore[method-assign]
        first = GetStream(session, b)
        second: GetStream | None = None
        try:
            await until(lambda: len(reading) == 1, "the first stream's catch-up reads")
            second = GetStream(session, b)
            await until(lambda: len(reading) == 2, "the second stream's catch-up reads")
            heard = bus.received
            await session.call("touch", uri="note://q")  # heard while both read
            await until(lambda: bus.received > heard, "b heard it")
            await settle()
            proceed.set()
            await until(lambda: len(second.seen) >= 3, "the missed broadcasts came")
            await second.until_marked(session)
            await until(first.task.done, "the first stream ended")
        finally:
            proceed.set()
            await first.close()
            if second is not None:
                await second.close()
    assert first.seen == [], first.seen
    assert second.seen[-1] == "note://marker", second.seen
    assert sorted(second.seen[:-1]) == ["note://p", "note://q", "tools"], second.seen
