"""The hot path's Redis connection (mcpkit.redis.lane) under what goes wrong: an empty
batch, callers cancelled while their batch is in flight or while the connection is being
made, a connection lost between connect and send, error replies mid-batch, replies larger
than one read, and the waiting queue after many cancellations. A real redis-server each."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from mcpkit.redis import RedisBackend
from mcpkit.redis.batch import Batch
from mcpkit.redis.lane import Lane
from tests.scaleout.cluster import Redis

#: Bound on waits that must not hang (a hang fails the test instead of blocking the suite).
GUARD = 20.0

#: A command Redis takes ARGV[1] milliseconds to answer (DEBUG SLEEP is off by default).
BUSY = """
local t = redis.call('TIME')
local until_us = (t[1] * 1000000 + t[2]) + ARGV[1] * 1000
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= until_us
return 1
"""


def lane(url: str, command_timeout: float = 5.0) -> Lane:
    made = Lane.for_url(url, connect_timeout=2.0, command_timeout=command_timeout)
    assert made is not None
    return made


async def test_an_empty_batch_answers_nothing_and_leaves_the_connection_in_step(
    server: Redis,
) -> None:
    backend = RedisBackend(server.url, prefix="review", replica_id="a", command_timeout=5.0)
    try:
        assert await backend.run("PING") == b"PONG"  # the lane is connected
        empty, ping = await asyncio.wait_for(
            asyncio.gather(backend.run_batch(Batch()), backend.run("ECHO", "after")), GUARD
        )
        assert empty == [] and ping == b"after"
        assert await asyncio.wait_for(backend.run("ECHO", "still"), GUARD) == b"still"
    finally:
        await backend.aclose()


async def test_a_cancelled_caller_s_replies_never_reach_the_next_caller(server: Redis) -> None:
    wire = lane(server.url)
    try:
        assert await wire.run([("PING",)]) == [b"PONG"]
        for round_ in range(20):
            # A slow batch (Redis busy 50 ms) whose caller goes away, then one that must get
            # exactly its own replies.
            slow = asyncio.ensure_future(
                wire.run([("EVAL", BUSY, 0, 50), ("ECHO", f"slow-{round_}")])
            )
            await asyncio.sleep(0.01)
            slow.cancel()
            replies = await asyncio.wait_for(
                wire.run([("ECHO", f"mine-{round_}"), ("ECHO", "two")]), GUARD
            )
            assert replies == [f"mine-{round_}".encode(), b"two"]
        assert wire._wire is not None and not wire._wire.waiting  # nothing left queued
    finally:
        wire.close()


async def test_concurrent_first_use_survives_the_connecting_caller_being_cancelled(
    server: Redis,
) -> None:
    wire = lane(server.url)
    try:
        first = asyncio.ensure_future(wire.run([("ECHO", "first")]))
        await asyncio.sleep(0)  # first is making the connection
        others = [asyncio.ensure_future(wire.run([("ECHO", f"o{i}")])) for i in range(3)]
        await asyncio.sleep(0)  # the others wait for that connection
        first.cancel()
        done = await asyncio.wait_for(asyncio.gather(*others, return_exceptions=True), GUARD)
        # Nobody but the cancelled caller is cancelled: the others get their replies.
        assert done == [[b"o0"], [b"o1"], [b"o2"]], done
        assert await wire.run([("PING",)]) == [b"PONG"]
    finally:
        wire.close()


async def test_a_batch_sent_on_a_connection_already_lost_fails_instead_of_hanging(
    server: Redis,
) -> None:
    wire = lane(server.url, command_timeout=60.0)  # the timeout must not be what ends it
    try:
        assert await wire.run([("PING",)]) == [b"PONG"]
        connection = wire._wire
        assert connection is not None
        ids = redis.Redis.from_url(server.url)
        try:
            ids.client_kill_filter(_type="normal", skipme=True)
        finally:
            ids.close()
        for _ in range(200):  # the loss reaches the connection
            if connection.closed:
                break
            await asyncio.sleep(0.01)
        assert connection.closed
        # What a caller holding that connection (it resumed after connecting) does next.
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(connection.send([("PING",)]), GUARD)
        assert await asyncio.wait_for(wire.run([("PING",)]), GUARD) == [b"PONG"]
    finally:
        wire.close()


async def test_error_replies_mid_batch_stay_in_place(server: Redis) -> None:
    wire = lane(server.url)
    try:
        replies = await wire.run(
            [
                ("SET", "s", "text"),
                ("INCR", "s"),
                ("NOSUCHCOMMAND",),
                ("EVAL", "return redis.error_reply('boom')", 0),
                ("EVAL", "return {1, {2, 'x'}, redis.status_reply('fine')}", 0),
                ("GET", "s"),
            ]
        )
        assert replies[0] == b"OK" and replies[5] == b"text"
        assert all(isinstance(r, ResponseError) for r in replies[1:4])
        assert "boom" in str(replies[3])
        assert replies[4] == [1, [2, b"x"], b"fine"]
    finally:
        wire.close()


async def test_replies_larger_than_one_read_are_reassembled(server: Redis) -> None:
    wire = lane(server.url)
    big = bytes(range(256)) * 16384  # 4 MiB, every byte value, \r\n included
    try:
        assert await wire.run([("SET", "big", big)]) == [b"OK"]
        results = await asyncio.wait_for(
            asyncio.gather(
                *(
                    wire.run([("GET", "big"), ("ECHO", f"n{i}"), ("STRLEN", "big")])
                    for i in range(8)
                )
            ),
            GUARD,
        )
        for i, replies in enumerate(results):
            assert replies[0] == big and replies[1] == f"n{i}".encode()
            assert replies[2] == len(big)
    finally:
        wire.close()


async def test_auth_with_a_user_and_select_from_the_url(server: Redis) -> None:
    admin = redis.Redis.from_url(server.url)
    try:
        admin.execute_command("ACL", "SETUSER", "app", "on", ">p@ss word", "~*", "+@all")
        wire = lane(f"redis://app:p%40ss%20word@127.0.0.1:{server.port}/5")
        try:
            assert await wire.run([("ACL", "WHOAMI"), ("SET", "k", "v")]) == [b"app", b"OK"]
        finally:
            wire.close()
        admin.select(5)  # type: ignore[no-untyped-call]
        assert admin.get("k") == b"v"
    finally:
        admin.close()


async def test_redis_restarted_under_load_fails_waiters_and_recovers(server: Redis) -> None:
    wire = lane(server.url)
    try:
        assert await wire.run([("PING",)]) == [b"PONG"]
        stop = False
        wrong: list[object] = []

        async def worker(k: int) -> int:
            ok = 0
            i = 0
            while not stop:
                i += 1
                try:
                    replies = await wire.run([("ECHO", f"{k}:{i}"), ("ECHO", f"{k}/{i}")])
                except RedisConnectionError:
                    await asyncio.sleep(0.01)
                    continue
                if replies != [f"{k}:{i}".encode(), f"{k}/{i}".encode()]:
                    wrong.append(replies)
                ok += 1
            return ok

        workers = [asyncio.ensure_future(worker(k)) for k in range(16)]
        await asyncio.sleep(0.2)
        await asyncio.to_thread(server.stop)
        await asyncio.sleep(0.1)
        await asyncio.to_thread(server.start)
        await asyncio.sleep(0.3)
        stop = True
        counts = await asyncio.wait_for(asyncio.gather(*workers), GUARD)
        assert not wrong, wrong[:3]  # no reply ever reached another caller
        assert all(counts), counts
        assert await wire.run([("PING",)]) == [b"PONG"]
    finally:
        wire.close()


def _hold_port() -> tuple[socket.socket, int]:
    """A listening socket that accepts and never answers (a Redis that hangs)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock, sock.getsockname()[1]


