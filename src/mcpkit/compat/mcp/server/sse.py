"""``mcp.server.sse`` on mcpkit: the official SDK's HTTP+SSE (2024-11-05) server transport,
wired as published servers wire it::

    sse = SseServerTransport("/messages/")

    async def handle_sse(request):
        async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
            await server.run(streams[0], streams[1], server.create_initialization_options())
        return Response()

    Starlette(routes=[Route("/sse", endpoint=handle_sse),
                      Mount("/messages/", app=sse.handle_post_message)])

``connect_sse`` hands ``Server.run`` the GET it answers; ``run`` serves that connection on
mcpkit's own HTTP+SSE transport (the same ``endpoint`` event, then every server message on
the stream) until the client goes, and ``handle_post_message`` answers each POST as the
official SDK does (202 ``Accepted``, or its 400/404/405/413 with the same texts).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

import orjson

from mcpkit.http_request import serving, stop_serving
from mcpkit.owner import principal as current_owner
from mcpkit.transports.http.asgi import (
    BodyTooLarge,
    Receive,
    RequestHeaders,
    Scope,
    Send,
    read_body_within,
    respond,
)

if TYPE_CHECKING:
    from mcpkit.server.app import Server as NativeServer
    from mcpkit.transports.http.sse_2024_server import HttpSseServer

__all__ = ["SseServerTransport", "SseStream"]

#: The official SDK's default limit of a POSTed message (4 MiB).
DEFAULT_MAX_REQUEST_BODY_SIZE = 4 * 1024 * 1024

#: The headers of the SDK's stream (sse-starlette's ``EventSourceResponse``).
SDK_SSE_HEADERS = [
    (b"cache-control", b"no-store"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
    (b"content-type", b"text/event-stream; charset=utf-8"),
]


class SseStream:
    """One side of a connection :meth:`SseServerTransport.connect_sse` opened, for
    ``Server.run`` (mcpkit's transport does the I/O)."""

    __slots__ = ("connection", "side")

    def __init__(self, side: str, connection: _Connection) -> None:
        self.side = side
        self.connection = connection

    def __repr__(self) -> str:
        return f"<sse {self.side} {self.connection.session_id}>"


class _Connection:
    """The GET a client opened its session with, until a server serves it."""

    __slots__ = ("receive", "scope", "send", "session_id", "transport")

    def __init__(
        self, transport: SseServerTransport, scope: Scope, receive: Receive, send: Send
    ) -> None:
        self.transport = transport
        self.scope = scope
        self.receive = receive
        self.send = send
        self.session_id = uuid.uuid4().hex

    async def serve(self, server: NativeServer[Any]) -> None:
        """Serve this connection's session with ``server`` until the client goes."""
        await self.transport._serve(self, server)


class SseServerTransport:
    """The two ASGI endpoints of the HTTP+SSE transport: :meth:`connect_sse` (the GET that
    opens a session's stream) and :meth:`handle_post_message` (the POSTs of its messages,
    to ``endpoint``, a path relative to where the app is mounted)."""

    def __init__(
        self,
        endpoint: str,
        security_settings: Any = None,
        max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
    ) -> None:
        if max_request_body_size <= 0:
            raise ValueError("max_request_body_size must be a positive number of bytes")
        if "://" in endpoint or endpoint.startswith("//") or "?" in endpoint or "#" in endpoint:
            raise ValueError(
                f"Given endpoint: {endpoint} is not a relative path (e.g., '/messages/'), "
                "expecting a relative path (e.g., '/messages/')."
            )
        self._endpoint = endpoint if endpoint.startswith("/") else "/" + endpoint
        self._security = security_settings
        self._max_body = max_request_body_size
        #: The open sessions by id, each with the mcpkit transport serving it.
        self._sessions: dict[str, HttpSseServer] = {}
        #: The mcpkit HTTP+SSE endpoint of each server this transport serves.
        self._servers: dict[int, HttpSseServer] = {}

    @contextlib.asynccontextmanager
    async def connect_sse(
        self, scope: Scope, receive: Receive, send: Send
    ) -> AsyncIterator[tuple[SseStream, SseStream]]:
        """The ``(read_stream, write_stream)`` of a new session on this GET, for
        ``Server.run``, which answers the GET with the session's stream."""
        if scope["type"] != "http":
            raise ValueError("connect_sse can only handle HTTP requests")
        refused = _refusal(self._security, RequestHeaders(scope["headers"]), is_post=False)
        if refused is not None:
            await _plain(send, refused[0], refused[1].encode())
            raise ValueError("Request validation failed")
        connection = _Connection(self, scope, receive, send)
        yield SseStream("read", connection), SseStream("write", connection)

    async def _serve(self, connection: _Connection, server: NativeServer[Any]) -> None:
        endpoint = self._servers.get(id(server))
        if endpoint is None:
            from mcpkit.transports.http.sse_2024_server import HttpSseServer

            app = server.http_app(dns_rebinding_protection=False, max_body_size=self._max_body)
            endpoint = self._servers[id(server)] = HttpSseServer(
                app.app, "/sse", self._endpoint, SDK_SSE_HEADERS
            )
        sid = connection.session_id
        root = str(connection.scope.get("root_path", "")).rstrip("/")
        self._sessions[sid] = endpoint
        try:
            async with server.running():
                await endpoint.open(
                    connection.scope,
                    connection.receive,
                    connection.send,
                    sid=sid,
                    endpoint=f"{quote(root + self._endpoint)}?session_id={sid}",
                )
        finally:
            self._sessions.pop(sid, None)

    async def handle_post_message(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI app of the messages endpoint: each POST's message goes to its session
        (``?session_id=``), answered ``202 Accepted`` first. As on the SDK, a body over
        the limit is answered 413 before anything else is looked at."""
        if scope["method"] != "POST":
            await respond(send, 405, b"", [(b"allow", b"POST"), (b"content-length", b"0")])
            return
        h = RequestHeaders(scope["headers"])
        declared = h.content_length
        try:
            too_large = declared is not None and int(declared) > self._max_body
        except ValueError:
            too_large = False
        try:
            if too_large:
                raise BodyTooLarge
            body = await read_body_within(receive, self._max_body, None, 0.0, 0.0)
        except BodyTooLarge:
            await _plain(send, 413, b"Request body too large")
            return
        if body is None:
            return
        refused = _refusal(self._security, h, is_post=True)
        if refused is not None:
            await _plain(send, refused[0], refused[1].encode())
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        given = (query.get("session_id") or [None])[0]
        if given is None:
            await _plain(send, 400, b"session_id is required")
            return
        try:
            sid = uuid.UUID(hex=given).hex
        except ValueError:
            await _plain(send, 400, b"Invalid session ID")
            return
        endpoint = self._sessions.get(sid)
        transport = endpoint.sessions.get(sid) if endpoint is not None else None
        if transport is None or transport.sink is None or transport.owner != current_owner():
            await _plain(send, 404, b"Could not find session")
            return
        try:
            message = orjson.loads(body)
        except orjson.JSONDecodeError:
            message = None
        if not _is_message(message):
            await _plain(send, 400, b"Could not parse message")
            return
        transport.touch()
        await _plain(send, 202, b"Accepted")
        token = serving(scope)  # the handler reads this POST as ctx.request
        try:
            transport.sink.receive(message)
        finally:
            stop_serving(token)


async def _plain(send: Send, status: int, text: bytes) -> None:
    """A text answer as Starlette's ``Response(text)`` sends it: a length, no type."""
    await respond(send, status, text, [(b"content-length", b"%d" % len(text))])


def _is_message(value: Any) -> bool:
    """Whether ``value`` is a JSON-RPC 2.0 request, notification or response."""
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return False
    if "method" in value:
        return isinstance(value["method"], str)
    return "id" in value and ("result" in value or "error" in value)


def _refusal(settings: Any, h: RequestHeaders, *, is_post: bool) -> tuple[int, str] | None:
    """What the official SDK answers a request its ``security_settings`` refuse (None: the
    request passes): a POST must be JSON; with DNS-rebinding protection on, ``Host`` and a
    given ``Origin`` must be allowed (a ``:*`` entry allows any port)."""
    if is_post and not (h.content_type or "").lower().startswith("application/json"):
        return 400, "Invalid Content-Type header"
    if settings is None or not settings.enable_dns_rebinding_protection:
        return None
    if not _allowed(h.host, settings.allowed_hosts):
        return 421, "Invalid Host header"
    if h.origin and not _allowed(h.origin, settings.allowed_origins):
        return 403, "Invalid Origin header"
    return None


def _allowed(value: str | None, allowed: list[str]) -> bool:
    if not value:
        return False
    return value in allowed or any(
        a.endswith(":*") and value.startswith(a[:-2] + ":") for a in allowed
    )
