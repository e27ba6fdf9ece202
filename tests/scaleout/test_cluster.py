"""mcpkit on a real Redis Cluster: 3 masters (redis-server processes, cluster mode), 3
replicas on it (``store="redis+cluster://..."``) behind nginx, round-robin.

The tours of both eras run as on one Redis (sessions on every replica, sampling,
elicitation and roots answered on another replica, subscriptions and the GET stream,
listen, MRTR, tasks of both designs), plus resumption on another replica, cancellation
where the request runs, and broadcasts missed with no GET stream open. Every key of one
session or task is in one slot (CLUSTER KEYSLOT), and the keys the tours wrote are spread
over the masters.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
import itertools
import re
import secrets
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster

from mcpkit.redis import Keyspace, RedisBackend
from mcpkit.redis.address import StoreAddress
from mcpkit.tasks import new_task_id
from tests.scaleout import test_backend as single
from tests.scaleout import test_tour_mcpkit as tour
from tests.scaleout.broadcasts import missed_broadcasts_tour, resumption_tour
from tests.scaleout.cluster import (
    PREFIX,
    Deployment,
    RedisClusterNodes,
    start_cluster_deployment,
    stop_deployment,
)
from tests.scaleout.tours import client


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """A 3-master Redis Cluster, 3 replicas on it and nginx in front."""
    deployment = start_cluster_deployment(tmp_path_factory.mktemp("cluster"))
    try:
        yield deployment
    finally:
        stop_deployment(deployment)


def nodes_of(deployment: Deployment) -> RedisClusterNodes:
    nodes = deployment.redis
    assert isinstance(nodes, RedisClusterNodes)
    return nodes


@pytest.fixture
async def store(cluster: Deployment) -> AsyncIterator[RedisCluster]:
    """A cluster client of the test's own."""
    ports = nodes_of(cluster).ports
    client = RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", p) for p in ports])
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def pair(cluster: Deployment) -> AsyncIterator[tuple[RedisBackend, RedisBackend]]:
    """Two backends on the cluster standing for two replicas (a prefix of their own)."""
    prefix = f"c{secrets.token_hex(3)}"
    backends = tuple(
        RedisBackend(
            cluster.redis.url,
            prefix=prefix,
            replica_id=name,
            heartbeat_interval=0.1,
            heartbeat_ttl=2.0,
        )
        for name in ("a", "b")
    )
    try:
        yield backends[0], backends[1]
    finally:
        for backend in backends:
            await asyncio.wait_for(backend.aclose(), 30)


def test_cluster_urls_parse() -> None:
    address = StoreAddress.parse("redis+cluster://u:p%40ss@127.0.0.1:7000,[::1]:7001,h/")
    assert address.cluster and address.nodes == (("127.0.0.1", 7000), ("::1", 7001), ("h", 6379))
    assert (address.username, address.password, address.tls) == ("u", "p@ss", False)
    assert StoreAddress.parse("redis://h:7000", cluster=True).nodes == (("h", 7000),)
    assert not StoreAddress.parse("redis://h:6379/2").cluster
    for bad in ("redis+cluster://h:1/3", "redis+cluster:///", "redis+cluster://h:x/", "http://h"):
        with pytest.raises(ValueError):
            StoreAddress.parse(bad)


def _layout_keys(
    keys: Keyspace, sid: str, tid: str, owner: str
) -> tuple[list[str], list[str], list[str]]:
    """Every key and channel the layout names for one session, one task and the state of one
    owner (found by the parameter names of Keyspace's methods, so a key added later is
    checked too)."""
    session: list[str] = []
    task: list[str] = []
    state: list[str] = []
    for name, method in inspect.getmembers(Keyspace, inspect.isfunction):
        params = list(inspect.signature(method).parameters)[1:]
        if params == ["sid"]:
            session.append(method(keys, sid))
        elif params == ["sid", "stream"]:
            session += [method(keys, sid, "a1b2"), method(keys, sid, "_GET_stream")]
        elif params == ["tid"]:
            task.append(method(keys, tid))
        elif params == ["owner_digest", "key"]:
            state += [method(keys, owner, "cart"), method(keys, owner, "visibility")]
        else:
            assert name.startswith("_") or params in ([], ["replica"], ["owner"]), name
    return session, task, state


