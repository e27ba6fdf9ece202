"""The 2024-11-05 HTTP+SSE transport, for old peers.

Server: ``GET /sse`` opens a stream whose first event, ``endpoint``, names the URL to POST
messages to (``/messages?session_id=...``); every server message then travels on that
stream, and each POST is answered ``202 Accepted``. The session lives as long as the stream.

Client: used by :class:`~mcpkit.transports.http.client.StreamableHTTPClientTransport` as its
fallback when a server refuses POST ``initialize`` with 400/404/405.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urljoin

import httpx
import orjson

from mcpkit.jsonrpc import INVALID_REQUEST, PARSE_ERROR, RequestId
from mcpkit.session import ServerSession
from mcpkit.transports.base import TransportInfo
from mcpkit.transports.http import sse
from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection

if TYPE_CHECKING:
    from mcpkit.transports.http.server import Receive, Scope, Send, StreamableHTTPApp, _Headers

__all__ = ["LegacySSEClient", "LegacySSEServer", "LegacySessionTransport"]

logger = logging.getLogger("mcpkit.http.legacy")


class LegacySessionTransport(HttpSessionTransport):
    """One HTTP+SSE session: every outgoing message goes on its one stream."""

    def __init__(self, session_id: str, **options: Any) -> None:
        super().__init__(session_id, **options)
        self.info = TransportInfo("legacy-sse", session_id, False)

    def close_response_stream(self, request_id: RequestId) -> bool:
        return False  # the one stream is the session

    close_sse_stream = close_response_stream

    def write(self, message: Any, related_request_id: RequestId | None = None) -> None:
        self._emit(self._standalone, orjson.dumps(message))


class LegacySSEServer:
    """The two legacy endpoints, served by a :class:`StreamableHTTPApp` when enabled."""

    def __init__(self, app: StreamableHTTPApp, sse_path: str, messages_path: str) -> None:
        self.app = app
        self.sse_path = "/" + sse_path.strip("/")
        self.messages_path = "/" + messages_path.strip("/")
        self.sessions: dict[str, LegacySessionTransport] = {}

    async def handle(
        self, path: str, method: str, scope: Scope, h: _Headers, receive: Receive, send: Send
    ) -> bool:
        from mcpkit.transports.http import server as srv

        if path == self.sse_path and method == "GET":
            await self._open(scope, receive, send)
            return True
        if path == self.messages_path and method == "POST":
            await self._post(scope, h, receive, send)
            return True
        if path in (self.sse_path, self.messages_path):
            await srv._error(send, 405, INVALID_REQUEST, "Method not allowed")
            return True
        return False

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        sid = secrets.token_hex(16)
        transport = LegacySessionTransport(
            sid,
            max_buffer=self.app.max_stream_buffer,
            on_close=self._forget,
            slow_reader_timeout=self.app.slow_reader_timeout,
        )
        session = self.app.session_factory(transport)
        await session.start()
        self.sessions[sid] = transport
        conn = SSEConnection(self.app.max_stream_buffer)
        root = scope.get("root_path", "")
        endpoint = f"{root}{self.messages_path}?session_id={sid}".encode()
        conn.push(sse.encode_event(endpoint, event="endpoint"))
        transport.open_standalone(conn)
        try:
            await self.app._pump(transport, conn, list(_SSE), receive, send, watch=True)
        finally:
            await session.close()  # the stream is the session

    async def _post(self, scope: Scope, h: _Headers, receive: Receive, send: Send) -> None:
        from mcpkit.transports.http import server as srv

        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        sid = (query.get("session_id") or [None])[0]
        transport = self.sessions.get(sid) if sid else None
        if transport is None or transport.sink is None:
            await srv._error(send, 404 if sid else 400, INVALID_REQUEST, "Unknown session_id")
            return
        ctype = h.content_type
        if ctype is None or ctype.split(";", 1)[0].strip().lower() != "application/json":
            await srv._error(send, 415, INVALID_REQUEST, "Unsupported Media Type")
            return
        try:
            body = await srv._read_body(receive, self.app.max_body_size)
        except srv._BodyTooLarge:
            await srv._error(send, 413, INVALID_REQUEST, "Request body too large")
            return
        if body is None:
            return
        try:
            msg = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            await srv._error(send, 400, PARSE_ERROR, f"Parse error: {exc}")
            return
        transport.touch()
        await srv._respond(send, 202, b"Accepted", [(b"content-type", b"text/plain")])
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


class LegacySSEClient:
    """Client side of HTTP+SSE: a GET stream for incoming messages, POSTs for outgoing."""

    def __init__(
        self,
        url: str,
        client: httpx.AsyncClient,
        headers: Callable[..., dict[str, str]],
        auth: Callable[[], Any],
        deliver: Callable[[Any], None],
        on_lost: Callable[[], None] | None = None,
    ) -> None:
        self.url = url
        self.client = client
        self.headers = headers
        self.auth = auth
        self.deliver = deliver
        self.on_lost = on_lost
        self.endpoint: str | None = None
        self._task: asyncio.Task[None] | None = None

    async def connect(self, timeout: float) -> bool:
        """Open the stream; True once its ``endpoint`` event arrived."""
        found: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.get_running_loop().create_task(self._run(found))
        try:
            async with asyncio.timeout(timeout):
                endpoint = await found
        except TimeoutError:
            endpoint = None
        if endpoint is None:
            await self.aclose()
            return False
        self.endpoint = urljoin(self.url, endpoint)
        return True

    async def _run(self, found: asyncio.Future[str | None]) -> None:
        headers = self.headers(accept="text/event-stream")
        headers.pop("mcp-session-id", None)
        headers.pop("mcp-protocol-version", None)
        try:
            async with self.client.stream("GET", self.url, headers=headers, auth=self.auth()) as r:
                ctype = r.headers.get("content-type", "").split(";", 1)[0].strip().lower()
                if r.status_code != 200 or ctype != "text/event-stream":
                    return
                decoder = sse.SSEDecoder()
                async for chunk in r.aiter_bytes():
                    for event in decoder.feed(chunk):
                        if event.event == "endpoint":
                            if not found.done():
                                found.set_result(event.data.strip())
                        elif event.event == "message" and event.data and found.done():
                            try:
                                msg = orjson.loads(event.data)
                            except orjson.JSONDecodeError:
                                logger.warning("Ignoring a non-JSON legacy SSE event")
                                continue
                            self.deliver(msg)
        except httpx.HTTPError as exc:
            logger.info("Legacy SSE stream ended: %s", exc)
        finally:
            if not found.done():
                found.set_result(None)
            elif self.on_lost is not None:
                self.on_lost()

    async def post(self, message: Any) -> None:
        from mcpkit.transports.http.client import HttpStatusError

        assert self.endpoint is not None
        headers = self.headers(**{"content-type": "application/json"})
        headers.pop("mcp-session-id", None)
        headers.pop("mcp-protocol-version", None)
        response = await self.client.post(
            self.endpoint, content=orjson.dumps(message), headers=headers, auth=self.auth()
        )
        if response.status_code >= 400:
            raise HttpStatusError(response.status_code, response.reason_phrase, response.content)

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            self.on_lost = None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
