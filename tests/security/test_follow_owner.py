"""Only the owner of a 2025 session can make another replica follow one of its request
streams (the ``f:<stream>`` mark that makes the producer publish its events) or read it:
on Redis with three replicas and OAuth, another principal holding the session id and an
event id, or their own session and that event id, gets nothing and marks nothing; the
owner's own resumption on another replica does mark it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from mcpkit.redis import RedisBackend
from mcpkit.transports.http import running
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import SECRET, Caller, resource_server, tenant_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Redis]:
    made = Redis(tmp_path)
    made.start()
    try:
        yield made
    finally:
        made.stop()


async def test_only_the_owner_marks_or_reads_a_stream_on_another_replica(server: Redis) -> None:
    prefix = f"follow{free_port()}"
    client = aioredis.Redis.from_url(server.url)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(client.aclose)
        urls = []
        for i in range(3):
            store = RedisBackend(server.url, prefix=prefix, replica_id=f"r{i}", secret=SECRET)
            stack.push_async_callback(store.aclose)
            app = tenant_server(auth=resource_server(), store=store).http_app()
            urls.append(await stack.enter_async_context(running(app)) + "/mcp")
        http = await stack.enter_async_context(httpx.AsyncClient(timeout=30))
        alice, mallory = Caller(http, "alice-token"), Caller(http, "mallory-token")
        home, elsewhere = urls[0], urls[1:]
        sid = await alice.initialize(home)
        session_key = f"{prefix}:s:{{{sid}}}"

        async def marks() -> list[bytes]:
            return [f for f in await client.hkeys(session_key) if f.startswith(b"f:")]

        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "hold"}}
        event_id: str | None = None
        async with asyncio.timeout(60):
            async with http.stream("POST", home, json=call, headers=alice.headers(sid)) as held:
                assert held.status_code == 200
                async for line in held.aiter_lines():
                    if line.startswith("id:"):
                        event_id = line[3:].strip()
                        break
            assert event_id is not None  # the stream's priming event; the call goes on
            for url in elsewhere:
                m_sid = await mallory.initialize(url)
                for who in (sid, m_sid):
                    resume = {**mallory.headers(who), "last-event-id": event_id}
                    refused = await http.get(url, headers=resume)
                    assert refused.status_code in (400, 404), refused.status_code
                    assert refused.status_code == (404 if who == sid else 400)
                anonymous = {**alice.headers(sid), "last-event-id": event_id}
                del anonymous["authorization"]
                assert (await http.get(url, headers=anonymous)).status_code == 401
            assert await marks() == []
            # The owner resuming on another replica is what marks it.
            resume = {**alice.headers(sid), "last-event-id": event_id}
            async with http.stream("GET", elsewhere[0], headers=resume) as own:
                assert own.status_code == 200
                for _ in range(500):
                    if await marks():
                        break
                    await asyncio.sleep(0.01)
                assert len(await marks()) == 1
            cancel = {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 7},
            }
            sent = await http.post(home, json=cancel, headers=alice.headers(sid))
            assert sent.status_code == 202
