"""The Redis pieces on their own (one redis-server, two backends standing for two replicas)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from mcpkit.bus import BusEvent
from mcpkit.redis import RedisBackend, StoreUnavailable
from mcpkit.redis.tasks import LEASE_EXPIRED_MESSAGE
from tests.scaleout.conftest import Deployment, free_port


@pytest.fixture
async def pair(live: Deployment) -> AsyncIterator[tuple[RedisBackend, RedisBackend]]:
    prefix = f"t{free_port()}"
    a = RedisBackend(
        live.redis.url, prefix=prefix, replica_id="a", heartbeat_interval=0.1, heartbeat_ttl=0.4
    )
    b = RedisBackend(
        live.redis.url, prefix=prefix, replica_id="b", heartbeat_interval=0.1, heartbeat_ttl=0.4
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
    one = RedisBackend(live.redis.url, prefix=prefix).key_ring()
    two = RedisBackend(live.redis.url, prefix=prefix).key_ring()
    assert one._raw == two._raw and not one.ephemeral


def test_key_ring_unreachable_is_a_clear_error() -> None:
    backend = RedisBackend(f"redis://127.0.0.1:{free_port()}/0", connect_timeout=0.5)
    with pytest.raises(StoreUnavailable, match="Shared store unavailable: Redis at"):
        backend.key_ring()


async def test_unreachable_redis_fails_fast() -> None:
    backend = RedisBackend(f"redis://127.0.0.1:{free_port()}/0", connect_timeout=0.5)
    with pytest.raises(StoreUnavailable):
        await backend.task_store().create(ttl=None, poll_interval=None, owner=None)
    with pytest.raises(StoreUnavailable):
        await backend.bus().publish(BusEvent.list_changed("tools"))
    await backend.aclose()