async def test_a_silent_server_times_out_every_waiter_and_the_queue_empties() -> None:
    sock, port = _hold_port()
    try:
        wire = lane(f"redis://127.0.0.1:{port}/0", command_timeout=0.2)
        try:
            results = await asyncio.wait_for(
                asyncio.gather(*(wire.run([("PING",)]) for _ in range(50)), return_exceptions=True),
                GUARD,
            )
            assert all(isinstance(r, RedisTimeoutError) for r in results), results
            assert wire._wire is not None and not wire._wire.waiting
        finally:
            wire.close()
    finally:
        sock.close()


async def test_closing_the_lane_while_it_connects_fails_waiters_as_a_connection_error() -> None:
    sock, port = _hold_port()  # accepts, never answers AUTH: the connect stays in progress
    try:
        wire = lane(f"redis://:pw@127.0.0.1:{port}/0")
        waiters = [asyncio.ensure_future(wire.run([("PING",)])) for _ in range(3)]
        await asyncio.sleep(0.05)  # connected, waiting for AUTH's answer
        assert not any(w.done() for w in waiters)
        wire.close()
        results = await asyncio.wait_for(asyncio.gather(*waiters, return_exceptions=True), GUARD)
        # Nobody was cancelled: each waiter is told the connection is gone.
        assert all(isinstance(r, RedisConnectionError) for r in results), results
    finally:
        sock.close()


