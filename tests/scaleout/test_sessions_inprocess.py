"""Two replicas in one process on one Redis: session expiry from any replica, and every key
the shared state writes is bounded (a TTL, or one of the two fixed small keys)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from mcpkit import Context, Server
from mcpkit.redis import RedisBackend
from mcpkit.transports.http import running
from tests.scaleout.cluster import STORE_SECRET
from tests.scaleout.conftest import Deployment, free_port

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def make(backend: RedisBackend) -> Server[Any]:
    app: Server[Any] = Server("pair", store=backend)

    @app.tool()
    async def progress(ctx: Context) -> str:
        """Two progress notifications."""
        await ctx.progress(1, 2)
        await ctx.progress(2, 2)
        return backend.replica_id

    @app.tool()
    async def wait() -> str:
        """Waits to be cancelled."""
        await asyncio.sleep(30)
        return "late"

    return app


@pytest.fixture
async def two(live: Deployment) -> AsyncIterator[tuple[str, str, str]]:
    prefix = f"p{free_port()}"
    backends = [
        RedisBackend(
            live.redis.url,
            prefix=prefix,
            secret=STORE_SECRET,
            replica_id=name,
            session_ttl=1.0,
        )
        for name in ("a", "b")
    ]
    async with contextlib.AsyncExitStack() as stack:
        urls = []
        for backend in backends:
            base = await stack.enter_async_context(running(make(backend).http_app("/mcp")))
            urls.append(f"{base}/mcp")
        yield urls[0], urls[1], prefix
        for backend in backends:
            await backend.aclose()


async def test_expiry_from_any_replica_and_bounded_keys(
    two: tuple[str, str, str], live: Deployment
) -> None:
    a, b, prefix = two
    async with httpx.AsyncClient(timeout=20) as http:
        first = await http.post(a, json=INIT, headers=HEADERS)
        sid = first.headers["mcp-session-id"]
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": 7}},
        }
        answer = await http.post(b, json=call, headers=session)  # another replica serves it
        assert answer.status_code == 200 and '"text":"b"' in answer.text
        client = aioredis.Redis.from_url(live.redis.url)
        try:
            keys = [k async for k in client.scan_iter(match=f"{prefix}:*")]
            assert keys
            fixed = {f"{prefix}:request-state-keys".encode(), f"{prefix}:tseq".encode()}
            for key in keys:
                if key not in fixed:  # the two documented small fixed keys
                    assert await client.pttl(key) > 0, key  # every other key expires
            # Idle past session_ttl: expired in Redis, so gone for both replicas.
            gone_key = f"{prefix}:s:{{{sid}}}"
            expired: list[bool] = []

            async def check() -> bool:
                expired.append(await client.exists(gone_key) == 0)
                return expired[-1]

            while not await check():
                await asyncio.sleep(0.05)
                assert len(expired) < 400, "the session never expired"
            call["id"] = 99
            for url in (a, b):
                gone = await http.post(url, json=call, headers=session)
                assert gone.status_code == 404
                assert gone.json()["error"]["code"] == -32001
        finally:
            await client.aclose()


async def test_a_stream_cancelled_before_any_event_leaves_its_log_expiring(
    two: tuple[str, str, str], live: Deployment
) -> None:
    """The end marker of a stream with no event yet (its request cancelled) is the first
    entry of the stream's log: the log still gets the TTL, never a key kept forever."""
    a, _, prefix = two
    async with httpx.AsyncClient(timeout=20) as http:
        first = await http.post(a, json=INIT, headers=HEADERS)
        sid = first.headers["mcp-session-id"]
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "wait"}}
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 5},
        }
        client = aioredis.Redis.from_url(live.redis.url)
        try:
            async with http.stream("POST", a, json=call, headers=session) as answer:
                assert answer.status_code == 200
                registered = f"{prefix}:s:{{{sid}}}:streams"
                for _ in range(400):  # the stream is registered once its POST is served
                    if await client.hlen(registered):
                        break
                    await asyncio.sleep(0.02)
                sent = await http.post(a, json=cancel, headers=session)
                assert sent.status_code == 202
                body = b"".join([chunk async for chunk in answer.aiter_bytes()])
            assert b'"id":5' not in body  # cancelled: no response
            logs = [k async for k in client.scan_iter(match=f"{prefix}:s:*:ev:*")]
            assert logs, "the end marker is logged"
            for key in logs:
                assert await client.pttl(key) > 0, key
        finally:
            await client.aclose()


async def test_a_request_stream_followed_by_no_other_replica_is_not_published(
    two: tuple[str, str, str], live: Deployment
) -> None:
    """The replica running a request sends its stream's events itself: they go to the log,
    not to the session's channel, until another replica follows the stream (resumption
    there; see test_resumption_on_another_replica)."""
    a, _, prefix = two
    async with httpx.AsyncClient(timeout=20) as http:
        first = await http.post(a, json=INIT, headers=HEADERS)
        sid = first.headers["mcp-session-id"]
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        client = aioredis.Redis.from_url(live.redis.url)
        channel = f"{prefix}:s:{{{sid}}}"
        pubsub = client.pubsub()
        try:
            await pubsub.subscribe(channel)
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": 7}},
            }
            answer = await http.post(a, json=call, headers=session)
            assert answer.status_code == 200 and '"text":"a"' in answer.text
            assert answer.text.count("notifications/progress") == 2
            events = [k async for k in client.scan_iter(match=f"{prefix}:s:*:ev:*")]
            assert events and sum([await client.xlen(k) for k in events]) == 4  # 2+result+end
            # Published after the answer: every message of the call would come before it.
            await client.publish(channel, b"marker")
            heard: list[bytes] = []
            async with asyncio.timeout(10):
                while not heard or heard[-1] != b"marker":
                    msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                    if msg is not None:
                        heard.append(msg["data"])
            assert heard == [b"marker"]
        finally:
            await pubsub.aclose()
            await client.aclose()
