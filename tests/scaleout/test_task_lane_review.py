"""The Redis task store on the lane (one multiplexed connection per replica): hundreds of
tasks of different owners created, moved, finished and read concurrently from two
replicas, with callers cancelled mid-flight among them: every caller gets its own task,
owner and outcome, never another's. A redis-server of its own."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator

import pytest

from mcpkit.redis import RedisBackend
from tests.scaleout.cluster import Redis, free_port

GUARD = 60.0


@pytest.fixture
async def pair(server: Redis) -> AsyncIterator[tuple[RedisBackend, RedisBackend]]:
    prefix = f"tasks{free_port()}"
    a = RedisBackend(server.url, prefix=prefix, replica_id="a")
    b = RedisBackend(server.url, prefix=prefix, replica_id="b")
    try:
        yield a, b
    finally:
        for backend in (a, b):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(backend.aclose(), 10)


async def test_concurrent_task_traffic_never_crosses_callers(
    pair: tuple[RedisBackend, RedisBackend],
) -> None:
    a, b = pair
    sa, sb = a.task_store(), b.task_store()
    rng = random.Random(7)

    async def life(n: int) -> str:
        owner = f"owner-{n % 13}"
        store, other = (sa, sb) if n % 2 else (sb, sa)
        info = await store.create(ttl=60_000, poll_interval=100, owner=owner)
        assert info.owner == owner
        seen = await other.get(info.task_id)
        assert seen is not None and seen.task_id == info.task_id and seen.owner == owner
        outcome = {"result": {"content": [{"type": "text", "text": f"task {n}"}]}}
        done = await other.finish(info.task_id, "completed", outcome)
        assert done is not None and done.status == "completed"
        assert await store.outcome(info.task_id) == outcome
        return info.task_id

    async def cancelled_reader(n: int) -> None:
        info = await sa.create(ttl=60_000, poll_interval=100, owner=f"victim-{n}")
        reader = asyncio.ensure_future(sb.get(info.task_id))
        await asyncio.sleep(0)  # its EVAL is on the wire
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader

    jobs = [life(n) for n in range(300)] + [cancelled_reader(n) for n in range(60)]
    rng.shuffle(jobs)
    results = await asyncio.wait_for(asyncio.gather(*jobs), GUARD)
    ids = [r for r in results if r is not None]
    assert len(ids) == 300 and len(set(ids)) == 300
    for k in range(13):  # each owner lists exactly its own tasks
        page, _ = await sa.list(f"owner-{k}", 0, 100)
        assert {t.owner for t in page} == {f"owner-{k}"}
        assert len(page) == len(range(k, 300, 13))
