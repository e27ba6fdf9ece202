"""The pub/sub router's session channels (mcpkit.redis.backend.Router) on a real
redis-server: ``subscribe_session`` returns only once the channel is subscribed, for every
caller (a resumed stream reads the event log right after it, so a message published in
between must be heard), and a session channel dropped and taken again at once stays
subscribed."""

from __future__ import annotations

import asyncio

import pytest
import redis

from mcpkit.redis import RedisBackend
from tests.scaleout.cluster import Redis

GUARD = 20.0


def publish_now(url: str, channel: str, data: bytes) -> int:
    """Publish from another connection while this process's loop is held (so the router
    cannot send anything meanwhile); the number of subscribers that got it."""
    client = redis.Redis.from_url(url)
    try:
        return int(client.publish(channel, data))
    finally:
        client.close()


async def test_every_caller_returns_only_once_the_channel_is_subscribed(server: Redis) -> None:
    backend = RedisBackend(server.url, prefix="review", replica_id="a")
    heard: list[bytes] = []
    arrived = asyncio.Event()

    def first(data: bytes) -> None:
        pass

    def second(data: bytes) -> None:
        heard.append(data)
        arrived.set()

    try:
        router = backend.router
        one = asyncio.ensure_future(router.subscribe_session("s1", first))
        two = asyncio.ensure_future(router.subscribe_session("s1", second))
        await asyncio.wait_for(two, GUARD)
        # The second caller is back: a message published now must reach it.
        assert publish_now(server.url, backend.keys.session_channel("s1"), b"E k 1 x") == 1
        await asyncio.wait_for(one, GUARD)
        await asyncio.wait_for(arrived.wait(), GUARD)
        assert heard == [b"E k 1 x"]
    finally:
        await backend.aclose()


async def test_a_channel_dropped_and_taken_again_at_once_stays_subscribed(server: Redis) -> None:
    backend = RedisBackend(server.url, prefix="review", replica_id="a")
    heard: list[bytes] = []
    arrived = asyncio.Event()

    def old(data: bytes) -> None:
        pass

    def new(data: bytes) -> None:
        heard.append(data)
        arrived.set()

    try:
        await backend.ready()
        router = backend.router
        await asyncio.wait_for(router.subscribe_session("s2", old), GUARD)
        router.unsubscribe_session("s2", old)  # the last view of the session here ends...
        async with asyncio.timeout(GUARD):  # (in this task, as a request subscribes)
            await router.subscribe_session("s2", new)  # ...and a new one begins
        for _ in range(20):  # whatever the router still had to send, it has sent
            await asyncio.sleep(0.01)
        channel = backend.keys.session_channel("s2")
        assert publish_now(server.url, channel, b"E k 2 y") == 1
        await asyncio.wait_for(arrived.wait(), GUARD)
        assert heard == [b"E k 2 y"]
    finally:
        await backend.aclose()


async def test_a_channel_dropped_for_good_is_unsubscribed(server: Redis) -> None:
    backend = RedisBackend(server.url, prefix="review", replica_id="a")

    def gone(data: bytes) -> None:
        pass

    try:
        await backend.ready()
        router = backend.router
        channel = backend.keys.session_channel("s3")
        async with asyncio.timeout(GUARD):
            await router.subscribe_session("s3", gone)
            assert publish_now(server.url, channel, b"x") == 1
            router.unsubscribe_session("s3", gone)
            for _ in range(1000):
                if publish_now(server.url, channel, b"x") == 0:
                    break
                await asyncio.sleep(0.01)
            assert publish_now(server.url, channel, b"x") == 0
    finally:
        await backend.aclose()


async def test_a_subscription_given_up_leaves_no_channel_behind(server: Redis) -> None:
    """A request cancelled while its view subscribes the session's channel (the client
    went away): the channel is not kept subscribed for a listener that no longer exists."""
    backend = RedisBackend(server.url, prefix="review", replica_id="a")

    def gone(data: bytes) -> None:
        pass

    try:
        router = backend.router
        waiting = asyncio.ensure_future(router.subscribe_session("s4", gone))
        await asyncio.sleep(0)  # waiting for the router's connection
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await asyncio.wait_for(backend.ready(), GUARD)
        channel = backend.keys.session_channel("s4")
        fixed = backend.keys.replica_channel("a")
        for _ in range(50):
            assert publish_now(server.url, fixed, b"x") == 1  # the router is subscribed...
            assert publish_now(server.url, channel, b"x") == 0  # ...but not to this one
            await asyncio.sleep(0.01)
    finally:
        await backend.aclose()


async def test_the_same_listener_subscribing_twice_survives_the_first_being_cancelled(
    server: Redis,
) -> None:
    """One view subscribing its session's channel from two requests at once (the same
    listener), the first cancelled: the second still hears the channel."""
    backend = RedisBackend(server.url, prefix="review", replica_id="a")
    heard: list[bytes] = []
    arrived = asyncio.Event()

    def view(data: bytes) -> None:
        heard.append(data)
        arrived.set()

    try:
        router = backend.router
        first = asyncio.ensure_future(router.subscribe_session("s5", view))
        second = asyncio.ensure_future(router.subscribe_session("s5", view))
        await asyncio.sleep(0)  # both waiting: the first for the router, the second for it
        first.cancel()
        await asyncio.wait_for(second, GUARD)
        assert publish_now(server.url, backend.keys.session_channel("s5"), b"E k 5 z") == 1
        await asyncio.wait_for(arrived.wait(), GUARD)
        assert heard == [b"E k 5 z"]
    finally:
        await backend.aclose()
