"""A request body that trickles (a byte every 100 ms) does not keep its connection: past a
grace period the body must arrive at a minimum rate, else 408 and the connection closes;
a body arriving slowly but steadily is served."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlsplit

from mcpkit import Server
from mcpkit.transports.http import running

BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "slow", "version": "1"},
            "padding": "x" * 1500,
        },
    }
).encode()


async def post_in_pieces(base: str, piece: int, pause: float) -> tuple[bytes, bool]:
    """POST ``BODY`` ``piece`` bytes at a time, ``pause`` seconds apart (stopping once the
    server answers): the answer, and whether the server closed the connection after it."""
    parts = urlsplit(base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    got = b""
    try:
        writer.write(
            f"POST /mcp HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(BODY)}\r\n"
            "\r\n".encode()
        )
        for start in range(0, len(BODY), piece):
            writer.write(BODY[start : start + piece])
            await writer.drain()
            try:
                got = await asyncio.wait_for(reader.read(65536), pause)
            except TimeoutError:
                continue
            break  # answered (or closed)
        while b"}" not in got and not reader.at_eof():
            got += await asyncio.wait_for(reader.read(65536), 10)
        try:
            rest = await asyncio.wait_for(reader.read(65536), 1)
        except TimeoutError:
            return got, False  # still open
        return got + rest, rest == b""
    finally:
        writer.close()


async def test_a_trickling_body_is_answered_408_and_its_connection_closed() -> None:
    # No total timeout to hide behind: only the rate ends it.
    asgi = Server("rate").http_app(body_timeout=None, body_rate_grace=0.5)
    async with running(asgi) as base:
        got, closed = await asyncio.wait_for(post_in_pieces(base, 1, 0.1), 30)
    await asgi.aclose()
    assert got.startswith(b"HTTP/1.1 408")
    assert b"connection: close" in got.lower() and closed
    assert b"the body arrived too slowly" in got


async def test_a_slow_but_steady_body_is_served() -> None:
    asgi = Server("rate").http_app(body_timeout=None, body_rate_grace=0.5)
    async with running(asgi) as base:
        got, _ = await asyncio.wait_for(post_in_pieces(base, 400, 0.2), 30)  # ~2 KB/s
    await asgi.aclose()
    assert got.startswith(b"HTTP/1.1 200"), got[:200]
