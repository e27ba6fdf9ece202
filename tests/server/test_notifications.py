"""The server's notification bus seen from both eras: one call reaches 2025 sessions and
2026 listen streams alike, replicas sharing a bus hear each other's changes through one
subscription each, and 2025 sessions get what they always got (and cannot listen)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.bus import DEFAULT_MAX_PENDING, BusEvent, EventFilter, MemoryBus, Subscription
from mcpkit.errors import McpError
from mcpkit.transports import MemoryTransport
from tests.modern.listen_app import make_app
from tests.modern.listen_peer import (
    ACK,
    PROMPTS_CHANGED,
    TOOLS_CHANGED,
    UPDATED,
    Peer,
    V,
    listen_request,
)
from tests.server.helpers import connected
from tests.wire import WireChecker

Wire = Callable[..., WireChecker]


class Recorder:
    """The notifications a 2025 client received, by method."""

    def __init__(self, client: Any, *methods: str) -> None:
        self.got: list[tuple[str, Any]] = []
        self.arrived = asyncio.Event()
        for method in methods:
            client.set_notification_handler(method, self._handler(method))

    def _handler(self, method: str) -> Callable[[Any], None]:
        def handle(params: Any) -> None:
            self.got.append((method, params))
            self.arrived.set()

        return handle

    async def until(self, n: int) -> list[tuple[str, Any]]:
        async with asyncio.timeout(10):
            while len(self.got) < n:
                self.arrived.clear()
                await self.arrived.wait()
        return self.got


async def modern_peer(app: Server, wire: Wire) -> Peer:
    client_end, server_end = MemoryTransport.pair()
    session = app.session(server_end, tracer=wire(V))
    await session.start()
    peer = Peer(client_end, wire(V))
    await peer.start()
    return peer


async def test_one_call_reaches_a_2025_session_and_a_2026_listener(wire: Wire) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        legacy = Recorder(client, TOOLS_CHANGED, PROMPTS_CHANGED, UPDATED)
        await client.request("resources/subscribe", {"uri": "test://watched"})
        peer = await modern_peer(app, wire)
        await peer.listen(
            1,
            toolsListChanged=True,
            promptsListChanged=True,
            resourceSubscriptions=["test://watched"],
        )
        app.notify_list_changed("tools")
        app.notify_resource_updated("test://watched")
        app.notify_resource_updated("test://not-subscribed")
        app.notify_list_changed("prompts")  # the last one: everything before it has arrived
        assert await legacy.until(3) == [
            (TOOLS_CHANGED, None),
            (UPDATED, {"uri": "test://watched"}),
            (PROMPTS_CHANGED, None),
        ]
        frames = await peer.stream(1, 4)
        assert [m["method"] for m in frames] == [ACK, TOOLS_CHANGED, UPDATED, PROMPTS_CHANGED]
        await client.ping()
        assert len(legacy.got) == 3 and len(peer.frames(1)) == 4
        assert peer.untagged() == []  # the modern session heard nothing of the broadcast
        # A registration is one change for both, too.
        app.add_tool(lambda: "x", name="x")
        await legacy.until(4)
        assert legacy.got[3] == (TOOLS_CHANGED, None)
        assert (await peer.stream(1, 5))[4]["method"] == TOOLS_CHANGED


async def test_a_change_announced_from_another_thread(wire: Wire) -> None:
    app = make_app()
    async with connected(app, wire) as (client, _):
        legacy = Recorder(client, TOOLS_CHANGED)
        peer = await modern_peer(app, wire)
        await peer.listen("t", toolsListChanged=True)
        thread = threading.Thread(target=app.notify_list_changed, args=("tools",))
        thread.start()
        thread.join()
        assert await legacy.until(1) == [(TOOLS_CHANGED, None)]
        assert [m["method"] for m in await peer.stream("t", 2)] == [ACK, TOOLS_CHANGED]


class SharedBus:
    """A stand-in for a bus shared by replicas (Redis): every event crosses it as JSON and
    is published asynchronously; it counts its subscribers."""

    def __init__(self) -> None:
        self.inner = MemoryBus()
        self.carried: list[bytes] = []

    async def publish(self, event: BusEvent) -> None:
        data = event.to_json()
        self.carried.append(data)
        await asyncio.sleep(0)
        self.inner.publish_nowait(BusEvent.from_json(data))

    def subscribe(
        self,
        accept: EventFilter = None,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        coalesce: bool = True,
    ) -> Subscription:
        return self.inner.subscribe(accept, max_pending=max_pending, coalesce=coalesce)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_replicas_sharing_a_bus_hear_each_other(wire: Wire) -> None:
    bus = SharedBus()
    first = Server("replica", declare=("tools",), bus=bus)
    second = make_app(bus=bus)
    async with first.running(), second.running():
        async with connected(second, wire) as (client, _), connected(second, wire) as (other, _):
            legacy = Recorder(client, TOOLS_CHANGED)
            legacy_other = Recorder(other, TOOLS_CHANGED)
            on_second = await modern_peer(second, wire)
            on_first = await modern_peer(first, wire)
            for rid in (1, 2, 3):
                await on_second.listen(rid, toolsListChanged=True)
            await on_first.listen("f", toolsListChanged=True)
            # One subscription per process, however many sessions and listens it serves.
            assert len(bus.inner) == 2
            first.notify_list_changed("tools")
            assert await legacy.until(1) == [(TOOLS_CHANGED, None)]
            assert await legacy_other.until(1) == [(TOOLS_CHANGED, None)]
            for rid in (1, 2, 3):
                assert [m["method"] for m in await on_second.stream(rid, 2)] == [
                    ACK,
                    TOOLS_CHANGED,
                ]
            assert [m["method"] for m in await on_first.stream("f", 2)] == [ACK, TOOLS_CHANGED]
            assert bus.carried == [BusEvent.list_changed("tools").to_json()]
    assert len(bus.inner) == 0  # both replicas stopped relaying when they stopped serving


async def test_a_2025_session_cannot_listen(wire: Wire) -> None:
    app = make_app()
    async with connected(app, wire, check_server_received=False) as (client, _):
        params = listen_request(1, toolsListChanged=True)["params"]
        del params["_meta"]
        with pytest.raises(McpError) as info:
            await client.request("subscriptions/listen", params)
        assert info.value.code == -32601
        assert len(app.relay.local) == 0
        # The request is not in the 2025 schema (that is the point): its own check is dropped.
        checker = client._tracer
        assert checker is not None
        refused = [e for e in checker.errors if "'subscriptions/listen' is not in" in e]
        assert len(refused) == 1
        checker.errors.remove(refused[0])
        await client.ping()


async def test_a_server_without_modern_versions_has_no_listen(wire: Wire) -> None:
    app = Server("legacy-only", declare=("tools",), modern_versions=())
    assert "subscriptions/listen" not in app.handler_table()
    async with connected(app, wire) as (client, _):
        legacy = Recorder(client, TOOLS_CHANGED)
        app.notify_list_changed("tools")
        assert await legacy.until(1) == [(TOOLS_CHANGED, None)]
