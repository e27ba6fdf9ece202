"""Proxy replicas behind a load balancer, sharing one Redis: the owner of a task made
through one replica is known to every other, so its owner reaches it anywhere and another
principal nowhere (the upstream sees one caller, the proxy, for all of them)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpkit import Server
from mcpkit.redis import RedisBackend
from mcpkit.server.tasks import TaskManager
from mcpkit.transports.http import running
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import (
    SECRET,
    TASKS_EXTENSION,
    Caller,
    resource_server,
    tenant_server,
)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    redis = Redis(tmp_path_factory.mktemp("redis"))
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


@contextlib.asynccontextmanager
async def proxy_replicas(
    redis_url: str, count: int = 2
) -> AsyncIterator[tuple[list[str], Caller, Caller, Caller]]:
    """``count`` proxy replicas of one upstream over one Redis (urls), then alice, mallory
    and an anonymous caller."""
    prefix = f"proxies{free_port()}"
    upstream = tenant_server(tasks=TaskManager(poll_interval=50))
    async with contextlib.AsyncExitStack() as stack:
        upstream_url = await stack.enter_async_context(running(upstream.http_app())) + "/mcp"
        urls = []
        for i in range(count):
            store = RedisBackend(redis_url, prefix=prefix, replica_id=f"p{i}", secret=SECRET)
            stack.push_async_callback(store.aclose)
            proxy = Server.proxy(upstream_url, store=store)
            app = proxy.http_app(auth=resource_server(), stateless=True)
            urls.append(await stack.enter_async_context(running(app)) + "/mcp")
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        yield urls, Caller(http, "alice-token"), Caller(http, "mallory-token"), Caller(http, None)


async def test_a_task_made_on_one_replica_is_its_owners_on_every_replica(redis_url: str) -> None:
    async with proxy_replicas(redis_url) as ([one, two], alice, mallory, _):
        # 2026-07-28: the tasks extension
        created = await alice.modern(
            one, "tools/call", {"name": "hold", "arguments": {}}, caps=TASKS_EXTENSION
        )
        task_id = created.result["taskId"]
        for url in (one, two):
            for method in ("tasks/get", "tasks/cancel"):
                r = await mallory.modern(url, method, {"taskId": task_id}, caps=TASKS_EXTENSION)
                assert r.error_code == -32602, (url, method, r.message)
        own = await alice.modern(two, "tasks/get", {"taskId": task_id}, caps=TASKS_EXTENSION)
        assert own.result["status"] == "working"
        stop = await alice.modern(two, "tasks/cancel", {"taskId": task_id}, caps=TASKS_EXTENSION)
        assert stop.status == 200 and stop.error_code is None, stop.message
        # 2025-11-25 tasks (stateless requests through the proxy)
        made = await alice.rpc(
            one,
            "tools/call",
            {"name": "secret", "arguments": {"text": "alice"}, "task": {"ttl": 60_000}},
        )
        legacy_id = made.result["task"]["taskId"]
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            r = await mallory.rpc(two, method, {"taskId": legacy_id})
            assert r.error_code == -32602, (method, r.message)
        listed = (await mallory.rpc(two, "tasks/list", {})).result["tasks"]
        assert legacy_id not in [t["taskId"] for t in listed]
        result = (await alice.rpc(two, "tasks/result", {"taskId": legacy_id})).result
        assert result["content"][0]["text"] == "secret of alice"
