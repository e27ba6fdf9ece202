"""A slow or vanished client never grows server memory without bound (real sockets).

A client that stops reading its SSE stream is dropped once its connection's outgoing buffer
passes ``max_stream_buffer`` (what it missed stays in the bounded event store, so it may
resume); a client that vanishes is detached, its stream's further messages go only to the
bounded store, and its idle session is reaped with everything it held.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import httpx

from mcpkit.transports.http import HttpSessionTransport, MemoryEventStore
from tests.http import raw
from tests.http import server as test_server
from tests.http.conftest import call, text_of

BUFFER = 64 * 1024
RETAINED = 32


def watch_detach(transport: HttpSessionTransport) -> asyncio.Event:
    """An event set once the transport has no open connection left."""
    released = asyncio.Event()
    detach = transport.detach

    def spy(conn: Any) -> None:
        detach(conn)
        if transport.connections == 0:
            released.set()

    transport.detach = spy  # type: ignore[method-assign]
    return released


def watch_close(transport: HttpSessionTransport) -> asyncio.Event:
    """An event set when the session's transport is closed (ended, expired)."""
    closed = asyncio.Event()
    on_close = transport._on_close

    def spy(t: Any) -> None:
        on_close(t)
        closed.set()

    transport._on_close = spy
    return closed


async def raw_request(url: str, head: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(head)
    await writer.drain()
    return reader, writer


def get_head(url: str, sid: str) -> bytes:
    parts = urlsplit(url)
    return (
        f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Accept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n"
        "MCP-Protocol-Version: 2025-11-25\r\n\r\n"
    ).encode()


def note(i: int, size: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": {"i": i, "pad": "x" * size}},
    }


async def test_a_client_that_stops_reading_is_dropped_not_buffered(
    serve_app: Any, connect: Any
) -> None:
    store = MemoryEventStore(max_events_per_session=RETAINED)
    served = await serve_app(max_stream_buffer=BUFFER, event_store=store, check_received=False)
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, served.url)
    transport: HttpSessionTransport = served.app.sessions[sid]
    released = watch_detach(transport)
    reader, writer = await raw_request(served.url, get_head(served.url, sid))
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        conn = transport._standalone.conn
        assert conn is not None
        # From now on the client reads nothing. The server sends 32 MiB at it, yielding to
        # the loop between messages so the connection really writes into the socket.
        peak = 0
        sent = 0
        while sent < 32 * 1024 * 1024:
            message = note(sent, 8 * 1024)
            transport.write(message)
            sent += 8 * 1024
            peak = max(peak, conn.size)
            await asyncio.sleep(0)
            if conn.aborted:
                break
        assert conn.aborted, "a client that reads nothing must be dropped"
        assert peak <= BUFFER and conn.size == 0 and not conn.frames
        # The handler let go of the connection; later messages go to the bounded store and a
        # bounded backlog, not to a buffer that grows.
        await asyncio.wait_for(released.wait(), 10)
        assert transport.connections == 0 and transport._standalone.conn is None
        for i in range(2000):
            transport.write(note(i, 1024))
        assert store.count(sid) <= RETAINED
        assert len(transport._backlog) <= transport._backlog.maxlen  # type: ignore[operator]
    finally:
        writer.close()
    # The server stays healthy, and the dropped client can come back for what is retained.
    healthy = await connect(served.url)
    assert text_of(await call(healthy, "echo", text="fine")) == "fine"
    events = store.replay(sid, transport._standalone.key, 0)
    assert events is not None and 0 < len(events) <= RETAINED


async def test_a_vanished_client_is_detached_and_its_session_reaped(serve_app: Any) -> None:
    store = MemoryEventStore(max_events_per_session=RETAINED)
    served = await serve_app(
        event_store=store,
        keepalive_interval=0.05,
        session_idle_timeout=0.3,
        check_received=False,
    )
    test_server.EVENTS["gate"] = gate = asyncio.Event()
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, served.url)
    transport: HttpSessionTransport = served.app.sessions[sid]
    released, closed = watch_detach(transport), watch_close(transport)
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{},"_meta":{"progressToken":"p"}}}'  # noqa: E501
    parts = urlsplit(served.url)
    reader, writer = await raw_request(
        served.url,
        (
            f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        + body,
    )
    seen = b""
    while b'"progress":1' not in seen:
        chunk = await reader.read(4096)
        assert chunk, "the stream ended early"
        seen += chunk
    # A GET stream too, then the client vanishes without a word.
    get_reader, get_writer = await raw_request(served.url, get_head(served.url, sid))
    assert (await get_reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
    assert transport.connections == 2
    writer.transport.abort()
    get_writer.transport.abort()
    # Both connections are noticed as gone (the POST one at its next keep-alive) and let go.
    await asyncio.wait_for(released.wait(), 10)
    assert all(s.conn is None for s in transport._streams.values())
    # The request still finishes; what it sends goes only to the bounded store.
    for i in range(500):
        transport.write(note(i, 256))
    assert store.count(sid) <= RETAINED
    gate.set()
    # With no connection and nothing in flight the session is idle: reaped, memory freed.
    await asyncio.wait_for(closed.wait(), 10)
    assert sid not in served.app.sessions
    assert transport.closed and store.count(sid) == 0 and store.count() == 0
    assert not transport._streams and not transport._backlog and not transport._by_request
