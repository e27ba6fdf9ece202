"""Hostile tenants: alice owns objects, mallory (another principal) and an anonymous caller
try to read, list, cancel, resume, replay and delete them, on every replica.

Each mode runs in memory (one process) and on a real Redis with three replicas (alice
creates on one replica, the others attack on the other two), with ``auth`` attached through
``Server(auth=)``, ``http_app(auth=)`` and ``StreamableHTTPApp(auth=)``. Nothing crosses,
and alice's own access keeps working everywhere. (The legacy HTTP+SSE endpoints and the
proxy, which live in one process, are in test_findings.py.)
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from mcpkit.redis import RedisBackend
from mcpkit.redis.sessions import shared_sessions
from mcpkit.server.tasks import TaskManager
from mcpkit.transports.http import StreamableHTTPApp, running
from mcpkit.transports.http.options import HttpServerOptions
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import SECRET, Caller, answer, resource_server, tenant_server


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Any:
    redis = Redis(tmp_path_factory.mktemp("redis"))
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


@dataclass
class Deployment:
    """The endpoint URLs (the first is where alice creates) and the three callers."""

    urls: list[str]
    alice: Caller
    mallory: Caller
    anonymous: Caller

    @property
    def home(self) -> str:
        return self.urls[0]

    @property
    def elsewhere(self) -> list[str]:
        """Where the attacks come from: the other replicas (the one process in memory)."""
        return self.urls[1:] or self.urls


BACKENDS = ["memory", "redis"]
ATTACH = ["Server(auth=)", "http_app(auth=)", "StreamableHTTPApp(auth=)"]


@contextlib.asynccontextmanager
async def deploy(
    backend: str, attach: str, redis_url: str | None, **http: Any
) -> AsyncIterator[Deployment]:
    prefix = f"hostile{free_port()}"
    async with contextlib.AsyncExitStack() as stack:
        urls = []
        for i in range(3 if backend == "redis" else 1):
            options: dict[str, Any] = {}
            if backend == "redis":
                assert redis_url is not None
                store = RedisBackend(redis_url, prefix=prefix, replica_id=f"r{i}", secret=SECRET)
                stack.push_async_callback(store.aclose)
                options["store"] = store
            else:
                options["tasks"] = TaskManager(poll_interval=50)
            if attach == "Server(auth=)":
                app = tenant_server(auth=resource_server(), **options).http_app(**http)
            elif attach == "http_app(auth=)":
                app = tenant_server(**options).http_app(auth=resource_server(), **http)
            else:  # the bare app around a server's sessions
                server = tenant_server(**options)
                if backend == "redis" and not http.get("stateless"):
                    http = {**http, "shared": shared_sessions(options["store"])}
                shared = http.pop("shared", None)
                app = StreamableHTTPApp(
                    server.session,
                    options=HttpServerOptions(**http),
                    auth=resource_server(),
                    shared=shared,
                )
                await stack.enter_async_context(server.running())
            urls.append(await stack.enter_async_context(running(app)) + "/mcp")
        http_client = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        yield Deployment(
            urls,
            Caller(http_client, "alice-token"),
            Caller(http_client, "mallory-token"),
            Caller(http_client, None),
        )


def task_call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments, "task": {"ttl": 60_000}}


def first_event_id(sse_text: str) -> str:
    return next(
        line.split(":", 1)[1].strip() for line in sse_text.splitlines() if line.startswith("id:")
    )


async def refused_as_unknown(reply: Any, what: str) -> None:
    assert reply.error_code == -32602, (what, reply.status, reply.message)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def redis_for(backend: str, request: pytest.FixtureRequest) -> str | None:
    """The Redis URL when the backend is Redis (the server starts only then)."""
    return request.getfixturevalue("redis_url") if backend == "redis" else None


# -- 2025 sessions: the session, its GET stream and event log, its tasks ------------------------


@pytest.mark.parametrize("attach", ATTACH)
async def test_stateful_sessions_streams_and_tasks(
    backend: str, attach: str, redis_for: str | None
) -> None:
    async with deploy(backend, attach, redis_for) as d:
        alice, mallory, anonymous = d.alice, d.mallory, d.anonymous
        sid = await alice.initialize(d.home)
        call = await alice.http.post(
            d.home,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "secret", "arguments": {"text": "alice"}},
            },
            headers=alice.headers(sid),
        )
        assert call.status_code == 200 and "secret of alice" in call.text
        event_id = first_event_id(call.text)
        task_id = (await alice.rpc(d.home, "tools/call", task_call("hold"), sid)).result["task"][
            "taskId"
        ]
        done_id = (
            await alice.rpc(d.home, "tools/call", task_call("secret", text="alice"), sid)
        ).result["task"]["taskId"]

        for url in d.elsewhere:
            m_sid = await mallory.initialize(url)
            # the session: use, batch, GET stream, replay, delete
            assert (await mallory.rpc(url, "tools/list", {}, sid)).status == 404
            batch = await mallory.http.post(
                url,
                json=[{"jsonrpc": "2.0", "id": 5, "method": "ping"}],
                headers=mallory.headers(sid),
            )
            assert batch.status_code in (400, 404)  # 2025-11-25 has no batches either way
            stream = await mallory.http.get(url, headers=mallory.headers(sid))
            assert stream.status_code == 404
            replay = await mallory.http.get(
                url, headers={**mallory.headers(sid), "last-event-id": event_id}
            )
            assert replay.status_code == 404 and "secret of alice" not in replay.text
            # nor through her own session: events are kept per session
            own = await mallory.http.get(
                url, headers={**mallory.headers(m_sid), "last-event-id": event_id}
            )
            assert own.status_code == 400 and "secret of alice" not in own.text
            assert (await mallory.http.delete(url, headers=mallory.headers(sid))).status_code == 404
            # the tasks, from mallory's own session
            assert (await mallory.rpc(url, "tasks/list", {}, m_sid)).result["tasks"] == []
            for method in ("tasks/get", "tasks/result", "tasks/cancel"):
                for tid in (task_id, done_id):
                    reply = await mallory.rpc(url, method, {"taskId": tid}, m_sid)
                    await refused_as_unknown(reply, method)
            # anonymous: not even in
            assert (await anonymous.rpc(url, "tools/list", {}, sid)).status == 401
            assert (
                await anonymous.http.delete(url, headers=anonymous.headers(sid))
            ).status_code == 401

        # alice: her session on every replica, her replay, her tasks from any of her sessions
        for url in d.urls:
            assert (await alice.rpc(url, "tools/list", {}, sid)).status == 200
        async with alice.http.stream(
            "GET", d.elsewhere[-1], headers={**alice.headers(sid), "last-event-id": event_id}
        ) as own_replay:
            assert own_replay.status_code == 200
            seen = b""
            async for chunk in own_replay.aiter_bytes():
                seen += chunk
                if b"secret of alice" in seen:
                    break
        other_sid = await alice.initialize(d.elsewhere[-1])
        listed = (await alice.rpc(d.elsewhere[-1], "tasks/list", {}, other_sid)).result["tasks"]
        assert {t["taskId"] for t in listed} == {task_id, done_id}
        result = (await alice.rpc(d.elsewhere[0], "tasks/result", {"taskId": done_id}, sid)).result
        assert result["content"][0]["text"] == "secret of alice"
        cancelled = await alice.rpc(d.elsewhere[0], "tasks/cancel", {"taskId": task_id}, sid)
        assert cancelled.result["status"] == "cancelled"
        assert (
            await alice.http.delete(d.elsewhere[0], headers=alice.headers(sid))
        ).status_code == 200
        assert (await alice.rpc(d.home, "tools/list", {}, sid)).status == 404


# -- stateless JSON: tasks with no session --------------------------------------------------------


@pytest.mark.parametrize("attach", ATTACH)
async def test_stateless_json_tasks(backend: str, attach: str, redis_for: str | None) -> None:
    async with deploy(backend, attach, redis_for, stateless=True, json_response=True) as d:
        alice, mallory, anonymous = d.alice, d.mallory, d.anonymous
        held = (await alice.rpc(d.home, "tools/call", task_call("hold"))).result["task"]["taskId"]
        done = (await alice.rpc(d.home, "tools/call", task_call("secret", text="alice"))).result
        done_id = done["task"]["taskId"]
        for url in d.elsewhere:
            assert (await mallory.rpc(url, "tasks/list")).result["tasks"] == []
            for method in ("tasks/get", "tasks/result", "tasks/cancel"):
                for tid in (held, done_id):
                    await refused_as_unknown(
                        await mallory.rpc(url, method, {"taskId": tid}), method
                    )
            assert (await anonymous.rpc(url, "tasks/list")).status == 401
            assert (await anonymous.rpc(url, "tasks/get", {"taskId": done_id})).status == 401
        for url in d.urls:
            listed = (await alice.rpc(url, "tasks/list")).result["tasks"]
            assert {t["taskId"] for t in listed} == {held, done_id}
        result = (await alice.rpc(d.elsewhere[-1], "tasks/result", {"taskId": done_id})).result
        assert result["content"][0]["text"] == "secret of alice"
        stopped = await alice.rpc(d.elsewhere[0], "tasks/cancel", {"taskId": held})
        assert stopped.result["status"] == "cancelled"


async def test_anonymous_stateless_tasks_are_reached_by_id_only(
    backend: str, redis_for: str | None
) -> None:
    """Without auth nobody owns a stateless task: it is never listed, its id reaches it."""
    prefix = f"anon{free_port()}"
    async with contextlib.AsyncExitStack() as stack:
        urls = []
        for i in range(3 if backend == "redis" else 1):
            if backend == "redis":
                assert redis_for is not None
                store = RedisBackend(redis_for, prefix=prefix, replica_id=f"r{i}", secret=SECRET)
                stack.push_async_callback(store.aclose)
                server = tenant_server(store=store)
            else:
                server = tenant_server(tasks=TaskManager(poll_interval=50))
            app = server.http_app(stateless=True, json_response=True)
            urls.append(await stack.enter_async_context(running(app)) + "/mcp")
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        one, two = Caller(http, None), Caller(http, None)
        created = (await one.rpc(urls[0], "tools/call", task_call("secret", text="x"))).result
        for url in urls:
            assert (await two.rpc(url, "tasks/list")).result["tasks"] == []
            assert (await one.rpc(url, "tasks/list")).result["tasks"] == []
        result = await one.rpc(urls[-1], "tasks/result", {"taskId": created["task"]["taskId"]})
        assert result.result["content"][0]["text"] == "secret of x"


# -- 2026-07-28: extension tasks and MRTR requestState --------------------------------------------


@pytest.mark.parametrize("attach", ATTACH)
async def test_modern_tasks_and_request_state(
    backend: str, attach: str, redis_for: str | None
) -> None:
    async with deploy(backend, attach, redis_for) as d:
        alice, mallory, anonymous = d.alice, d.mallory, d.anonymous
        held = (await alice.modern(d.home, "tools/call", {"name": "hold", "arguments": {}})).result
        held_id = held["taskId"]
        steps = {"name": "two_steps", "arguments": {}}
        first = (await alice.modern(d.home, "tools/call", steps)).result
        second = (
            await alice.modern(
                d.home,
                "tools/call",
                {
                    **steps,
                    "inputResponses": {"step1": answer("Alice")},
                    "requestState": first["requestState"],
                },
            )
        ).result
        state = second["requestState"]
        for url in d.elsewhere:
            for method, params in (
                ("tasks/get", {"taskId": held_id}),
                ("tasks/cancel", {"taskId": held_id}),
                ("tasks/update", {"taskId": held_id, "inputResponses": {}}),
            ):
                await refused_as_unknown(await mallory.modern(url, method, params), method)
            resumed = await mallory.modern(
                url,
                "tools/call",
                {**steps, "inputResponses": {"step2": answer("M")}, "requestState": state},
            )
            await refused_as_unknown(resumed, "requestState")
            assert (await anonymous.modern(url, "tasks/get", {"taskId": held_id})).status == 401
        for url in d.urls:
            assert (await alice.modern(url, "tasks/get", {"taskId": held_id})).result[
                "status"
            ] == "working"
        done = await alice.modern(
            d.elsewhere[-1],
            "tools/call",
            {**steps, "inputResponses": {"step2": answer("Bob")}, "requestState": state},
        )
        assert done.result["content"][0]["text"] == "Alice then Bob"
        assert (
            await alice.modern(d.elsewhere[0], "tasks/cancel", {"taskId": held_id})
        ).status == 200
        final = (await alice.modern(d.home, "tasks/get", {"taskId": held_id})).result
        assert final["status"] == "cancelled"
