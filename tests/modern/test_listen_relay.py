"""mcpkit.bus.BusRelay: one subscription per process fanned out to sinks and local listen
streams; publishing from other threads, a relay that falls behind, a new event loop, a bus
that closes, sinks that fail."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest

from mcpkit.bus import BusEvent, BusRelay, ListenStream, MemoryBus

TOOLS = BusEvent.list_changed("tools")
PROMPTS = BusEvent.list_changed("prompts")
CAPS: dict[str, Any] = {"tools": {"listChanged": True}, "prompts": {"listChanged": True}}
ALL = {"notifications": {"toolsListChanged": True, "promptsListChanged": True}}


async def frames(stream: ListenStream, n: int) -> list[str]:
    return [(await asyncio.wait_for(anext(stream), 5))["method"] for _ in range(n)]


async def test_one_subscription_feeds_sinks_and_listens() -> None:
    bus = MemoryBus()
    seen: list[BusEvent] = []
    relay = BusRelay(bus, (seen.append,))
    streams = [relay.open_listen(i, ALL, CAPS) for i in range(3)]
    assert relay.running and len(bus) == 1 and len(relay.local) == 3
    relay.publish(TOOLS)
    for stream in streams:
        assert await frames(stream, 2) == [
            "notifications/subscriptions/acknowledged",
            "notifications/tools/list_changed",
        ]
    assert seen == [TOOLS]
    relay.stop()
    assert not relay.running and len(bus) == 0 and len(relay.local) == 0
    assert [f async for f in streams[0]] == []  # ended: its handler answers the closing result


async def test_a_burst_reaching_the_relay_is_handed_on_whole() -> None:
    """Events that reached the bus while the relay's loop was busy: each 2025 session (a
    sink) hears every one of them; a listen stream may coalesce what waits for it."""
    bus = MemoryBus()
    seen: list[BusEvent] = []
    relay = BusRelay(bus, (seen.append,))
    stream = relay.open_listen(1, ALL, CAPS)
    await frames(stream, 1)
    for _ in range(3):
        bus.publish_nowait(TOOLS)  # before the relay's pump runs
    assert await frames(stream, 1) == ["notifications/tools/list_changed"]
    assert seen == [TOOLS] * 3
    relay.stop()


async def test_publishing_from_another_thread() -> None:
    relay = BusRelay(MemoryBus())
    stream = relay.open_listen("x", ALL, CAPS)
    await frames(stream, 1)
    thread = threading.Thread(target=relay.publish, args=(PROMPTS,))
    thread.start()
    thread.join()
    assert await frames(stream, 1) == ["notifications/prompts/list_changed"]
    relay.stop()


async def test_a_relay_that_falls_behind_ends_its_listens_and_resubscribes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = MemoryBus()
    relay = BusRelay(bus, max_pending=2)
    stream = relay.open_listen(1, ALL, CAPS)
    await frames(stream, 1)
    for i in range(3):  # three distinct events before the relay runs: one too many
        bus.publish_nowait(BusEvent.resource_updated(f"file:///{i}"))
    with caplog.at_level(logging.WARNING, logger="mcpkit.bus"):
        assert [f async for f in stream] == []  # the listen ended; its client re-listens
    assert "fell more than 2 events behind" in caplog.text
    assert relay.running and len(bus) == 1
    again = relay.open_listen(2, ALL, CAPS)
    relay.publish(TOOLS)
    assert (await frames(again, 2))[1] == "notifications/tools/list_changed"
    relay.stop()


async def test_a_failing_sink_does_not_stop_the_relay(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[BusEvent] = []

    def broken(event: BusEvent) -> None:
        raise RuntimeError("boom")

    relay = BusRelay(MemoryBus(), (broken, seen.append))
    stream = relay.open_listen(1, ALL, CAPS)
    with caplog.at_level(logging.ERROR, logger="mcpkit.bus"):
        relay.publish(TOOLS)
        relay.publish(PROMPTS)
        assert (await frames(stream, 3))[1:] == [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
        ]
    assert seen == [TOOLS, PROMPTS] and "Notification sink failed" in caplog.text
    relay.stop()


async def test_a_closed_bus_ends_the_listens() -> None:
    bus = MemoryBus()
    relay = BusRelay(bus)
    stream = relay.open_listen(1, ALL, CAPS)
    await frames(stream, 1)
    await bus.aclose()
    assert [f async for f in stream] == []
    assert not relay.running
    relay.start()  # nothing to subscribe to: stays stopped, says why in the log
    assert not relay.running


def test_the_relay_follows_a_new_event_loop() -> None:
    bus = MemoryBus()
    relay = BusRelay(bus)

    async def round_trip(sid: int) -> list[str]:
        stream = relay.open_listen(sid, ALL, CAPS)
        relay.publish(TOOLS)
        return await frames(stream, 2)

    for sid in (1, 2):  # each asyncio.run is a new loop; the old one's subscription goes
        assert asyncio.run(round_trip(sid))[1] == "notifications/tools/list_changed"
        assert len(bus) == 1
    relay.publish(PROMPTS)  # no loop anywhere: an in-process bus takes it, no one hears it
    relay.stop()
    assert len(bus) == 0


def test_without_a_loop_a_shared_bus_gets_nothing() -> None:
    published: list[BusEvent] = []

    class Shared(MemoryBus):
        async def publish(self, event: BusEvent) -> None:
            published.append(event)

    class NotMemory:
        def __init__(self) -> None:
            self.inner = Shared()

        async def publish(self, event: BusEvent) -> None:
            await self.inner.publish(event)

        def subscribe(
            self, accept: Any = None, *, max_pending: int = 1, coalesce: bool = True
        ) -> Any:
            return self.inner.subscribe(accept, max_pending=max_pending, coalesce=coalesce)

        async def aclose(self) -> None:
            await self.inner.aclose()

    BusRelay(NotMemory()).publish(TOOLS)
    assert published == []
