"""The proxy's table of downstream task owners (mcpkit.proxy.owners), with its records in
this process and in Redis (mcpkit.redis.task_owners)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpkit.errors import McpError
from mcpkit.proxy.owners import MemoryOwnerRecords, OwnerRecords, TaskOwners
from mcpkit.redis import RedisBackend
from mcpkit.redis.task_owners import RedisOwnerRecords
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import SECRET


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    redis = Redis(tmp_path_factory.mktemp("redis"))
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


@pytest.fixture(params=["memory", "redis"])
async def records(request: pytest.FixtureRequest) -> AsyncIterator[OwnerRecords]:
    if request.param == "memory":
        yield MemoryOwnerRecords()
        return
    url = request.getfixturevalue("redis_url")
    backend = RedisBackend(url, prefix=f"owners{free_port()}", secret=SECRET)
    try:
        yield RedisOwnerRecords(backend)
    finally:
        await backend.aclose()


async def refused(owners: TaskOwners, task_id: Any, owner: str | None) -> None:
    with pytest.raises(McpError) as caught:
        await owners.check(task_id, owner)
    assert caught.value.code == -32602


async def test_owners_reach_their_own_tasks_only(records: OwnerRecords) -> None:
    owners = TaskOwners(records)
    await owners.created({"task": {"taskId": "t1", "ttl": 60_000}}, "oauth:alice")
    await owners.created({"resultType": "task", "taskId": "t2", "ttlMs": None}, "oauth:alice")
    await owners.created({"content": []}, "oauth:alice")  # not a task: nothing kept
    assert set(await records.owners(["t1", "t2", "t3"])) == {"t1", "t2"}
    await owners.check("t1", "oauth:alice")
    await owners.check("t2", "oauth:alice")
    for task_id in ("t1", "t2", "unknown", None, 7):
        await refused(owners, task_id, "oauth:mallory")
    listed = {"tasks": [{"taskId": "t1"}, {"taskId": "t2"}, {"taskId": "other"}, "junk"]}
    mine = await owners.visible(listed, "oauth:alice")
    assert mine["tasks"] == [{"taskId": "t1"}, {"taskId": "t2"}]
    assert (await owners.visible(listed, "oauth:mallory"))["tasks"] == []
    assert (await owners.visible(listed, None))["tasks"] == []  # nobody's are never listed


async def test_a_recorded_owner_is_never_replaced(records: OwnerRecords) -> None:
    owners = TaskOwners(records)
    await owners.created({"task": {"taskId": "t1", "ttl": 60_000}}, "oauth:alice")
    await owners.created({"task": {"taskId": "t1", "ttl": 60_000}}, "oauth:mallory")
    await owners.check("t1", "oauth:alice")
    await refused(owners, "t1", "oauth:mallory")


async def test_expired_tasks_are_refused_not_opened(records: OwnerRecords) -> None:
    owners = TaskOwners(records)
    await owners.created({"task": {"taskId": "gone", "ttl": 1}}, "oauth:alice")
    await asyncio.sleep(0.05)
    await refused(owners, "gone", "oauth:alice")
    await refused(owners, "gone", "oauth:mallory")


async def test_evicted_tasks_are_refused_not_opened() -> None:
    records = MemoryOwnerRecords(max_tasks=2)
    owners = TaskOwners(records)
    for i in range(3):
        await owners.created({"task": {"taskId": f"t{i}", "ttl": None}}, "oauth:alice")
    assert len(records) == 2
    await refused(owners, "t0", "oauth:alice")  # evicted: refused, never anyone's


async def test_nobody_reaches_nobodys_tasks_by_id(records: OwnerRecords) -> None:
    owners = TaskOwners(records)
    await owners.created({"task": {"taskId": "t1", "ttl": None}}, None)
    await owners.check("t1", None)
    await owners.check("made-before-a-restart", None)
    await refused(owners, "t1", "oauth:alice")


async def test_records_are_namespaced_by_the_deployment(redis_url: str) -> None:
    one = RedisBackend(redis_url, prefix=f"one{free_port()}", secret=SECRET)
    other = RedisBackend(redis_url, prefix=f"other{free_port()}", secret=SECRET)
    try:
        await TaskOwners(RedisOwnerRecords(one)).created({"task": {"taskId": "t1"}}, "oauth:a")
        assert await RedisOwnerRecords(other).owners(["t1"]) == {}
        assert await RedisOwnerRecords(one).owners(["t1"]) == {"t1": "oauth:a"}
        assert await one.client.pttl(one.keys.proxy_task_owner("t1")) > 0  # always expires
    finally:
        await one.aclose()
        await other.aclose()
