"""Hostile HTTP clients written on raw asyncio sockets: slow heads, slow bodies, huge and
many headers, connections that open and vanish, sessions abandoned."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

ACCEPT = "application/json, text/event-stream"
INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}'
)


def address(url: str) -> tuple[str, int, str]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port, parts.path


def post_head(url: str, length: int, extra: str = "") -> bytes:
    host, port, path = address(url)
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: {ACCEPT}\r\nContent-Length: {length}\r\n{extra}\r\n"
    ).encode()


async def connect(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port, _ = address(url)
    return await asyncio.open_connection(host, port)


async def until_closed(reader: asyncio.StreamReader, limit: float) -> bytes:
    """What the server sent before closing the connection (bounded by ``limit`` s)."""
    got = b""
    try:
        async with asyncio.timeout(limit):
            while chunk := await reader.read(65536):
                got += chunk
    except ConnectionError:
        pass  # reset: closed as well
    except TimeoutError:
        raise TimeoutError(f"connection still open after {limit}s (got {got[:80]!r})") from None
    return got


async def slow_head(
    url: str, stop: asyncio.Event
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a connection that sends its request head a byte at a time (a slowloris)."""
    reader, writer = await connect(url)
    head = post_head(url, len(INIT))

    async def trickle() -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            for i in range(len(head)):
                if stop.is_set() or writer.is_closing():
                    return
                writer.write(head[i : i + 1])
                await writer.drain()
                await asyncio.sleep(0.2)

    task = asyncio.create_task(trickle())
    writer.trickle = task  # type: ignore[attr-defined]
    return reader, writer


async def slow_body(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a connection that sends a whole head and then only part of its body."""
    reader, writer = await connect(url)
    writer.write(post_head(url, 10_000) + b'{"jsonrpc":')
    await writer.drain()
    return reader, writer


async def huge_header(url: str, size: int) -> bytes:
    """Send one request with a header of ``size`` bytes; the status line answered (or b"")."""
    reader, writer = await connect(url)
    try:
        writer.write(post_head(url, len(INIT), extra=f"X-Big: {'a' * size}\r\n") + INIT)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        async with asyncio.timeout(20):
            return await reader.readline()
    except ConnectionError:
        return b""
    finally:
        writer.close()


async def many_headers(url: str, count: int) -> bytes:
    reader, writer = await connect(url)
    try:
        extra = "".join(f"X-H{i}: {i}\r\n" for i in range(count))
        writer.write(post_head(url, len(INIT), extra=extra) + INIT)
        await writer.drain()
        async with asyncio.timeout(20):
            return await reader.readline()
    finally:
        writer.close()


async def vanish(url: str, cut: int) -> None:
    """Open a connection, send the first ``cut`` bytes of an initialize and hang up."""
    _, writer = await connect(url)
    data = post_head(url, len(INIT)) + INIT
    writer.write(data[:cut])
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
