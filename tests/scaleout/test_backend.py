"""The Redis pieces on their own (one redis-server, two backends standing for two replicas)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from mcpkit.bus import BusEvent
from mcpkit.redis import RedisBackend, StoreUnavailable
from mcpkit.redis.tasks import LEASE_EXPIRED_MESSAGE
from tests.scaleout.broadcasts import RawSession, follow_get, missed_broadcasts_tour
from tests.scaleout.cluster import PREFIX, STORE_SECRET, direct_url
from tests.scaleout.conftest import Deployment, free_port
from tests.scaleout.tours import until


@pytest.fixture
async def pair(live: Deployment) -> AsyncIterator[tuple[RedisBackend, RedisBackend]]:
    prefix = f"t{free_port()}"
    a = RedisBackend(
        live.redis.url, prefix=prefix, replica_id="a", heartbeat_interval=0.1, heartbeat_ttl=2.0
    )
    b = RedisBackend(
        live.redis.url, prefix=prefix, replica_id="b", heartbeat_interval=0.1, heartbeat_ttl=2.0
    )
    try:
        yield a, b
    finally:
        for backend in (a, b):
            await asyncio.wait_for(backend.aclose(), 30)


async def test_bus_reaches_every_replica_once(pair: tuple[RedisBackend, RedisBackend]) -> None:
    a, b = pair
    sub_a = a.bus().subscribe()
    sub_b = b.bus().subscribe(lambda e: e.uri is not None)
    await a.ready()
    await b.ready()
    await a.bus().publish(BusEvent.list_changed("tools"))
    await b.bus().publish(BusEvent.resource_updated("note://x"))
    got_a = [await asyncio.wait_for(sub_a.__anext__(), 5) for _ in range(2)]
    got_b = await asyncio.wait_for(sub_b.__anext__(), 5)
    assert [e.method for e in got_a] == [
        "notifications/tools/list_changed",
        "notifications/resources/updated",
    ]
    assert got_b.uri == "note://x"
    await asyncio.sleep(0.2)
    assert a.bus().received == 2 and b.bus().received == 2  # each event once per replica


async def test_task_store_is_shared_and_owner_listed(
    pair: tuple[RedisBackend, RedisBackend],
) -> None:
    a, b = pair
    sa, sb = a.task_store(), b.task_store()
    info = await sa.create(ttl=60_000, poll_interval=100, owner="alice")
    other = await sa.create(ttl=60_000, poll_interval=100, owner="bob")
    seen = await sb.get(info.task_id)
    assert seen is not None and seen.status == "working" and seen.owner == "alice"
    assert await sb.update(
        info.task_id, "input_required", "need input", input_requests={"k": {"x": 1}}
    )
    again = await sa.get(info.task_id)
    assert again is not None and again.input_requests == {"k": {"x": 1}}
    done = await sb.finish(info.task_id, "completed", {"result": {"content": []}})
    assert done is not None and done.status == "completed"
    assert await sa.finish(info.task_id, "failed", None) is None  # terminal stays terminal
    assert await sa.outcome(info.task_id) == {"result": {"content": []}}
    page, more = await sb.list("alice", 0, 10)
    assert [t.task_id for t in page] == [info.task_id] and more is None
    page, _ = await sb.list("bob", 0, 10)
    assert [t.task_id for t in page] == [other.task_id]
    with pytest.raises(ValueError):
        await sb.list("alice", 10**12, 10)


async def test_task_of_dead_replica_fails_with_clear_error(
    pair: tuple[RedisBackend, RedisBackend],
) -> None:
    a, b = pair
    sa, sb = a.task_store(), b.task_store()
    info = await sa.create(ttl=60_000, poll_interval=50, owner=None)
    settled: list[str] = []
    sa.claim(info.task_id, settled.append)
    await asyncio.sleep(0.6)  # a's heartbeat renews the lease
    alive = await sb.get(info.task_id)
    assert alive is not None and alive.status == "working"
    await a.aclose()  # a "dies": no more heartbeats
    await asyncio.wait_for(sb.wait(info.task_id, 0.05), 5)
    dead = await sb.get(info.task_id)
    assert dead is not None and dead.status == "failed"
    assert dead.status_message == LEASE_EXPIRED_MESSAGE
    outcome = await sb.outcome(info.task_id)
    assert outcome is not None and outcome["error"]["message"] == LEASE_EXPIRED_MESSAGE


async def test_cancel_elsewhere_stops_the_run(pair: tuple[RedisBackend, RedisBackend]) -> None:
    a, b = pair
    sa, sb = a.task_store(), b.task_store()
    info = await sa.create(ttl=60_000, poll_interval=50, owner=None)
    stopped = asyncio.Event()
    sa.claim(info.task_id, lambda _tid: stopped.set())
    await sb.finish(info.task_id, "cancelled", None, "cancelled by request")
    await asyncio.wait_for(stopped.wait(), 5)


def test_key_ring_is_shared(live: Deployment) -> None:
    prefix = f"k{free_port()}"
    one = RedisBackend(live.redis.url, prefix=prefix, secret=STORE_SECRET).key_ring()
    two = RedisBackend(live.redis.url, prefix=prefix, secret=STORE_SECRET).key_ring()
    assert one._raw == two._raw and not one.ephemeral


def test_key_ring_unreachable_is_a_clear_error() -> None:
    backend = RedisBackend(
        f"redis://127.0.0.1:{free_port()}/0", secret=STORE_SECRET, connect_timeout=0.5
    )
    with pytest.raises(StoreUnavailable, match="Shared store unavailable: Redis at"):
        backend.key_ring()


async def test_unreachable_redis_fails_fast() -> None:
    backend = RedisBackend(
        f"redis://127.0.0.1:{free_port()}/0", secret=STORE_SECRET, connect_timeout=0.5
    )
    with pytest.raises(StoreUnavailable):
        await backend.task_store().create(ttl=None, poll_interval=None, owner=None)
    with pytest.raises(StoreUnavailable):
        await backend.bus().publish(BusEvent.list_changed("tools"))
    await backend.aclose()


async def test_bus_log_says_what_was_missed_and_when_it_overflowed(live: Deployment) -> None:
    backend = RedisBackend(live.redis.url, prefix=f"l{free_port()}", bus_log_maxlen=10)
    try:
        bus = backend.bus()
        await backend.ready()
        start = await bus.position()
        assert start == "0-0", start  # an empty log
        await bus.publish(BusEvent.list_changed("tools"))
        await bus.publish(BusEvent.resource_updated("note://x"))
        events, trimmed = await bus.since(start)
        assert [(e.kind, e.uri) for _, e in events] == [
            ("tools", None),
            ("resource_updated", "note://x"),
        ]
        assert not trimmed, events
        assert await bus.since(events[-1][0]) == ([], False)
        await until(lambda: bus.last_id == events[-1][0])  # heard back on the channel
        for chunk in range(12):
            await asyncio.gather(
                *(bus.publish(BusEvent.resource_updated(f"note://{chunk}/{i}")) for i in range(25))
            )
        events, trimmed = await bus.since(start)
        assert trimmed and 10 <= len(events) < 302, (trimmed, len(events))  # about maxlen
        assert await backend.client.pttl(backend.keys.bus_log) > 0  # the log expires too
    finally:
        await asyncio.wait_for(backend.aclose(), 30)


async def test_missed_broadcasts_reach_the_next_get_stream(live: Deployment) -> None:
    await missed_broadcasts_tour(live)


async def test_a_session_that_missed_more_than_the_log_holds_hears_everything_changed(
    live: Deployment,
) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        session = RawSession(http, live.url)
        await session.open()
        for uri in ("note://m1", "note://marker"):
            await session.request("resources/subscribe", {"uri": uri})
        await session.call("touch", uri="note://m1")
        noise = RedisBackend(live.redis.url, prefix=PREFIX, replica_id="noise")
        try:
            for chunk in range(60):  # more than the replicas' bus_log_maxlen (1024)
                await asyncio.gather(
                    *(
                        noise.bus().publish(BusEvent.resource_updated(f"note://n/{chunk}/{i}"))
                        for i in range(25)
                    )
                )
        finally:
            await asyncio.wait_for(noise.aclose(), 30)
        seen, _ = await follow_get(
            session, direct_url(live.replicas[0]), ["tools", "note://m1", "note://marker"]
        )
        told = seen[:-1]
        assert seen[-1] == "note://marker" and len(told) == len(set(told)), seen
        # Every list the replicas announce changes of, and every subscribed resource.
        assert set(told) >= {"tools", "note://m1", "note://marker"}, seen
        assert "prompts" not in told and not any(t.startswith("note://n/") for t in told)
