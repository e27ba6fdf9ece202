"""One test per isolation finding: each reproduces the attack and shows it no longer works
(and that the owner's own access does)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from mcpkit.proxy import ProxyServer
from mcpkit.redis import RedisBackend
from mcpkit.server.tasks import TaskManager
from mcpkit.transports.http import StreamableHTTPApp, running
from mcpkit.transports.http.options import HttpServerOptions
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import (
    SECRET,
    TASKS_EXTENSION,
    V2025,
    Caller,
    answer,
    resource_server,
    tenant_server,
)


@contextlib.asynccontextmanager
async def callers() -> AsyncIterator[tuple[Caller, Caller, Caller]]:
    """alice, mallory and an anonymous caller."""
    async with httpx.AsyncClient(timeout=30) as http:
        yield Caller(http, "alice-token"), Caller(http, "mallory-token"), Caller(http, None)


def task_call(text: str) -> dict[str, Any]:
    return {"name": "secret", "arguments": {"text": text}, "task": {"ttl": 60_000}}


async def finished(caller: Caller, url: str, task_id: str, sid: str | None = None) -> Any:
    """The result of a task, waited for by its owner."""
    return (await caller.rpc(url, "tasks/result", {"taskId": task_id}, sid)).result


# -- 1. stateless HTTP and auth attached through http_app(auth=) -----------------------------------


async def test_1_stateless_tasks_of_nobody_are_never_listed() -> None:
    server = tenant_server(tasks=TaskManager(poll_interval=50))
    async with running(server.http_app(stateless=True, json_response=True)) as base:
        url = base + "/mcp"
        async with callers() as (_, _, anonymous):
            created = (await anonymous.rpc(url, "tools/call", task_call("victim"))).result
            task_id = created["task"]["taskId"]
            # another anonymous caller lists: nobody's tasks are not listed to anybody
            assert (await anonymous.rpc(url, "tasks/list")).result["tasks"] == []
            # the id itself (128 random bits) still reaches it
            result = await finished(anonymous, url, task_id)
            assert result["content"][0]["text"] == "secret of victim"


@pytest.mark.parametrize("stateless", [True, False], ids=["stateless", "stateful"])
async def test_1_http_app_auth_makes_tasks_the_principals(stateless: bool) -> None:
    server = tenant_server(tasks=TaskManager(poll_interval=50))
    app = server.http_app(stateless=stateless, json_response=True, auth=resource_server())
    async with running(app) as base:
        url = base + "/mcp"
        async with callers() as (alice, mallory, anonymous):
            a_sid = None if stateless else await alice.initialize(url)
            m_sid = None if stateless else await mallory.initialize(url)
            created = (await alice.rpc(url, "tools/call", task_call("alice"), a_sid)).result
            task_id = created["task"]["taskId"]
            assert (await mallory.rpc(url, "tasks/list", None, m_sid)).result["tasks"] == []
            for method in ("tasks/get", "tasks/result", "tasks/cancel"):
                r = await mallory.rpc(url, method, {"taskId": task_id}, m_sid)
                assert r.error_code == -32602, (method, r.message)
            assert (await anonymous.rpc(url, "tasks/list")).status == 401
            listed = (await alice.rpc(url, "tasks/list", None, a_sid)).result["tasks"]
            assert [t["taskId"] for t in listed] == [task_id]
            result = await finished(alice, url, task_id, a_sid)
            assert result["content"][0]["text"] == "secret of alice"
            if stateless:  # every request of the principal reaches its tasks
                result = await finished(alice, url, task_id)
                assert result["content"][0]["text"] == "secret of alice"


async def test_1_http_app_auth_binds_request_state_to_the_principal() -> None:
    server = tenant_server()
    async with running(server.http_app(auth=resource_server())) as base:
        url = base + "/mcp"
        async with callers() as (alice, mallory, _):
            call = {"name": "two_steps", "arguments": {}}
            first = (await alice.modern(url, "tools/call", call)).result
            assert first["resultType"] == "input_required"
            second = (
                await alice.modern(
                    url,
                    "tools/call",
                    {
                        **call,
                        "inputResponses": {"step1": answer("Alice")},
                        "requestState": first["requestState"],
                    },
                )
            ).result
            assert second["resultType"] == "input_required"
            stolen = {
                **call,
                "inputResponses": {"step2": answer("Mallory")},
                "requestState": second["requestState"],
            }
            r = await mallory.modern(url, "tools/call", stolen)
            assert r.error_code == -32602 and "another principal" in r.message["error"]["message"]  # type: ignore[index]
            done = (
                await alice.modern(
                    url,
                    "tools/call",
                    {**stolen, "inputResponses": {"step2": answer("Bob")}},
                )
            ).result
            assert done["content"][0]["text"] == "Alice then Bob"


# -- 2. Redis scale-out: the owner is stored with the session --------------------------------------


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    redis = Redis(tmp_path_factory.mktemp("redis"))
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


@contextlib.asynccontextmanager
async def replicas(
    redis_url: str, count: int = 3, **http: Any
) -> AsyncIterator[list[tuple[str, Any]]]:
    """``count`` replicas of the tenant server on one Redis, protected by one resource
    server attached through ``http_app(auth=)``; their endpoint URLs and apps."""
    prefix = f"own{free_port()}"
    async with contextlib.AsyncExitStack() as stack:
        urls = []
        for i in range(count):
            backend = RedisBackend(redis_url, prefix=prefix, replica_id=f"r{i}", secret=SECRET)
            stack.push_async_callback(backend.aclose)
            server = tenant_server(store=backend)
            app = server.http_app(auth=resource_server(), **http)
            urls.append((await stack.enter_async_context(running(app)) + "/mcp", app))
        yield urls


async def test_2_a_shared_session_is_its_principals_on_every_replica(redis_url: str) -> None:
    async with replicas(redis_url) as deployed, callers() as (alice, mallory, _):
        (a, _), (b, app_b), (c, app_c) = deployed
        sid = await alice.initialize(a)
        # alice's call on replica a: its SSE stream starts with a priming event (an id)
        r = await alice.http.post(
            a,
            content=orjson.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 7,
                    "method": "tools/call",
                    "params": {"name": "secret", "arguments": {"text": "alice"}},
                }
            ),
            headers=alice.headers(sid),
        )
        assert r.status_code == 200 and "secret of alice" in r.text
        event_id = next(
            line.split(":", 1)[1].strip() for line in r.text.splitlines() if line.startswith("id:")
        )
        for replica in (b, c):
            # mallory holds the session id: using, replaying and deleting it all fail
            used = await mallory.rpc(replica, "tools/list", {}, sid)
            assert used.status == 404
            replay = await mallory.http.get(
                replica, headers={**mallory.headers(sid), "last-event-id": event_id}
            )
            assert replay.status_code == 404 and "secret of alice" not in replay.text
            gone = await mallory.http.delete(replica, headers=mallory.headers(sid))
            assert gone.status_code == 404
        # and nothing of alice's session was loaded (or kept alive) for mallory there
        assert sid not in app_b.sessions and sid not in app_c.sessions
        # alice's session works on every replica, and her replay too
        for replica in (a, b, c):
            assert (await alice.rpc(replica, "tools/list", {}, sid)).status == 200
        async with alice.http.stream(
            "GET", c, headers={**alice.headers(sid), "last-event-id": event_id}
        ) as replay:
            assert replay.status_code == 200
            seen = b""
            async for chunk in replay.aiter_bytes():
                seen += chunk
                if b"secret of alice" in seen:
                    break
        deleted = await alice.http.delete(b, headers=alice.headers(sid))
        assert deleted.status_code == 200
        assert (await alice.rpc(a, "tools/list", {}, sid)).status == 404


# -- 9. legacy HTTP+SSE sessions -------------------------------------------------------------------


async def legacy_endpoint(lines: AsyncIterator[str]) -> str:
    """The ``endpoint`` event of a legacy SSE stream (the stream is left open)."""
    while True:
        line = await anext(lines)
        if line.startswith("data:"):
            endpoint = line.split(":", 1)[1].strip()
            assert "session_id=" in endpoint
            return endpoint


async def test_9_legacy_sse_session_is_its_principals() -> None:
    server = tenant_server()
    app = server.http_app(legacy_sse=True, auth=resource_server())
    async with running(app) as base, callers() as (alice, mallory, anonymous):
        async with alice.http.stream(
            "GET", base + "/sse", headers={"authorization": "Bearer alice-token"}
        ) as stream:
            assert stream.status_code == 200
            lines = stream.aiter_lines()  # kept: the session lives while its stream does
            endpoint = await legacy_endpoint(lines)
            ping = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
            json = {"content-type": "application/json"}
            stolen = await mallory.http.post(
                base + endpoint,
                content=ping,
                headers={**json, "authorization": "Bearer mallory-token"},
            )
            assert stolen.status_code == 404
            anon = await anonymous.http.post(base + endpoint, content=ping, headers=json)
            assert anon.status_code == 401
            own = await alice.http.post(
                base + endpoint,
                content=ping,
                headers={**json, "authorization": "Bearer alice-token"},
            )
            assert own.status_code == 202


# -- 11. the proxy: downstream principals do not share the upstream's owner ------------------------


async def test_11_proxy_tasks_belong_to_the_downstream_principal() -> None:
    upstream = tenant_server(tasks=TaskManager(poll_interval=50))
    async with contextlib.AsyncExitStack() as stack:
        # the upstream over HTTP: it sees the proxy, never the downstream principals
        upstream_url = await stack.enter_async_context(running(upstream.http_app())) + "/mcp"
        proxy = ProxyServer(upstream_url)
        base = await stack.enter_async_context(running(proxy.http_app(auth=resource_server())))
        alice, mallory, _ = await stack.enter_async_context(callers())
        url = base + "/mcp"
        created = await alice.modern(
            url, "tools/call", {"name": "hold", "arguments": {}}, caps=TASKS_EXTENSION
        )
        task_id = created.result["taskId"]
        for method in ("tasks/get", "tasks/cancel"):
            r = await mallory.modern(url, method, {"taskId": task_id}, caps=TASKS_EXTENSION)
            assert r.error_code == -32602, (method, r.message)
        own = await alice.modern(url, "tasks/get", {"taskId": task_id}, caps=TASKS_EXTENSION)
        assert own.result["status"] == "working"
        stop = await alice.modern(url, "tasks/cancel", {"taskId": task_id}, caps=TASKS_EXTENSION)
        assert stop.status == 200
        # 2025 stateful sessions through the proxy
        a_sid, m_sid = await alice.initialize(url), await mallory.initialize(url)
        created = (await alice.rpc(url, "tools/call", task_call("alice"), a_sid)).result
        legacy_id = created["task"]["taskId"]
        assert (await mallory.rpc(url, "tasks/list", {}, m_sid)).result["tasks"] == []
        r = await mallory.rpc(url, "tasks/result", {"taskId": legacy_id}, m_sid)
        assert r.error_code == -32602
        result = await finished(alice, url, legacy_id, a_sid)
        assert result["content"][0]["text"] == "secret of alice"


async def test_11_proxy_rounds_belong_to_the_downstream_principal() -> None:
    """The upstream seals requestState for the proxy; the proxy binds it to the principal."""
    upstream = tenant_server()
    async with contextlib.AsyncExitStack() as stack:
        upstream_url = await stack.enter_async_context(running(upstream.http_app())) + "/mcp"
        proxy = ProxyServer(upstream_url)
        base = await stack.enter_async_context(running(proxy.http_app(auth=resource_server())))
        alice, mallory, _ = await stack.enter_async_context(callers())
        url = base + "/mcp"
        steps = {"name": "two_steps", "arguments": {}}
        first = (await alice.modern(url, "tools/call", steps)).result
        assert first["resultType"] == "input_required"
        second = (
            await alice.modern(
                url,
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
        r = await mallory.modern(url, "tools/call", stolen)
        assert r.error_code == -32602, r.message
        own = {**stolen, "inputResponses": {"step2": answer("Bob")}}
        done = (await alice.modern(url, "tools/call", own)).result
        assert done["content"][0]["text"] == "Alice then Bob"


# -- 12. a flood of bare initializes ---------------------------------------------------------------


async def test_12_sessions_never_used_after_initialize_end_soon() -> None:
    server = tenant_server()
    app = StreamableHTTPApp(
        server.session,
        options=HttpServerOptions(initialize_timeout=0.2, session_idle_timeout=1800),
    )
    async with running(app) as base, callers() as (_, _, anonymous):
        url = base + "/mcp"
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": V2025,
                "capabilities": {},
                "clientInfo": {"name": "flood", "version": "1"},
            },
        }
        bare = [
            (await anonymous.post(url, init, anonymous.headers())).headers["mcp-session-id"]
            for _ in range(5)
        ]
        used = await anonymous.initialize(url)
        for _ in range(200):  # the reaper runs every initialize_timeout / 4
            if not any(sid in app.sessions for sid in bare):
                break
            await asyncio.sleep(0.05)
        assert not any(sid in app.sessions for sid in bare)
        assert (await anonymous.rpc(url, "ping", {}, used)).status == 200
        assert (await anonymous.rpc(url, "ping", {}, bare[0])).status == 404


async def test_12_sessions_per_client_are_capped() -> None:
    assert StreamableHTTPApp(tenant_server().session).max_sessions_per_client == 100
    server = tenant_server()
    app = StreamableHTTPApp(
        server.session,
        options=HttpServerOptions(max_sessions_per_client=3),
        auth=resource_server(),
    )
    async with running(app) as base, callers() as (alice, mallory, _):
        url = base + "/mcp"
        mine = [await alice.initialize(url) for _ in range(3)]
        init = {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "initialize",
            "params": {
                "protocolVersion": V2025,
                "capabilities": {},
                "clientInfo": {"name": "flood", "version": "1"},
            },
        }
        refused = await alice.post(url, init, alice.headers())
        assert refused.status == 429 and refused.headers["retry-after"]
        assert refused.error_code is not None and "Too many sessions" in str(refused.message)
        # another principal is not refused for alice's sessions
        await mallory.initialize(url)
        # ending one makes room
        assert (await alice.http.delete(url, headers=alice.headers(mine[0]))).status_code == 200
        await alice.initialize(url)


async def test_12_concurrent_initializes_do_not_overshoot_the_cap(redis_url: str) -> None:
    """On Redis an initialize waits for the store: concurrent ones of one principal still
    count against the cap at once."""
    async with (
        replicas(redis_url, count=1, max_sessions_per_client=3) as deployed,
        callers() as (
            alice,
            _,
            _,
        ),
    ):
        [(url, app)] = deployed
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": V2025,
                "capabilities": {},
                "clientInfo": {"name": "flood", "version": "1"},
            },
        }
        replies = await asyncio.gather(*(alice.post(url, init, alice.headers()) for _ in range(12)))
        assert sorted(r.status for r in replies) == [200] * 3 + [429] * 9
        assert len(app.sessions) == 3


# -- 13. no evictable binding table: the owner is kept with the session ----------------------------


async def test_13_the_owner_cannot_be_evicted_and_leaves_with_the_session() -> None:
    server = tenant_server()
    rs = resource_server()
    if hasattr(rs, "_max_bound"):  # a table of bindings, as small as a flood makes it
        rs._max_bound = 2
    async with running(server.http_app(auth=rs)) as base, callers() as (alice, mallory, _):
        url = base + "/mcp"
        sid = await alice.initialize(url)
        for _ in range(3):
            await mallory.initialize(url)
        assert (await mallory.rpc(url, "tools/list", {}, sid)).status == 404
        assert (await alice.rpc(url, "tools/list", {}, sid)).status == 200
        assert (await alice.http.delete(url, headers=alice.headers(sid))).status_code == 200
        assert sid not in repr(vars(rs))  # nothing of the session is left in the auth layer
