"""Proxy replicas behind a load balancer, sharing one Redis: the owner of a task made
through one replica is known to every other, so its owner reaches it anywhere and another
principal (or an anonymous caller) nowhere; the upstream sees one caller, the proxy, for
all of them. An MRTR round the upstream began for one principal is continued by that
principal on any replica and by no one else."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpkit.proxy import ProxyServer
from mcpkit.redis import RedisBackend
from mcpkit.server.tasks import TaskManager
from mcpkit.transports.http import running
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import (
    SECRET,
    TASKS_EXTENSION,
    Caller,
    Reply,
    answer,
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
    redis_url: str, count: int = 3
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
            proxy = ProxyServer(upstream_url, store=store)
            app = proxy.http_app(auth=resource_server(), stateless=True)
            urls.append(await stack.enter_async_context(running(app)) + "/mcp")
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        yield urls, Caller(http, "alice-token"), Caller(http, "mallory-token"), Caller(http, None)


def refused(reply: Reply, caller: Caller) -> None:
    """Another principal is answered as for an unknown task; an anonymous caller is not let
    in (the proxy is protected)."""
    if caller.token is None:
        assert reply.status == 401, (reply.status, reply.message)
    else:
        assert reply.error_code == -32602, (reply.status, reply.message)


async def test_a_task_made_on_one_replica_is_its_owners_on_every_replica(redis_url: str) -> None:
    async with proxy_replicas(redis_url) as (urls, alice, mallory, anonymous):
        home, elsewhere = urls[0], urls[1:]
        # 2026-07-28: the tasks extension
        created = await alice.modern(
            home, "tools/call", {"name": "hold", "arguments": {}}, caps=TASKS_EXTENSION
        )
        task_id = created.result["taskId"]
        for url in urls:
            for caller in (mallory, anonymous):
                for method in ("tasks/get", "tasks/cancel"):
                    r = await caller.modern(url, method, {"taskId": task_id}, caps=TASKS_EXTENSION)
                    refused(r, caller)
        for url in elsewhere:
            own = await alice.modern(url, "tasks/get", {"taskId": task_id}, caps=TASKS_EXTENSION)
            assert own.result["status"] == "working"
        stop = await alice.modern(
            elsewhere[-1], "tasks/cancel", {"taskId": task_id}, caps=TASKS_EXTENSION
        )
        assert stop.status == 200 and stop.error_code is None, stop.message
        # 2025-11-25 tasks (stateless requests through the proxy)
        made = await alice.rpc(
            home,
            "tools/call",
            {"name": "secret", "arguments": {"text": "alice"}, "task": {"ttl": 60_000}},
        )
        legacy_id = made.result["task"]["taskId"]
        for url in elsewhere:
            for caller in (mallory, anonymous):
                for method in ("tasks/get", "tasks/result", "tasks/cancel"):
                    refused(await caller.rpc(url, method, {"taskId": legacy_id}), caller)
                listed = await caller.rpc(url, "tasks/list", {})
                if caller is mallory:
                    assert legacy_id not in [t["taskId"] for t in listed.result["tasks"]]
                else:
                    refused(listed, caller)
        for url in elsewhere:
            result = (await alice.rpc(url, "tasks/result", {"taskId": legacy_id})).result
            assert result["content"][0]["text"] == "secret of alice"


async def test_a_round_is_continued_by_its_principal_on_any_replica(redis_url: str) -> None:
    async with proxy_replicas(redis_url) as ([one, two, three], alice, mallory, _):
        steps = {"name": "two_steps", "arguments": {}}
        first = (await alice.modern(one, "tools/call", steps)).result
        assert first["resultType"] == "input_required"
        second = (
            await alice.modern(
                two,
                "tools/call",
                {
                    **steps,
                    "inputResponses": {"step1": answer("Alice")},
                    "requestState": first["requestState"],
                },
            )
        ).result
        stolen = {
            **steps,
            "inputResponses": {"step2": answer("Mallory")},
            "requestState": second["requestState"],
        }
        for url in (one, two, three):
            r = await mallory.modern(url, "tools/call", stolen)
            assert r.error_code == -32602, r.message
        own = {**stolen, "inputResponses": {"step2": answer("Bob")}}
        done = (await alice.modern(three, "tools/call", own)).result
        assert done["content"][0]["text"] == "Alice then Bob"
