"""mcpkit's Client through nginx in front of 3 replicas on Redis, both eras: every request
lands on another replica than the one before, and everything still works."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any

import httpx
import orjson
import pytest
import redis.asyncio as aioredis

from mcpkit import McpError
from tests.scaleout.broadcasts import resumption_tour
from tests.scaleout.cluster import direct_url
from tests.scaleout.conftest import Deployment
from tests.scaleout.tours import client, consecutive_replicas, text, until


def assert_round_robin(seen: list[str]) -> None:
    assert set(seen) == {"r1", "r2", "r3"}, seen
    assert all(a != b for a, b in itertools.pairwise(seen)), seen


async def test_handshake_era_tour(live: Deployment) -> None:
    updated: list[str] = []
    changed: list[str] = []
    progress: list[tuple[float, str | None]] = []
    async with client(
        live.url, "legacy", on_resource_updated=updated.append, on_list_changed=changed.append
    ) as c:
        # Concurrent first requests on replicas that have no view of the session yet: they
        # share one view there, and each answer finds the request it answers.
        results = await asyncio.gather(
            *(c.call_tool("sample", {"prompt": f"p{i}"}) for i in range(6))
        )
        assert [text(r).rsplit(": ", 1)[1] for r in results] == [f"p{i}" for i in range(6)]
        assert_round_robin(await consecutive_replicas(c))
        for _ in range(3):  # answered on another replica than the one that asked
            assert text(await c.call_tool("sample", {"prompt": "hi"})).endswith("sampled: re: hi")
            assert text(await c.call_tool("ask", {"question": "ok?"})).endswith(
                'got: accept {"v":"yes"}'
            )
            assert text(await c.call_tool("roots", {})).endswith("roots: file:///srv/data")
        result = await c.call_tool(
            "stream",
            {"count": 5, "delay": 0.01},
            on_progress=lambda p, t, m: progress.append((p, m)),
        )
        owner = text(result).rsplit(" ", 1)[1]
        assert progress == [(i, f"{owner}:{i}") for i in range(1, 6)]
        await c.set_logging_level("error")  # stored: every replica's view honours it
        await c.subscribe_resource("note://a")
        # Events are invalidations: two updates of one URI still waiting on a busy
        # replica are sent once. Each update is awaited before the next, so every one of
        # them must arrive, once.
        for i in range(3):
            await c.call_tool("touch", {"uri": "note://a"})
            await until(lambda i=i: len(updated) == i + 1, seen=updated)
            await c.call_tool("touch", {"uri": "note://unsubscribed"})
        await c.call_tool("changed", {})
        await until(lambda: len(changed) == 1, seen=changed)
        await asyncio.sleep(0.3)  # nothing more arrives: each notification came once
        assert updated == ["note://a"] * 3 and changed == ["tools"]
        await c.unsubscribe_resource("note://a")
        await c.call_tool("touch", {"uri": "note://a"})
        await c.call_tool("changed", {})
        await until(lambda: len(changed) == 2)
        assert len(updated) == 3


async def test_modern_era_tour(live: Deployment) -> None:
    async with client(live.url, "2026-07-28") as c:
        assert_round_robin(await consecutive_replicas(c))
        for _ in range(3):  # the retry with the sealed requestState lands on another replica
            assert text(await c.call_tool("ask", {"question": "ok?"})).endswith(
                'got: accept {"v":"yes"}'
            )
            assert text(await c.call_tool("sample", {"prompt": "hi"})).endswith("sampled: re: hi")
        async with c.listen(resources=["note://b"], tools=True) as events:
            got: list[Any] = []

            async def collect() -> None:
                async for event in events:
                    got.append(event)

            reader = asyncio.get_running_loop().create_task(collect())
            for i in range(3):  # each awaited before the next (see the handshake tour)
                await c.call_tool("touch", {"uri": "note://b"})
                await until(lambda i=i: len(got) == i + 1, seen=got)
                await c.call_tool("touch", {"uri": "note://other"})
            await c.call_tool("changed", {})
            await until(lambda: len(got) == 4, seen=got)
            await asyncio.sleep(0.3)
            reader.cancel()
        methods = sorted(e.method for e in got)
        assert methods == ["notifications/resources/updated"] * 3 + [
            "notifications/tools/list_changed"
        ]


async def test_tasks_in_both_eras(live: Deployment) -> None:
    for era in ("legacy", "2026-07-28"):
        async with client(live.url, era) as c:
            handle = await c.start_tool_task("slow", {"seconds": 0.3})
            assert handle.task_id is not None
            result = await handle.result(timeout=20)
            assert handle.status == "completed" and "slept 0.3" in text(result)
            asking = await c.start_tool_task("confirm", {})
            result = await asking.result(timeout=20)
            assert asking.status == "completed" and text(result).endswith("confirmed: accept")
            if era == "legacy":
                # The task belongs to this session: another session (on any replica) is
                # told it does not exist.
                async with client(live.url, era) as other:
                    for _ in range(3):
                        with pytest.raises(McpError, match="Task not found"):
                            await other.get_task(handle.task_id)


async def test_any_replica_serves_a_session_and_delete_ends_it_everywhere(
    live: Deployment,
) -> None:
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    async with httpx.AsyncClient(timeout=20) as http:
        first = await http.post(live.url, json=init, headers=headers)
        assert first.status_code == 200
        sid = first.headers["mcp-session-id"]
        session = {**headers, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(live.url, json=note, headers=session)).status_code == 202
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
        call["params"] = {"name": "replica", "arguments": {}}
        served = set()
        for replica in live.replicas:  # each replica, directly
            answer = await http.post(direct_url(replica), json=call, headers=session)
            assert answer.status_code == 200
            served.add(_sse_result(answer.text)["structuredContent"]["id"])
            call["id"] += 1  # type: ignore[operator]
        assert served == {"r1", "r2", "r3"}
        assert (await http.delete(live.url, headers=session)).status_code == 200
        for replica in live.replicas:
            gone = await http.post(direct_url(replica), json=call, headers=session)
            assert gone.status_code == 404
            assert gone.json()["error"]["code"] == -32001


def _sse_result(body: str) -> dict[str, Any]:
    for line in body.splitlines():
        if line.startswith("data: ") and '"result"' in line:
            return dict(orjson.loads(line[6:])["result"])
    raise AssertionError(body)


async def test_cancellation_reaches_the_replica_running_the_request(live: Deployment) -> None:
    store = aioredis.Redis.from_url(live.redis.url)
    try:
        async with client(live.url, "legacy") as c:
            for i in range(4):
                key = f"k{i}-{id(c)}"
                call = asyncio.get_running_loop().create_task(c.call_tool("hold", {"key": key}))
                for _ in range(400):
                    ran = await store.get(f"test:started:{key}")
                    if ran is not None:
                        break
                    await asyncio.sleep(0.025)
                assert ran is not None
                call.cancel()  # notifications/cancelled: POSTed to the next replica
                with contextlib.suppress(asyncio.CancelledError):
                    await call
                for _ in range(400):
                    stopped = await store.get(f"test:cancelled:{key}")
                    if stopped is not None:
                        break
                    await asyncio.sleep(0.025)
                assert stopped == ran  # the handler was cancelled where it ran
    finally:
        await store.aclose()


async def test_resumption_on_another_replica(live: Deployment) -> None:
    await resumption_tour(live)
