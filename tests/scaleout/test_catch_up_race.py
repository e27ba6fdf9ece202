"""Broadcasts a 2025 session missed while no GET stream was open arrive coalesced, once per
kind and URI, however late their pub/sub messages reach the replica that opens the stream.

Every broadcast is logged on the bus stream and then published; the GET stream's holder
hears it on its pub/sub connection, which may lag (a loaded machine, or another node of a
Redis Cluster relaying it). Here the holder's bus-channel messages are held back and let
through at chosen moments: while the stream's catch-up reads the log, and after the
catch-up once a newer broadcast was heard. Two replicas in this process on a
redis-server of their own."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest

from mcpkit.bus import BusEvent
from mcpkit.redis import RedisBackend
from tests.scaleout.broadcasts import RawSession, follow_get
from tests.scaleout.cluster import Redis, free_port
from tests.scaleout.inprocess import Gate, announcing_server, replicas_in_process, settle, until


@pytest.fixture
async def pair(server: Redis) -> AsyncIterator[tuple[list[str], list[RedisBackend]]]:
    async with replicas_in_process(server.url, f"cu{free_port()}", announcing_server) as both:
        yield both


async def session_on(urls: list[str], http: httpx.AsyncClient, uris: list[str]) -> RawSession:
    """A session made on replica a, subscribed to ``uris`` on replica b (whose view then
    exists and whose relay runs)."""
    a, b = urls
    session = RawSession(http, a)
    await session.open()
    for uri in uris:
        await session.request("resources/subscribe", {"uri": uri}, b)
    return session


async def missed(session: RawSession, gate: Gate, count: int) -> None:
    """Broadcast ``count`` rounds of an update of note://p and a tools list change (from
    replica a): logged, and held back on their way to replica b."""
    for _ in range(count):
        await session.call("touch", uri="note://p")
        await session.call("changed")
    await until(lambda: len(gate.held) == 2 * count, "replica b's pub/sub has them")


async def test_broadcasts_heard_while_the_catch_up_reads_are_coalesced_into_it(
    pair: tuple[list[str], list[RedisBackend]],
) -> None:
    """The missed broadcasts reach the holder while its catch-up reads the log (after the
    read, before it is sent), and so does one published after the read: each missed kind
    and URI once, and the newer update too."""
    urls, (_, holder) = pair
    async with httpx.AsyncClient(timeout=20) as http:
        session = await session_on(urls, http, ["note://p", "note://q", "note://marker"])
        await holder.router.ready()
        gate = Gate(holder)
        await missed(session, gate, 2)
        bus = gate.bus
        since = bus.since
        read, proceed = asyncio.Event(), asyncio.Event()

        async def slow_since(after: str) -> tuple[list[tuple[str, BusEvent]], bool]:
            result = await since(after)
            read.set()
            await proceed.wait()
            return result

        bus.since = slow_since  # type: ignore[method-assign]
        follow = asyncio.get_running_loop().create_task(
            follow_get(session, urls[1], ["tools", "note://p", "note://q"])
        )
        try:
            await until(read.is_set, "the catch-up read the log")
            heard = bus.received
            gate.release()  # the missed broadcasts arrive now, late
            await session.call("touch", uri="note://q")  # published after the read
            await until(lambda: bus.received >= heard + 5, "replica b heard them")
            await settle()
            proceed.set()
            seen, _ = await follow
        finally:
            proceed.set()
            if not follow.done():
                follow.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follow
    assert len(seen) == 4 and seen[-1] == "note://marker", seen
    assert sorted(seen[:-1]) == ["note://p", "note://q", "tools"], seen


async def test_broadcasts_heard_after_the_catch_up_and_a_newer_one_are_not_sent_again(
    pair: tuple[list[str], list[RedisBackend]],
) -> None:
    """The missed broadcasts reach the holder only after its catch-up sent them, in the
    same turn as a newer broadcast: only the newer one is sent."""
    urls, (_, holder) = pair
    async with httpx.AsyncClient(timeout=20) as http:
        session = await session_on(urls, http, ["note://p", "note://marker"])
        await holder.router.ready()
        gate = Gate(holder)
        await missed(session, gate, 3)

        async def release_with_the_marker() -> None:
            # follow_get touches the marker once the catch-up's notifications came.
            await until(lambda: len(gate.held) == 7, "replica b's pub/sub has the marker")
            gate.release()

        releasing = asyncio.get_running_loop().create_task(release_with_the_marker())
        try:
            seen, _ = await follow_get(session, urls[1], ["tools", "note://p"])
            await releasing
        finally:
            releasing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await releasing
    assert seen in (
        ["note://p", "tools", "note://marker"],
        ["tools", "note://p", "note://marker"],
    ), seen
