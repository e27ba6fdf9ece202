"""Hostile clients against a server subprocess: slow request heads, slow bodies, huge and
many headers, connection churn, abandoned sessions, readers that never read (SSE and
stdio). The server stays responsive for others, drops the hostile connections in bounded
time, and its file descriptors and memory (RSS, from /proc) come back near the baseline.

Thresholds, from measurement on this machine: after each attack the file descriptors are
back to the baseline (+2 for sockets still closing) and RSS is within 16 MiB of it
(measured: +0.5 to +2 MiB; CPython keeps some freed arenas, so "exactly" is not a fair
bar); a never-read stdio server grows by at most 32 MiB (measured: ~6 MiB)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator

import httpx
import orjson
import pytest

from tests.reliability import hostile
from tests.reliability.procs import (
    ROOT,
    HttpServer,
    env,
    http_server,
    rss_kb,
    stdio_command,
)

RSS_SLACK_KB = 16 * 1024
#: Seconds a well-behaved exchange may take meanwhile (a loaded 2-core machine included).
LEGIT_BOUND = 5
FD_SLACK = 2


def fresh_connections() -> httpx.AsyncClient:
    """A client that opens a connection per request: the server closes idle keep-alive
    connections after 1 s here, and a pooled one reused just as it closes fails the read."""
    return httpx.AsyncClient(timeout=10, limits=httpx.Limits(max_keepalive_connections=0))


@pytest.fixture
async def server() -> AsyncIterator[HttpServer]:
    async with http_server(
        "--head-timeout",
        "1",
        "--body-timeout",
        "1",
        "--keep-alive",
        "1",
        "--slow-reader-timeout",
        "1",
        "--max-stream-buffer",
        str(256 * 1024),
    ) as served:
        async with fresh_connections() as http:
            await legit_call(http, served.url)  # warm: the first session's imports
        yield served


async def legit_call(http: httpx.AsyncClient, url: str, text: str = "hi") -> float:
    """A whole well-behaved exchange (new session, one call); its duration in seconds."""
    started = time.monotonic()
    headers = {"content-type": "application/json", "accept": hostile.ACCEPT}
    r = await http.post(url, content=hostile.INIT, headers=headers)
    assert r.status_code == 200, r.text
    headers["mcp-session-id"] = r.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-11-25"
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post(url, json=note, headers=headers)).status_code == 202
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}},
    }
    r = await http.post(url, json=call, headers=headers)
    assert r.status_code == 200 and f'"text":"{text}"' in r.text, r.text
    assert (await http.delete(url, headers=headers)).status_code == 200
    return time.monotonic() - started


async def settled(served: HttpServer, fds: int, limit: float = 5.0) -> int:
    """Wait (bounded) for the descriptors to come back; the count reached."""
    deadline = time.monotonic() + limit
    while served.fd_count() > fds + FD_SLACK and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.1)
    return served.fd_count()


async def test_slow_heads_and_slow_bodies_are_dropped_and_others_are_served(
    server: HttpServer,
) -> None:
    rss0, fds0 = server.rss_kb(), server.fd_count()
    stop = asyncio.Event()
    async with fresh_connections() as http:
        heads = [await hostile.slow_head(server.url, stop) for _ in range(200)]
        bodies = [await hostile.slow_body(server.url) for _ in range(50)]
        assert server.fd_count() >= fds0 + 200
        # Others are served while the attack is on.
        assert await legit_call(http, server.url) < LEGIT_BOUND
        started = time.monotonic()
        answers = await asyncio.gather(*(hostile.until_closed(r, 10) for r, _ in heads + bodies))
        elapsed = time.monotonic() - started
        stop.set()
        for _, writer in heads + bodies:
            writer.close()
        assert elapsed < 10
        assert all(a.startswith(b"HTTP/1.1 408") for a in answers[:200]), set(
            a[:20] for a in answers
        )
        assert all(a.startswith(b"HTTP/1.1 408") for a in answers[200:]), set(
            a[:20] for a in answers
        )
        assert await settled(server, fds0) <= fds0 + FD_SLACK
        assert server.rss_kb() - rss0 < RSS_SLACK_KB
        assert await legit_call(http, server.url) < LEGIT_BOUND


async def test_a_body_that_keeps_trickling_after_its_408_is_cut_off(server: HttpServer) -> None:
    reader, writer = await hostile.slow_body(server.url)

    async def trickle() -> None:
        with contextlib.suppress(ConnectionError):
            for _ in range(40):
                await asyncio.sleep(0.2)
                writer.write(b" ")
                await writer.drain()

    task = asyncio.create_task(trickle())
    try:
        answer = await hostile.until_closed(reader, 5)
        assert answer.startswith(b"HTTP/1.1 408") and b"connection: close" in answer.lower()
    finally:
        task.cancel()
        writer.close()


def refused(status: bytes) -> bool:
    """431 from the app, 400 from the ASGI server's parser, 408 when the head did not arrive
    whole within head_timeout (16 MiB heads on a loaded machine), or the connection closed."""
    return status == b"" or status.startswith((b"HTTP/1.1 431", b"HTTP/1.1 400", b"HTTP/1.1 408"))


async def huge_and_many_headers(url: str) -> None:
    """One round of the attack: single headers of 64 KiB + 1, 1 MiB and 8 MiB, sixteen
    concurrent 16 MiB headers, and 500 headers; every one refused."""
    for size in (64 * 1024 + 1, 1024 * 1024, 8 * 1024 * 1024):
        status = await hostile.huge_header(url, size)
        # Refused: 431 from the app, or the ASGI server closing the connection.
        assert refused(status), status
    statuses = await asyncio.gather(
        *(hostile.huge_header(url, 16 * 1024 * 1024) for _ in range(16))
    )
    assert all(refused(s) for s in statuses), set(statuses)
    assert (await hostile.many_headers(url, 500)).startswith(b"HTTP/1.1 431")


async def test_huge_and_many_headers_are_refused_and_memory_comes_back(server: HttpServer) -> None:
    fds0 = server.fd_count()
    async with fresh_connections() as http:
        # What the first round leaves is the allocator's high-water mark (glibc keeps freed
        # heap); a second round of the same attack must not add to it.
        await huge_and_many_headers(server.url)
        assert await legit_call(http, server.url) < LEGIT_BOUND
        rss1 = server.rss_kb()
        await huge_and_many_headers(server.url)
        assert await legit_call(http, server.url) < LEGIT_BOUND
        assert await settled(server, fds0) <= fds0 + FD_SLACK
        assert server.rss_kb() - rss1 < RSS_SLACK_KB, (rss1, server.rss_kb())


async def test_connection_churn_and_abandoned_sessions_leave_nothing_behind(
    server: HttpServer,
) -> None:
    rss0, fds0 = server.rss_kb(), server.fd_count()
    cut_points = range(0, 400, 7)
    async with fresh_connections() as http:
        for round_ in range(10):
            await asyncio.gather(*(hostile.vanish(server.url, c + round_) for c in cut_points))
        # Sessions opened and abandoned (never deleted), each on its own connection.
        headers = {"content-type": "application/json", "accept": hostile.ACCEPT}
        for _ in range(5):
            async with fresh_connections() as one:
                sids = await asyncio.gather(
                    *(
                        one.post(server.url, content=hostile.INIT, headers=headers)
                        for _ in range(40)
                    )
                )
                assert all(r.status_code == 200 for r in sids)
        assert await legit_call(http, server.url) < LEGIT_BOUND
    assert await settled(server, fds0) <= fds0 + FD_SLACK
    # 200 abandoned sessions cost well under 16 MiB (measured: about 10 KB each).
    assert server.rss_kb() - rss0 < RSS_SLACK_KB, (rss0, server.rss_kb())


async def open_never_reading(url: str, sid: str, body: bytes) -> socket.socket:
    """A raw connection that posts ``body`` in session ``sid`` and never reads."""
    host, port, path = hostile.address(url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, port))
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: {hostile.ACCEPT}\r\nMcp-Session-Id: {sid}\r\nMcp-Protocol-Version: 2025-11-25\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    await asyncio.get_running_loop().sock_sendall(sock, head + body)
    return sock


async def stall_sse_readers(served: HttpServer, http: httpx.AsyncClient, n: int) -> int:
    """``n`` sessions each call a tool that sends 30 x 1 MB and never read; once dropped,
    the sessions are deleted. The RSS while they are stalled, in KiB."""
    headers = {"content-type": "application/json", "accept": hostile.ACCEPT}
    socks: list[socket.socket] = []
    sids: list[str] = []
    for i in range(n):
        r = await http.post(served.url, content=hostile.INIT, headers=headers)
        sids.append(r.headers["mcp-session-id"])
        call = {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "burst", "arguments": {"count": 30, "size": 1024 * 1024}},
        }
        socks.append(await open_never_reading(served.url, sids[-1], orjson.dumps(call)))
    await asyncio.sleep(0.5)
    stalled = served.rss_kb()
    assert await legit_call(http, served.url) < LEGIT_BOUND
    await asyncio.sleep(1.0)  # past slow_reader_timeout: dropped
    for sock in socks:
        sock.close()
    for sid in sids:
        session = {**headers, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        assert (await http.delete(served.url, headers=session)).status_code == 200
    return stalled


async def test_sse_readers_that_never_read_are_dropped_and_memory_stays_bounded(
    server: HttpServer,
) -> None:
    rss0, fds0 = server.rss_kb(), server.fd_count()
    async with fresh_connections() as http:
        first = await stall_sse_readers(server, http, 10)
        # A stalled stream holds its buffer (256 KiB), what the kernel took and the events
        # kept for its resumption: measured about 9 MiB each, not the 30 MB its tool sends.
        assert first - rss0 < 10 * 16 * 1024, (rss0, first)
        assert await settled(server, fds0) <= fds0 + FD_SLACK
        after_first = server.rss_kb()
        # The same attack again costs nothing more: what stays after the first is the
        # allocator's (glibc keeps freed heap), not a leak.
        second = await stall_sse_readers(server, http, 10)
        assert await settled(server, fds0) <= fds0 + FD_SLACK
        assert await legit_call(http, server.url) < LEGIT_BOUND
    final = server.rss_kb()
    # Measured (KiB): baseline ~50,600, stalled ~140,400, after 119,000-139,000, stalled
    # again 143,000-157,500 (how many 1 MB messages the kernel took before each producer
    # paused varies with load), after <= that. A leak would add a whole round (~90 MiB)
    # again; timing noise stays well under 40 % of one.
    noise = 0.4 * (first - rss0)
    assert second - first < noise, (rss0, first, after_first, second)
    assert final - first < noise, (rss0, first, after_first, second, final)


async def test_a_stdio_client_that_never_reads_pauses_the_server_and_loses_nothing() -> None:
    cmd = stdio_command()
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env(),
        cwd=str(ROOT),
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        init = {
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        proc.stdin.write(orjson.dumps(init) + b"\n")
        assert b'"init"' in await asyncio.wait_for(proc.stdout.readline(), 20)
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        await proc.stdin.drain()
        rss0 = rss_kb(proc.pid)
        # Write pings (and garbage, which is answered too) without reading, for 4 s at most.
        sent = 0
        deadline = time.monotonic() + 4
        with contextlib.suppress(TimeoutError):
            while sent < 100_000 and time.monotonic() < deadline:
                proc.stdin.write(
                    b"".join(
                        b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i
                        for i in range(sent, sent + 1000)
                    )
                )
                proc.stdin.write(b"garbage\n")
                async with asyncio.timeout(max(0.01, deadline - time.monotonic())):
                    await proc.stdin.drain()
                sent += 1000
        grown = rss_kb(proc.pid) - rss0
        assert grown < 32 * 1024, grown
        assert sent < 100_000, "the server read everything: stdin never filled"
        # Now read: every ping written whole is answered, then the peer is still usable.
        answered = 0
        errors = 0
        async with asyncio.timeout(30):
            while answered < sent:
                line = await proc.stdout.readline()
                assert line, "server ended"
                msg = orjson.loads(line)
                if "result" in msg:
                    answered += 1
                else:
                    assert msg["error"]["code"] == -32700
                    errors += 1
        assert answered == sent and errors == sent // 1000
    finally:
        proc.stdin.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 10)
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
