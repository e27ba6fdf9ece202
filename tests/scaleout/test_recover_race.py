"""The update of a resource a 2025 session subscribed to on another replica reaches its GET
stream once, however the subscription, the update's pub/sub message and the stream's
catch-up interleave on the stream's holder.

The holder hears a new subscription on the session's channel and updates on the bus
channel, from different nodes of a Redis Cluster (unordered), and its GET stream's
catch-up reads the bus log, which may be ahead of both. When the subscription arrives,
the updates of that URI logged since the subscribing replica's position and already
accounted for here (heard, or read by a catch-up) are re-read from the log and sent;
those heard later are sent as they come. Here the holder's bus-channel and
session-state messages are held back and let through at chosen moments. Two replicas in
this process on a redis-server of their own; the session is made on replica a, its GET
stream held on replica b."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from mcpkit.bus import BusEvent
from mcpkit.redis import RedisBackend
from tests.scaleout.broadcasts import GetStream, RawSession
from tests.scaleout.cluster import Redis, free_port
from tests.scaleout.inprocess import (
    Gate,
    LateListening,
    StateGate,
    announcing_server,
    replicas_in_process,
    settle,
    until,
)


@pytest.fixture
async def pair(server: Redis) -> AsyncIterator[tuple[list[str], list[RedisBackend]]]:
    async with replicas_in_process(server.url, f"rr{free_port()}", announcing_server) as both:
        yield both


async def newest_entry(backend: RedisBackend) -> str:
    """The id of the bus log's newest entry."""
    newest = await backend.client.xrevrange(backend.keys.bus_log, "+", "-", count=1)
    return str(newest[0][0].decode())


async def bus_position(backend: RedisBackend, sid: str) -> str:
    """How far session ``sid`` has accounted for the bus log (``bp``)."""
    position = await backend.client.hget(backend.keys.session(sid), "bp")
    return position.decode() if position else ""


async def test_an_update_the_catch_up_read_before_the_subscription_came_is_sent(
    pair: tuple[list[str], list[RedisBackend]],
) -> None:
    """A GET stream opens on b; while its catch-up is about to read the bus log, the
    session subscribes on a and the resource is updated: the catch-up reads the update
    before b hears either (the subscription's and the update's messages are late), so it
    does not send it. The subscription arrives, then the update's pub/sub message: the
    update is sent, once."""
    (a, b), (first, holder) = pair
    async with httpx.AsyncClient(timeout=20) as http:
        session = RawSession(http, a)
        await session.open()
        await session.request("resources/subscribe", {"uri": "note://marker"})
        await session.call("touch", uri="note://x")  # both replicas have heard the bus
        for backend in (first, holder):
            heard = backend.shared_bus
            assert heard is not None
            await until(lambda bus=heard: bus.last_id is not None, "the replica heard it")
        bus = holder.shared_bus
        assert bus is not None
        since = bus.since
        reading, proceed = asyncio.Event(), asyncio.Event()

        async def late_since(after: str) -> tuple[list[tuple[str, BusEvent]], bool]:
            reading.set()
            await proceed.wait()
            return await since(after)

        bus.since = late_since  # type: ignore[method-assign]
        stream = GetStream(session, b)
        try:
            await until(reading.is_set, "the catch-up is about to read the log")
            state, gate = StateGate(holder, session.sid), Gate(holder)
            await session.request("resources/subscribe", {"uri": "note://p"})
            await until(lambda: bool(state.held), "b has the subscription, held")
            await session.call("touch", uri="note://p")
            update = await newest_entry(first)
            await until(lambda: len(gate.held) == 1, "b's pub/sub has the update, held")
            proceed.set()
            position = ""
            while position != update:  # the catch-up read the update (and skipped it)
                position = await bus_position(first, session.sid)
                await asyncio.sleep(0.01)
            state.release()
            await settle()
            gate.release()
            await settle()
            await stream.until_marked(session)
        finally:
            proceed.set()
            await stream.close()
    assert stream.seen == ["note://p", "note://marker"], stream.seen


async def test_an_update_heard_while_a_get_stream_opens_is_sent_once(
    pair: tuple[list[str], list[RedisBackend]],
) -> None:
    """b's view is loaded for a GET stream and listens on the session's channel only
    after the session subscribed on a and b heard the update: the view reads the new
    subscription once it listens, before its catch-up reads the log; the update is sent
    once (by the catch-up, not also by a re-read of the new subscription)."""
    (a, b), (_, holder) = pair
    late = LateListening(holder)
    async with httpx.AsyncClient(timeout=20) as http:
        session = RawSession(http, a)
        await session.open()
        await session.request("resources/subscribe", {"uri": "note://marker"})
        await session.call("touch", uri="note://x")  # both replicas have heard the bus
        bus = holder.shared_bus
        assert bus is not None
        await until(lambda: bus.last_id is not None, "b heard it")
        stream = GetStream(session, b)
        try:
            await until(late.waiting.is_set, "the GET stream's view is loaded")
            await session.request("resources/subscribe", {"uri": "note://p"})
            heard = bus.received
            await session.call("touch", uri="note://p")
            await until(lambda: bus.received > heard, "b heard the update")
            await settle()
            late.release()
            await until(lambda: bool(stream.seen), "the catch-up's notifications came")
            await stream.until_marked(session)
        finally:
            late.release()
            await stream.close()
    assert stream.seen == ["note://p", "note://marker"], stream.seen