async def test_a_unix_socket_url_with_a_database(tmp_path: Path) -> None:
    path = tmp_path / "redis.sock"
    proc = await asyncio.create_subprocess_exec(
        "redis-server",
        "--port",
        "0",
        "--unixsocket",
        str(path),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(tmp_path),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            if path.exists():
                break
            await asyncio.sleep(0.01)
        wire = lane(f"unix://{path}?db=4")
        try:
            assert (await wire.run([("SET", "u", "x")])) == [b"OK"]
            info = (await wire.run([("CLIENT", "INFO")]))[0]
            assert b" db=4 " in info, info
        finally:
            wire.close()
    finally:
        proc.kill()
        await proc.wait()


async def test_a_connection_lost_mid_batch_fails_every_waiter_and_the_next_is_in_step(
    server: Redis,
) -> None:
    wire = lane(server.url)
    try:
        assert await wire.run([("PING",)]) == [b"PONG"]
        # The first reply of this batch is read, then Redis dies in the middle of it.
        half = asyncio.ensure_future(
            wire.run([("SET", "a", "1"), ("EVAL", BUSY, 0, 2000), ("GET", "a")])
        )
        behind = asyncio.ensure_future(wire.run([("ECHO", "behind")]))
        await asyncio.sleep(0.3)
        assert not half.done() and not behind.done()
        await asyncio.to_thread(server.stop)
        for waiter in (half, behind):
            with pytest.raises(RedisConnectionError):
                await asyncio.wait_for(waiter, GUARD)
        await asyncio.to_thread(server.start)
        replies = await asyncio.wait_for(wire.run([("ECHO", "next"), ("GET", "a")]), GUARD)
        assert replies == [b"next", None]  # a new server: nothing of the old batch
    finally:
        wire.close()


async def test_a_server_that_never_answers_auth_fails_the_connect() -> None:
    sock, port = _hold_port()
    try:
        wire = Lane.for_url(
            f"redis://:pw@127.0.0.1:{port}/2", connect_timeout=0.3, command_timeout=5.0
        )
        assert wire is not None
        results = await asyncio.wait_for(
            asyncio.gather(*(wire.run([("PING",)]) for _ in range(3)), return_exceptions=True),
            GUARD,
        )
        assert all(isinstance(r, RedisConnectionError) for r in results), results
        assert all("AUTH/SELECT" in str(r) for r in results), results
        wire.close()
    finally:
        sock.close()
