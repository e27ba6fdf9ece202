"""The transport of one stateless 2025-era POST answered with JSON.

In the stateless mode of the handshake era (``StreamableHTTPApp(stateless=True,
json_response=True)``) every POST is served by a fresh session that ends with it. When
the POST carries one request, all that session can send anywhere is that request's
response: there is no SSE stream to carry notifications or requests of its own, no session
to resume and no standalone GET stream. :class:`StatelessJsonTransport` keeps only that
response (encoded once) and drops everything else, as the stream-routing
:class:`~mcpkit.transports.http.session_transport.HttpSessionTransport` does in this mode
(it puts them on a standalone stream that no client can open), at a fraction of its cost
per request.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import orjson

from mcpkit.errors import ConnectionClosed
from mcpkit.jsonrpc import RequestId
from mcpkit.transports.base import MessageSink, Transport, TransportInfo

__all__ = ["StatelessJsonTransport"]

_INFO: Final = TransportInfo(kind="http")


class StatelessJsonTransport(Transport):
    """Collects the encoded response to ``request_id`` for the POST that carried it."""

    info = _INFO

    def __init__(self, request_id: RequestId) -> None:
        self.request_id = request_id
        self.sink: MessageSink | None = None
        #: The encoded response, once the session wrote it.
        self.response: bytes | None = None
        self.closed = False
        self._waiter: asyncio.Future[None] | None = None

    async def start(self, sink: MessageSink) -> None:
        self.sink = sink

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        if self.closed:
            raise ConnectionClosed("The HTTP request has been answered")
        if (
            related_request_id == self.request_id
            and type(message) is dict
            and "method" not in message
            and self.response is None
        ):
            self.response = orjson.dumps(message)
            waiter = self._waiter
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        # Anything else has no stream to travel on in this mode (see the module docstring).

    async def wait(self) -> bytes:
        """The encoded response, once written; CancelledError if the session ends first."""
        response = self.response
        if response is not None:
            return response
        waiter = self._waiter
        if waiter is None:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        await waiter
        assert self.response is not None
        return self.response

    async def close(self) -> None:
        self.close_now()

    def close_now(self) -> None:
        """:meth:`close`, which never waits: the session is told at once."""
        if self.closed:
            return
        self.closed = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.cancel()
        sink = self.sink
        if sink is not None:
            sink.connection_lost(None)
            # Without the session <-> transport cycle both are freed by reference counting
            # as soon as the answer is sent (nothing for the cyclic collector).
            self.sink = None
