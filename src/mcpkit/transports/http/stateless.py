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

The serving functions of the stateless modes sit here too: :func:`serve_stateless` (a POST of
one message, answered as JSON by :func:`serve_stateless_json` or as an SSE stream) and
:func:`fresh_session` (the session of a stateless batch).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit import versions
from mcpkit.errors import ConnectionClosed
from mcpkit.jsonrpc import MessageKind, RequestId
from mcpkit.transports.base import MessageSink, Transport, TransportInfo
from mcpkit.transports.http.asgi import NO_BODY, Receive, Send, respond, respond_json
from mcpkit.transports.http.session_transport import HttpSessionTransport

if TYPE_CHECKING:
    from mcpkit.transports.http.app_view import HttpApp
    from mcpkit.versions import ProtocolVersion

__all__ = [
    "DEFAULT_VERSION",
    "StatelessJsonTransport",
    "fresh_session",
    "serve_stateless",
    "serve_stateless_json",
]

_INFO: Final = TransportInfo(kind="http")
_JSON_TYPE: Final = (b"content-type", b"application/json")
#: The revision of a stateless request that names none (no ``MCP-Protocol-Version``).
DEFAULT_VERSION: Final = versions.V2025_03_26


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


async def fresh_session(app: HttpApp, version: ProtocolVersion | None) -> HttpSessionTransport:
    """A started session of no id on an :class:`HttpSessionTransport`, assumed initialized
    at ``version`` (a stateless batch is served by it)."""
    transport = HttpSessionTransport(
        None,
        max_buffer=app.options.max_stream_buffer,
        slow_reader_timeout=app.options.slow_reader_timeout,
    )
    session = app.session_factory(transport)
    await session.start()
    session.assume_initialized(version or DEFAULT_VERSION)
    transport.protocol_version = session.protocol_version
    return transport


async def serve_stateless(
    app: HttpApp,
    msg: dict[str, Any],
    is_request: bool,
    version: ProtocolVersion | None,
    receive: Receive,
    send: Send,
) -> None:
    """One message of a stateless POST, served by a fresh session that ends with it."""
    if not is_request:
        await respond(send, 202, b"", NO_BODY)  # no session to deliver it to
        return
    if app.json_response:
        await serve_stateless_json(app, msg, version, send)
        return
    transport = HttpSessionTransport(
        None,
        max_buffer=app.options.max_stream_buffer,
        slow_reader_timeout=app.options.slow_reader_timeout,
    )
    session = app.session_factory(transport)
    await session.start()
    if msg["method"] != "initialize":
        session.assume_initialized(version or DEFAULT_VERSION)
        transport.protocol_version = session.protocol_version
    try:
        await app.serve_requests(transport, msg, [msg["id"]], receive, send)
    finally:
        await session.close()


async def serve_stateless_json(
    app: HttpApp, msg: dict[str, Any], version: ProtocolVersion | None, send: Send
) -> None:
    """One request of a stateless POST answered with JSON: its session can send
    nothing but the response (see the module docstring)."""
    served = app.served if msg["method"] != "initialize" else None
    if served is not None:
        # A quick request that needs no session of its own (the usual tools/call):
        # served by the prototype's engine, answered as its copy would answer it.
        answer = served.sessionless_response(
            msg["id"], msg["method"], msg.get("params"), version or DEFAULT_VERSION
        )
        if answer is not None:
            body = orjson.dumps(await answer)
            # respond_json, inline
            headers = [_JSON_TYPE, (b"content-length", b"%d" % len(body))]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
    transport = StatelessJsonTransport(msg["id"])
    if served is not None:
        # A copy of the server's prototype for this version, started in place (what
        # AppSession.start does: its handler table was checked as it was copied).
        session = served.stateless_session(transport, version or DEFAULT_VERSION)
        transport.sink = session
    else:
        session = app.session_factory(transport)
        await session.start()
        if msg["method"] != "initialize":
            session.assume_initialized(version or DEFAULT_VERSION)
    try:
        session.receive_classified(msg, MessageKind.REQUEST)
        data = transport.response  # a handler that finished at once answered already
        if data is None:
            try:
                data = await transport.wait()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise
                await respond(send, 202, b"", NO_BODY)  # ended with no response
                return
        await respond_json(send, 200, data)
    finally:
        # The session ends with its transport, at once (no coroutine for either);
        # close() then only waits for its background tasks, if it has any.
        transport.close_now()
        await session.close()
