"""A resource update is not lost when the replica holding the GET stream hears it before it
hears the subscription made on another replica.

The new subscription reaches the GET stream's holder as a message on the session's channel,
the update as a message on the bus channel. On a Redis Cluster the two are published on
different nodes (the session's slot, the bus log's slot) and relayed to the holder's node
over different cluster-bus links: nothing orders them, so the update may come first (the
client subscribed, was answered, and then made the change). Here the holder's
session-channel state messages are held back until the update was heard, standing for that
reordering: once the subscription arrives, the update must still be sent.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson
import pytest

from mcpkit.redis import RedisBackend
from tests.scaleout.conftest import Deployment, free_port
from tests.scaleout.inprocess import (
    LateListening,
    announcing_server,
    replicas_in_process,
    until,
)

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


@pytest.fixture
async def two(live: Deployment) -> AsyncIterator[tuple[list[str], list[RedisBackend]]]:
    async with replicas_in_process(live.redis.url, f"o{free_port()}", announcing_server) as both:
        yield both


async def test_an_update_heard_before_the_subscription_is_sent_once_it_arrives(
    two: tuple[list[str], list[RedisBackend]],
) -> None:
    (a, b), (_, holder) = two
    async with httpx.AsyncClient(timeout=20) as http:
        first = await http.post(a, json=INIT, headers=HEADERS)
        sid = first.headers["mcp-session-id"]
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(a, json=note, headers=session)).status_code == 202
        received: list[dict[str, Any]] = []

        async def read_get_stream() -> None:
            async with http.stream("GET", b, headers=session) as stream:
                async for line in stream.aiter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        received.append(orjson.loads(line[5:]))

        reader = asyncio.get_running_loop().create_task(read_get_stream())
        try:
            router = holder.router
            await until(lambda: bool(router._sessions.get(sid)), "the holder listens")
            # The holder's state messages wait (the other cluster-bus link is slow).
            held: list[tuple[Callable[[bytes], None], bytes]] = []
            listeners = router._sessions[sid]

            def gate(callback: Callable[[bytes], None]) -> Callable[[bytes], None]:
                def gated(data: bytes) -> None:
                    if data[:1] == b"S":
                        held.append((callback, data))
                    else:
                        callback(data)

                return gated

            router._sessions[sid] = {gate(cb) for cb in listeners}
            subscribe = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "resources/subscribe",
                "params": {"uri": "note://a"},
            }
            assert (await http.post(a, json=subscribe, headers=session)).status_code == 200
            await until(lambda: bool(held), "the subscription is published")
            bus = holder.shared_bus
            assert bus is not None
            heard = bus.received
            call = {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "touch", "arguments": {"uri": "note://a"}},
            }
            assert (await http.post(a, json=call, headers=session)).status_code == 200
            await until(lambda: bus.received > heard, "the holder hears the update")
            for _ in range(20):  # the holder's relay runs (and finds no subscriber yet)
                await asyncio.sleep(0.01)
            for callback, data in held:  # now the subscription arrives
                callback(data)
            await until(lambda: bool(received), "the update reaches the client")
            assert received == [
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/resources/updated",
                    "params": {"uri": "note://a"},
                }
            ]
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader


async def test_a_subscription_made_while_a_get_stream_opens_is_honoured(
    two: tuple[list[str], list[RedisBackend]],
) -> None:
    """A replica reads the session's state when it loads its view for a GET, and hears
    its changes once it listens on the session's channel: a subscription made on another
    replica in between is not heard, yet is the view's (the updates after it are sent)."""
    (a, b), (_, holder) = two
    router = holder.router
    late = LateListening(holder)
    async with httpx.AsyncClient(timeout=20) as http:
        first = await http.post(a, json=INIT, headers=HEADERS)
        sid = first.headers["mcp-session-id"]
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(a, json=note, headers=session)).status_code == 202
        received: list[dict[str, Any]] = []

        async def read_get_stream() -> None:
            async with http.stream("GET", b, headers=session) as stream:
                async for line in stream.aiter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        received.append(orjson.loads(line[5:]))

        reader = asyncio.get_running_loop().create_task(read_get_stream())
        try:
            await until(late.waiting.is_set, "the GET stream's view is loaded")
            subscribe = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "resources/subscribe",
                "params": {"uri": "note://a"},
            }
            assert (await http.post(a, json=subscribe, headers=session)).status_code == 200
            late.release()
            await until(lambda: bool(router._sessions.get(sid)), "the holder listens")
            bus = holder.shared_bus
            assert bus is not None
            heard = bus.received
            call = {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "touch", "arguments": {"uri": "note://a"}},
            }
            assert (await http.post(a, json=call, headers=session)).status_code == 200
            await until(lambda: bus.received > heard, "the holder hears the update")
            await until(lambda: bool(received), "the update reaches the client")
            assert received == [
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/resources/updated",
                    "params": {"uri": "note://a"},
                }
            ]
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
