"""In-memory transport: a client and a server in one process, through the real session engine.

Messages are encoded to JSON bytes and decoded on the other side, exactly as on a wire, so
anything that would fail to serialize fails here too. Nothing else crosses: each side
receives in a context of its own (an empty :class:`contextvars.Context`), never in the
sender's, so a server reached in memory from inside an HTTP handler (a proxy's in-memory
upstream) does not see that request's authenticated principal, as it would not over HTTP.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from typing import Any

import orjson

from mcpkit.errors import ConnectionClosed
from mcpkit.jsonrpc import RequestId
from mcpkit.transports.base import MessageSink, Transport, TransportInfo

__all__ = ["MemoryTransport"]


class MemoryTransport(Transport):
    """One end of an in-memory connection; make both ends with :meth:`pair`."""

    info = TransportInfo(kind="memory")

    def __init__(self) -> None:
        self._peer: MemoryTransport | None = None
        self._sink: MessageSink | None = None
        self._queue: deque[bytes] = deque()
        self._paused = False
        self._scheduled = False
        self._closed = False
        self._peer_closed = False

    @classmethod
    def pair(cls) -> tuple[MemoryTransport, MemoryTransport]:
        """Two connected ends (conventionally: client end, server end)."""
        a, b = cls(), cls()
        a._peer, b._peer = b, a
        return a, b

    async def start(self, sink: MessageSink) -> None:
        self._sink = sink
        self._schedule()

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        self.write_bytes(orjson.dumps(message))

    def write_bytes(self, data: bytes) -> None:
        """Send raw bytes as one message (tests use it to send malformed input)."""
        peer = self._peer
        if self._closed or self._peer_closed or peer is None:
            raise ConnectionClosed()
        peer._queue.append(data)
        peer._schedule()

    def pause_reading(self) -> None:
        self._paused = True

    def resume_reading(self) -> None:
        self._paused = False
        self._schedule()

    def _schedule(self) -> None:
        ready = self._queue or self._peer_closed
        if ready and not self._scheduled and self._sink is not None and not self._paused:
            self._scheduled = True
            # not the writer's context: what it holds (the principal) is not on the wire
            asyncio.get_running_loop().call_soon(self._flush, context=contextvars.Context())

    def _flush(self) -> None:
        self._scheduled = False
        sink = self._sink
        if sink is None or self._closed:
            return
        queue = self._queue
        while queue and not self._paused:
            sink.receive_bytes(queue.popleft())
        if not queue and self._peer_closed:
            self._closed = True
            sink.connection_lost(None)

    def _on_peer_closed(self) -> None:
        self._peer_closed = True
        self._schedule()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._peer is not None:
            self._peer._on_peer_closed()
        if self._sink is not None:
            self._sink.connection_lost(None)
