"""The notification bus and the subscriptions/listen frames."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit.bus import (
    BusEvent,
    ListenFilter,
    MemoryBus,
    Subscription,
    acknowledgment,
    event_notification,
    honoured_filter,
    listen_closed_result,
    open_listen,
    parse_listen_params,
)
from mcpkit.envelope import SERVER_INFO_KEY, SUBSCRIPTION_ID_KEY
from mcpkit.errors import McpError
from tests.modern.schema import check

TOOLS = BusEvent.list_changed("tools")
PROMPTS = BusEvent.list_changed("prompts")
RESOURCES = BusEvent.list_changed("resources")
CONFIG = BusEvent.resource_updated("file:///project/config.json")
CAPS = {
    "tools": {"listChanged": True},
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": True},
}


async def drain(sub: Subscription, n: int) -> list[BusEvent]:
    out = []
    for _ in range(n):
        out.append(await asyncio.wait_for(sub.__anext__(), 1))
    return out


def queued(sub: Subscription) -> list[BusEvent]:
    return list(sub._pending)


async def test_fan_out_and_filters() -> None:
    bus = MemoryBus()
    everything = bus.subscribe()
    tools_only = bus.subscribe(ListenFilter(tools=True))
    config = bus.subscribe(ListenFilter(resource_uris=("file:///project/config.json",)))
    by_predicate = bus.subscribe(lambda e: e.kind == "prompts")
    for event in (TOOLS, PROMPTS, RESOURCES, CONFIG, BusEvent.resource_updated("file:///x")):
        await bus.publish(event)
    assert len(await drain(everything, 5)) == 5
    assert queued(tools_only) == [TOOLS]
    assert queued(config) == [CONFIG]
    assert queued(by_predicate) == [PROMPTS]
    await bus.aclose()
    assert len(bus) == 0
    assert [e async for e in tools_only] == [TOOLS]
    with pytest.raises(RuntimeError):
        bus.subscribe()


async def test_waiting_subscriber_is_woken() -> None:
    bus = MemoryBus()
    sub = bus.subscribe(ListenFilter(prompts=True))
    waiter = asyncio.ensure_future(sub.__anext__())
    await asyncio.sleep(0)
    assert not waiter.done()
    bus.publish_nowait(PROMPTS)
    assert await asyncio.wait_for(waiter, 1) == PROMPTS


async def test_events_are_coalesced() -> None:
    bus = MemoryBus()
    sub = bus.subscribe(max_pending=2)
    for _ in range(50):
        await bus.publish(TOOLS)
        await bus.publish(CONFIG)
    assert queued(sub) == [TOOLS, CONFIG] and not sub.overflowed
    assert await drain(sub, 1) == [TOOLS]
    await bus.publish(TOOLS)
    assert queued(sub) == [CONFIG, TOOLS]


async def test_a_subscription_that_does_not_coalesce_keeps_every_event() -> None:
    bus = MemoryBus()
    every = bus.subscribe(max_pending=4, coalesce=False)
    for _ in range(2):
        await bus.publish(TOOLS)
        await bus.publish(CONFIG)
    assert queued(every) == [TOOLS, CONFIG, TOOLS, CONFIG]
    assert await drain(every, 4) == [TOOLS, CONFIG, TOOLS, CONFIG]
    for _ in range(5):  # bounded all the same: the fifth waiting event drops it
        await bus.publish(TOOLS)
    assert every.overflowed and queued(every) == []


async def test_slow_subscriber_is_dropped() -> None:
    bus = MemoryBus()
    slow = bus.subscribe(max_pending=3)
    fast = bus.subscribe(max_pending=3)
    for i in range(4):
        await bus.publish(BusEvent.resource_updated(f"file:///{i}"))
        await drain(fast, 1)
    assert slow.overflowed and slow.closed and not fast.closed
    assert [e async for e in slow] == []
    assert len(bus) == 1


async def test_subscriber_close_ends_iteration_after_queued_events() -> None:
    bus = MemoryBus()
    sub = bus.subscribe()
    await bus.publish(TOOLS)
    sub.close()
    await bus.publish(PROMPTS)
    assert [e async for e in sub] == [TOOLS]
    assert len(bus) == 0


def test_resource_filter_covers_sub_resources() -> None:
    f = ListenFilter(resource_uris=("file:///dir/",))
    assert f.matches(BusEvent.resource_updated("file:///dir/a.txt"))
    assert f.matches(BusEvent.resource_updated("file:///dir/"))
    assert not f.matches(BusEvent.resource_updated("file:///dirt"))
    assert not f.matches(TOOLS)


def test_events_validate_and_serialize() -> None:
    with pytest.raises(ValueError):
        BusEvent("tools", "file:///x")
    with pytest.raises(ValueError):
        BusEvent("resource_updated")
    with pytest.raises(ValueError):
        BusEvent("bogus")  # type: ignore[arg-type]
    for e in (TOOLS, CONFIG):
        assert BusEvent.from_json(e.to_json()) == e
    with pytest.raises(ValueError):
        BusEvent.from_json(b"[1]")


def test_parse_listen_params() -> None:
    f = parse_listen_params(
        {
            "_meta": {},
            "notifications": {
                "toolsListChanged": True,
                "resourceSubscriptions": ["file:///a", "file:///a", "file:///b"],
                "futureThing": True,
            },
        }
    )
    assert f == ListenFilter(tools=True, resource_uris=("file:///a", "file:///b"))
    for bad in (
        {},
        {"notifications": None},
        {"notifications": {"toolsListChanged": "yes"}},
        {"notifications": {"resourceSubscriptions": "file:///a"}},
        None,
    ):
        with pytest.raises(McpError) as info:
            parse_listen_params(bad)
        assert info.value.code == -32602


def test_honoured_filter_follows_capabilities() -> None:
    asked = ListenFilter(tools=True, prompts=True, resources=True, resource_uris=("file:///a",))
    assert honoured_filter(asked, CAPS) == asked
    assert honoured_filter(asked, {"tools": {}}) == ListenFilter()
    partial = honoured_filter(asked, {"tools": {"listChanged": True}, "resources": {}})
    assert partial == ListenFilter(tools=True)


def test_listen_frames_are_valid_and_tagged() -> None:
    honoured = ListenFilter(tools=True, resource_uris=("file:///project/config.json",))
    ack = acknowledgment(1, honoured)
    check("SubscriptionsAcknowledgedNotification", ack)
    assert ack["params"]["notifications"] == {
        "toolsListChanged": True,
        "resourceSubscriptions": ["file:///project/config.json"],
    }
    assert ack["params"]["_meta"] == {SUBSCRIPTION_ID_KEY: 1}
    defs = {
        "tools": "ToolListChangedNotification",
        "prompts": "PromptListChangedNotification",
        "resources": "ResourceListChangedNotification",
        "resource_updated": "ResourceUpdatedNotification",
    }
    for event in (TOOLS, PROMPTS, RESOURCES, CONFIG):
        frame: dict[str, Any] = event_notification("listen-7", event)
        check(defs[event.kind], frame)
        check("ServerNotification", frame)
        assert frame["params"]["_meta"][SUBSCRIPTION_ID_KEY] == "listen-7"
    assert event_notification(1, CONFIG)["params"]["uri"] == CONFIG.uri
    closed = listen_closed_result(1, {"name": "s", "version": "1"})
    check("SubscriptionsListenResult", closed)
    assert closed["_meta"][SERVER_INFO_KEY] == {"name": "s", "version": "1"}
    check("SubscriptionsListenResult", listen_closed_result("x"))
    check("SubscriptionsAcknowledgedNotification", acknowledgment("x", ListenFilter()))


async def test_listen_stream_acknowledges_first_and_tags_every_frame() -> None:
    bus = MemoryBus()
    params = {"_meta": {}, "notifications": {"toolsListChanged": True, "promptsListChanged": True}}
    stream = open_listen(bus, 1, params, {"tools": {"listChanged": True}})
    assert stream.honoured == ListenFilter(tools=True)
    await bus.publish(TOOLS)  # published before the first frame is read: not lost
    await bus.publish(PROMPTS)  # not honoured: never sent
    frames = [await anext(stream), await anext(stream)]
    assert frames[0]["method"] == "notifications/subscriptions/acknowledged"
    assert frames[0]["params"]["notifications"] == {"toolsListChanged": True}
    assert frames[1]["method"] == "notifications/tools/list_changed"
    for frame in frames:
        assert frame["params"]["_meta"][SUBSCRIPTION_ID_KEY] == 1
        check("ServerNotification", frame)
    stream.close()
    assert [f async for f in stream] == []
    assert not stream.overflowed
    check("SubscriptionsListenResult", stream.closed_result({"name": "s", "version": "1"}))
    with pytest.raises(McpError):
        open_listen(bus, 2, {}, {})
