"""The list changes of ``ctx.enable``/``ctx.disable`` reach the caller that made them, and only
it: a 2025 session as its own notifications, a 2026-07-28 caller on its
``subscriptions/listen`` streams (the same connection in memory, the same principal over HTTP,
on another replica through a shared bus)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from mcpkit import Client, Server
from mcpkit.bus import BusEvent
from mcpkit.redis import RedisBackend
from mcpkit.transports.http import running
from tests.scaleout.cluster import Redis, free_port
from tests.security.tenants import SECRET, resource_server
from tests.server.test_visibility import ERAS, visible_server

LISTS = ("tools", "prompts", "resources")


async def next_method(events: Any) -> str:
    event = await asyncio.wait_for(anext(events), 10)
    return str(event.method)


async def hear_lists(events: Any) -> set[str]:
    """The three list changes of a hide naming no kinds (each at least once)."""
    waiting = {f"notifications/{k}/list_changed" for k in LISTS}
    heard = set()
    while waiting:
        method = await next_method(events)
        heard.add(method)
        waiting.discard(method)
    return heard


async def only_the_broadcast(app: Server, events: Any) -> None:
    """Nothing of another caller's change reached ``events``: a change announced to everyone
    after it is the first thing this stream hears (the bus keeps the order)."""
    app.notify_list_changed("prompts")
    assert await next_method(events) == "notifications/prompts/list_changed"


@pytest.mark.parametrize("era", ERAS)
async def test_in_memory_the_caller_hears_its_change_and_no_one_else(era: str) -> None:
    app = visible_server()
    async with (
        Client(app, era=era) as a,
        Client(app, era=era) as b,
        a.listen(tools=True, prompts=True, resource_list=True) as heard_a,
        b.listen(tools=True, prompts=True, resource_list=True) as heard_b,
    ):
        await a.list_tools()  # a round trip: a 2025 session is operating before the change
        await b.list_tools()
        assert (await a.call_tool("hide", {"names": ["status"]})).text == "hidden"
        assert await hear_lists(heard_a) == {f"notifications/{k}/list_changed" for k in LISTS}
        assert "status" not in {t.name for t in await a.list_tools()}
        await only_the_broadcast(app, heard_b)


@contextlib.asynccontextmanager
async def served(app: Server) -> AsyncIterator[str]:
    async with running(app.http_app()) as base:
        yield f"{base}/mcp"


async def test_over_http_the_principals_listen_streams_hear_it() -> None:
    app = visible_server(auth=resource_server())
    alice = {"authorization": "Bearer alice-token"}
    mallory = {"authorization": "Bearer mallory-token"}
    async with (
        served(app) as url,
        Client(url, era="2026-07-28", headers=alice) as listening,
        Client(url, era="2026-07-28", headers=alice) as acting,
        Client(url, era="2026-07-28", headers=mallory) as other,
        listening.listen(tools=True, prompts=True, resource_list=True) as heard_alice,
        other.listen(tools=True, prompts=True, resource_list=True) as heard_mallory,
    ):
        await acting.call_tool("show", {"names": [], "tags": ["admin"]})
        assert len(await hear_lists(heard_alice)) == 3
        await only_the_broadcast(app, heard_mallory)


def test_an_event_for_one_caller_crosses_a_shared_bus_as_json() -> None:
    event = BusEvent.list_changed("tools", "abc")
    assert BusEvent.from_json(event.to_json()) == event
    plain = BusEvent.list_changed("tools")
    assert b"audience" not in plain.to_json()  # what older replicas read, unchanged
    assert BusEvent.from_json(plain.to_json()) == plain


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    redis = Redis(tmp_path_factory.mktemp("redis"))
    redis.start()
    try:
        yield redis.url
    finally:
        redis.stop()


async def test_on_replicas_the_change_reaches_the_listen_stream_on_another(
    redis_url: str,
) -> None:
    prefix = f"visl{free_port()}"
    alice = {"authorization": "Bearer alice-token"}
    mallory = {"authorization": "Bearer mallory-token"}
    async with contextlib.AsyncExitStack() as stack:
        urls, apps = [], []
        for i in range(3):
            store = RedisBackend(redis_url, prefix=prefix, replica_id=f"r{i}", secret=SECRET)
            stack.push_async_callback(store.aclose)
            app = visible_server(store=store, auth=resource_server(), session_visibility=True)
            apps.append(app)
            urls.append(await stack.enter_async_context(running(app.http_app())) + "/mcp")
        enter = stack.enter_async_context
        listening = await enter(Client(urls[1], era="2026-07-28", headers=alice))
        other = await enter(Client(urls[2], era="2026-07-28", headers=mallory))
        acting = await enter(Client(urls[0], era="2026-07-28", headers=alice))
        heard_alice = await enter(listening.listen(tools=True, prompts=True, resource_list=True))
        heard_mallory = await enter(other.listen(tools=True, prompts=True, resource_list=True))
        await acting.call_tool("hide", {"names": [], "tags": ["admin"]})
        assert len(await hear_lists(heard_alice)) == 3
        await only_the_broadcast(apps[0], heard_mallory)
