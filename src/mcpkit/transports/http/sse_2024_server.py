"""The server side of the 2024-11-05 HTTP+SSE transport, for old clients.

``GET /sse`` opens a stream whose first event, ``endpoint``, names the URL to POST messages
to (``/messages?session_id=...``); every server message then travels on that stream, and
each POST is answered ``202 Accepted``. The session lives as long as the stream.
"""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import orjson

from mcpkit.jsonrpc import INVALID_REQUEST, PARSE_ERROR, RequestId
from mcpkit.owner import principal as current_owner
from mcpkit.session import ServerSession
from mcpkit.transports.base import TransportInfo
from mcpkit.transports.http import sse
from mcpkit.transports.http.asgi import (
    BodyTooLarge,
    Receive,
    RequestHeaders,
    Scope,
    Send,
    read_body_within,
    respond,
    respond_body_timeout,
    respond_error,
)
from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection

if TYPE_CHECKING:
    from mcpkit.transports.http.app_view import HttpApp

__all__ = ["HttpSseServer", "HttpSseTransport"]

logger = logging.getLogger("mcpkit.http.legacy")


class HttpSseTransport(HttpSessionTransport):
    """One HTTP+SSE session: every outgoing message goes on its one stream."""

    def __init__(self, session_id: str, **options: Any) -> None:
        super().__init__(session_id, **options)
        self.info = TransportInfo("legacy-sse", session_id, False)

    def close_response_stream(self, request_id: RequestId) -> bool:
        return False  # the one stream is the session

    close_sse_stream = close_response_stream

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        self.emit_standalone(orjson.dumps(message))


class HttpSseServer:
    """The two endpoints of the 2024-11-05 HTTP+SSE transport, served by a
    :class:`~mcpkit.transports.http.server.StreamableHTTPApp` when enabled."""

    def __init__(
        self,
        app: HttpApp,
        sse_path: str,
        messages_path: str,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        self.app = app
        #: The headers of each stream's answer (default: ``text/event-stream``, no caching).
        self.headers = _SSE if headers is None else headers
        self.sse_path = "/" + sse_path.strip("/")
        self.messages_path = "/" + messages_path.strip("/")
        self.sessions: dict[str, HttpSseTransport] = {}

    async def handle(
        self, path: str, method: str, scope: Scope, h: RequestHeaders, receive: Receive, send: Send
    ) -> bool:
        if path == self.sse_path and method == "GET":
            await self.open(scope, receive, send)
            return True
        if path == self.messages_path and method == "POST":
            await self._post(scope, h, receive, send)
            return True
        if path in (self.sse_path, self.messages_path):
            await respond_error(send, 405, INVALID_REQUEST, "Method not allowed")
            return True
        return False

    async def open(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        *,
        sid: str | None = None,
        endpoint: str | None = None,
    ) -> None:
        """Answer the ``GET`` of ``scope`` with a new session's stream, until it ends: its
        ``endpoint`` event names ``endpoint`` (default: this server's messages path with the
        session's id, ``sid`` or a new one)."""
        if sid is None:
            sid = secrets.token_hex(16)
        transport = HttpSseTransport(
            sid,
            max_buffer=self.app.options.max_stream_buffer,
            on_close=self._forget,
            slow_reader_timeout=self.app.options.slow_reader_timeout,
        )
        transport.owner = current_owner()  # only its principal may post to it
        session = self.app.session_factory(transport)
        await session.start()
        self.sessions[sid] = transport
        conn = SSEConnection(self.app.options.max_stream_buffer)
        if endpoint is None:
            endpoint = f"{scope.get('root_path', '')}{self.messages_path}?session_id={sid}"
        conn.push(sse.encode_event(endpoint.encode(), event="endpoint"))
        transport.open_standalone(conn)
        try:
            headers = list(self.headers)
            await self.app.stream_sse(transport, conn, headers, receive, send, watch=True)
        finally:
            await session.close()  # the stream is the session

    async def _post(self, scope: Scope, h: RequestHeaders, receive: Receive, send: Send) -> None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        sid = (query.get("session_id") or [None])[0]
        transport = self.sessions.get(sid) if sid else None
        if transport is None or transport.sink is None or transport.owner != current_owner():
            await respond_error(send, 404 if sid else 400, INVALID_REQUEST, "Unknown session_id")
            return
        ctype = h.content_type
        if ctype is None or ctype.split(";", 1)[0].strip().lower() != "application/json":
            await respond_error(send, 415, INVALID_REQUEST, "Unsupported Media Type")
            return
        o = self.app.options
        try:
            body = await read_body_within(
                receive, o.max_body_size, o.body_timeout, o.min_body_rate, o.body_rate_grace
            )
        except BodyTooLarge:
            await respond_error(send, 413, INVALID_REQUEST, "Request body too large")
            return
        except TimeoutError as exc:
            await respond_body_timeout(send, exc)
            return
        if body is None:
            return
        try:
            msg = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            await respond_error(send, 400, PARSE_ERROR, f"Parse error: {exc}")
            return
        transport.touch()
        await respond(send, 202, b"Accepted", [(b"content-type", b"text/plain")])
        transport.sink.receive(msg)

    def _forget(self, transport: HttpSessionTransport) -> None:
        if transport.session_id is not None:
            self.sessions.pop(transport.session_id, None)

    async def aclose(self) -> None:
        for transport in list(self.sessions.values()):
            sink = transport.sink
            if isinstance(sink, ServerSession):
                await sink.close()
            else:
                await transport.close()


_SSE = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
]