async def test_every_key_of_a_session_or_task_is_in_one_slot(store: RedisCluster) -> None:
    keys = Keyspace("mcpkit")
    owners: set[str] = set()
    for _ in range(12):
        session, task, state = _layout_keys(
            keys, secrets.token_hex(16), new_task_id(), secrets.token_hex(16)
        )
        assert len(session) >= 4 and len(task) >= 3 and len(state) == 2
        for group in (session, task, state):
            slots = {await store.cluster_keyslot(k) for k in group}  # asked of the cluster
            assert len(slots) == 1, group
            owners.add(store.get_node_from_key(group[0]).name)
    assert len(owners) == 3  # sessions and tasks spread over every master


# The backend's pieces on the cluster: the same checks as on one Redis.


async def test_bus_reaches_every_replica_once_on_a_cluster(
    pair: tuple[RedisBackend, RedisBackend],
) -> None:
    await single.test_bus_reaches_every_replica_once(pair)


async def test_tasks_and_leases_on_a_cluster(pair: tuple[RedisBackend, RedisBackend]) -> None:
    await single.test_task_store_is_shared_and_owner_listed(pair)
    await single.test_cancel_elsewhere_stops_the_run(pair)
    await single.test_task_of_dead_replica_fails_with_clear_error(pair)


def test_key_ring_is_shared_on_a_cluster(cluster: Deployment) -> None:
    single.test_key_ring_is_shared(cluster)


async def test_bus_log_on_a_cluster(cluster: Deployment) -> None:
    await single.test_bus_log_says_what_was_missed_and_when_it_overflowed(cluster)


# Three replicas on the cluster behind nginx.


async def test_handshake_era_tour_on_a_cluster(cluster: Deployment) -> None:
    await tour.test_handshake_era_tour(cluster)


async def test_modern_era_tour_on_a_cluster(cluster: Deployment) -> None:
    await tour.test_modern_era_tour(cluster)


async def test_tasks_of_both_designs_on_a_cluster(cluster: Deployment) -> None:
    await tour.test_tasks_in_both_eras(cluster)


async def test_any_replica_serves_a_session_and_delete_ends_it_on_a_cluster(
    cluster: Deployment,
) -> None:
    await tour.test_any_replica_serves_a_session_and_delete_ends_it_everywhere(cluster)


async def test_missed_broadcasts_on_a_cluster(cluster: Deployment) -> None:
    await missed_broadcasts_tour(cluster)


async def test_resumption_on_another_replica_of_a_cluster(cluster: Deployment) -> None:
    await resumption_tour(cluster)


async def test_cancellation_reaches_the_replica_running_it_on_a_cluster(
    cluster: Deployment, store: RedisCluster
) -> None:
    async with client(cluster.url, "legacy") as c:
        for i in range(3):
            key = f"cluster-{i}-{secrets.token_hex(4)}"
            call = asyncio.get_running_loop().create_task(c.call_tool("hold", {"key": key}))
            ran = await _wait_for(store, f"test:started:{key}")
            call.cancel()  # notifications/cancelled: POSTed to the next replica
            with contextlib.suppress(asyncio.CancelledError):
                await call
            assert await _wait_for(store, f"test:cancelled:{key}") == ran


async def _wait_for(store: RedisCluster, key: str) -> bytes:
    async with asyncio.timeout(20):
        for _ in itertools.count():  # polled: the replica writes it in Redis
            value = await store.get(key)
            if value is not None:
                return bytes(value)
            await asyncio.sleep(0.025)
    raise AssertionError(key)


async def test_the_keys_written_share_a_slot_per_session_and_task(cluster: Deployment) -> None:
    """After the tours: on every master, each session's and task's keys (found here by a
    test-only SCAN) sit in one slot, and sessions landed on every master."""
    tag = re.compile(re.escape(PREFIX).encode() + rb":(s|t):\{([^}]+)\}")
    groups: dict[bytes, set[int]] = collections.defaultdict(set)
    holders: dict[bytes, set[int]] = collections.defaultdict(set)
    for port in nodes_of(cluster).ports:
        node = aioredis.Redis(port=port)
        try:
            async for key in node.scan_iter(match=f"{PREFIX}:*", count=1000):
                found = tag.match(key)
                if found is None:
                    continue
                groups[found.group(2)].add(
                    int(await node.execute_command("CLUSTER", "KEYSLOT", key))
                )
                holders[found.group(2)].add(port)
        finally:
            await node.aclose()
    assert len(groups) >= 3, groups
    assert all(len(slots) == 1 for slots in groups.values()), groups
    assert all(len(ports) == 1 for ports in holders.values())
    assert len({p for ports in holders.values() for p in ports}) >= 2
