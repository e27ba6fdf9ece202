"""The hot path's Redis connection (mcpkit.redis.lane) against a redis-server of its own:
replies matched to their batches under concurrency, error replies in place, the database
and password of the URL, a lost connection, a server that stops answering."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from mcpkit.redis import RedisBackend
from mcpkit.redis.batch import Batch
from mcpkit.redis.lane import Lane
from tests.scaleout.cluster import Redis


@pytest.fixture
async def plain(server: Redis) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(server.url)
    try:
        yield client
    finally:
        await client.aclose()


def lane(url: str, command_timeout: float = 2.0) -> Lane:
    made = Lane.for_url(url, connect_timeout=1.0, command_timeout=command_timeout)
    assert made is not None
    return made


def test_only_plain_servers_get_a_lane() -> None:
    for url in ("redis://127.0.0.1:6379/0", "redis://u:p@h:1/2", "unix:///tmp/r.sock?db=3"):
        assert Lane.for_url(url, connect_timeout=1, command_timeout=1) is not None, url
    for url in ("rediss://h:1/0", "redis://h:1/0?socket_keepalive=true"):
        assert Lane.for_url(url, connect_timeout=1, command_timeout=1) is None, url


async def test_concurrent_batches_each_get_their_replies(server: Redis) -> None:
    wire = lane(server.url)
    try:

        async def one(k: int) -> None:
            for i in range(20):
                replies = await wire.run(
                    [("SET", f"k{k}", f"{k}-{i}"), ("GET", f"k{k}"), ("ECHO", f"{k}/{i}")]
                )
                assert replies == [b"OK", f"{k}-{i}".encode(), f"{k}/{i}".encode()]

        await asyncio.gather(*(one(k) for k in range(30)))
        replies = await wire.run([("INCR", "n"), ("HGET", "n", "x"), ("INCR", "n")])
        assert replies[0] == 1 and replies[2] == 2
        assert isinstance(replies[1], ResponseError) and "WRONGTYPE" in str(replies[1])
    finally:
        wire.close()


async def test_the_database_and_password_of_the_url(server: Redis, plain: aioredis.Redis) -> None:
    await plain.config_set("requirepass", "s3cret")
    await plain.auth("s3cret")
    url = f"redis://:s3cret@127.0.0.1:{server.port}/3"
    wire = lane(url)
    try:
        assert await wire.run([("SET", "where", "db3")]) == [b"OK"]
    finally:
        wire.close()
    assert await plain.get("where") is None  # database 0
    await plain.select(3)  # type: ignore[no-untyped-call]
    assert await plain.get("where") == b"db3"
    refused = lane(f"redis://:wrong@127.0.0.1:{server.port}/0")
    with pytest.raises(RedisConnectionError, match="refused"):
        await refused.run([("PING",)])
    refused.close()


async def test_a_lost_connection_fails_its_batches_and_the_next_reconnects(
    server: Redis,
) -> None:
    wire = lane(server.url)
    try:
        assert await wire.run([("PING",)]) == [b"PONG"]
        server.stop()
        with pytest.raises(RedisConnectionError):
            for _ in range(100):  # the loss is seen on the next batch at the latest
                await wire.run([("PING",)])
                await asyncio.sleep(0.02)
        server.start()
        assert await wire.run([("PING",)]) == [b"PONG"]
    finally:
        wire.close()


async def test_a_server_that_stops_answering_times_out(
    server: Redis, plain: aioredis.Redis
) -> None:
    wire = lane(server.url, command_timeout=0.3)
    try:
        assert await wire.run([("PING",)]) == [b"PONG"]
        await plain.client_pause(1500)
        with pytest.raises(RedisTimeoutError):
            await wire.run([("PING",)])
        await plain.client_unpause()
        assert await wire.run([("PING",)]) == [b"PONG"]  # on a new connection
    finally:
        wire.close()


async def test_a_backend_runs_batches_on_its_lane(server: Redis) -> None:
    backend = RedisBackend(server.url, prefix="lane", replica_id="a")
    try:
        batch = Batch()
        batch.hset("h", "f", "v")
        batch.eval("return redis.call('HGET', KEYS[1], ARGV[1])", 1, "h", "f")
        batch.eval("return redis.error_reply('nope')", 0)
        replies = await backend.run_batch(batch)
        assert replies[:2] == [1, b"v"]
        assert isinstance(replies[2], ResponseError) and "nope" in str(replies[2])
    finally:
        await backend.aclose()
