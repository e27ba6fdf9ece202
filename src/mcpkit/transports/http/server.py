"""The Streamable HTTP server: a plain ASGI application (mountable in Starlette or FastAPI).

One endpoint (``path``) takes POST (a JSON-RPC message), GET (the standalone SSE stream, or a
resumption with ``Last-Event-ID``) and DELETE (end the session). Each MCP session is a
:class:`~mcpkit.session.ServerSession` made by ``session_factory`` on an
:class:`~mcpkit.transports.http.session_transport.HttpSessionTransport`, which routes every
outgoing message to the response of the POST it belongs to.

Request handling is plain ASGI with no per-message framework objects: headers are read in one
pass over ``scope["headers"]`` and bodies are read with a hard size limit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from types import MethodType
from typing import Any, Final

import orjson

from mcpkit import versions
from mcpkit._loop import running_loop
from mcpkit.envelope import PROTOCOL_VERSION_KEY
from mcpkit.http_request import serving, stop_serving
from mcpkit.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    MessageKind,
    RequestId,
    batch_refusal,
    cancelled_request_id,
    classify,
    initialize_in_batch,
)
from mcpkit.owner import principal as current_owner
from mcpkit.session import ServerSession
from mcpkit.transports.base import MessageSink, Transport
from mcpkit.transports.http import sse
from mcpkit.transports.http.asgi import (
    NO_BODY,
    SSE_HEADERS,
    BodyTooLarge,
    Message,
    Receive,
    RequestHeaders,
    Scope,
    Send,
    accept_flags,
    accepts,
    oversized_headers,
    read_body_within,
    respond,
    respond_body_timeout,
    respond_error,
    respond_json,
)
from mcpkit.transports.http.event_store import EventStore, MemoryEventStore
from mcpkit.transports.http.host import MemorySessionHost, SessionHost, end_session
from mcpkit.transports.http.host_origin import HostOriginMiddleware
from mcpkit.transports.http.modern_headers import (
    MCP_PROTOCOL_VERSION,
    is_modern_request,
    is_modern_stream_request,
)
from mcpkit.transports.http.modern_server import (
    DisconnectWatch,
    ModernRequestTransport,
    header_mapping,
    request_sessions,
    serve_modern_post,
)
from mcpkit.transports.http.session_open import open_session
from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection
from mcpkit.transports.http.shutdown import watch_signals
from mcpkit.transports.http.stateless import DEFAULT_VERSION as _DEFAULT_VERSION
from mcpkit.transports.http.stateless import fresh_session, serve_stateless
from mcpkit.versions import ProtocolVersion

__all__ = [
    "SESSION_NOT_FOUND",
    "Message",
    "Receive",
    "Scope",
    "Send",
    "SessionFactory",
    "StreamableHTTPApp",
]

logger = logging.getLogger("mcpkit.http")

#: Makes a new, not yet started session on a transport (an :class:`HttpSessionTransport`
#: for the legacy wire, a :class:`ModernRequestTransport` for one modern request).
SessionFactory = Callable[[Transport], ServerSession]

#: JSON-RPC error code in the body of 404 answers for unknown or ended sessions.
SESSION_NOT_FOUND: Final = -32001
_NO_BODY: Final = NO_BODY


#: How long a POST's SSE response waits for the first message before sending its headers.
_FIRST_MESSAGE_HOLD = 0.05


def _end_all(streams: list[ModernRequestTransport]) -> None:
    for transport in streams:
        transport.end()


class StreamableHTTPApp:
    """An ASGI application serving MCP over Streamable HTTP at ``path``.

    ``session_factory(transport)`` returns a new, not yet started
    :class:`~mcpkit.session.ServerSession` (a Server's ``session``).

    Options: ``stateless`` (no session ids; each POST is served by a fresh session),
    ``json_response`` (answer requests with ``application/json`` instead of an SSE stream),
    ``event_store`` (None: a :class:`MemoryEventStore`; False: no resumability; or any
    :class:`EventStore` such as :class:`SQLiteEventStore`), ``allowed_hosts``,
    ``allowed_origins`` and ``dns_rebinding_protection`` (see below), ``max_body_size``
    (bytes), ``session_idle_timeout`` (seconds), ``initialize_timeout`` (seconds a session
    may stay with nothing after its ``initialize``, not even ``notifications/initialized``,
    before it ends; None: only ``session_idle_timeout``), ``max_header_bytes`` and
    ``max_header_count`` (past either: 431), ``body_timeout`` (seconds for a POST body to
    arrive, else 408), ``min_body_rate`` (bytes per second a POST body must arrive at once it
    has taken ``body_rate_grace`` seconds, else 408 and the connection closes; None: no
    minimum), ``max_sessions``, ``max_sessions_per_client`` (open sessions of one
    authenticated principal, else of one remote address; past it ``initialize`` is answered
    429 with ``Retry-After``; None: no limit), ``max_stream_buffer`` (bytes waiting for one SSE
    reader before its producers wait for it), ``slow_reader_timeout`` (seconds a reader may
    take nothing while producers wait before it is dropped; it may resume), ``sse_retry_ms``
    (the ``retry`` field of priming events),
    ``keepalive_interval`` (seconds between SSE comments on idle streams) and ``legacy_sse``
    (also serve the 2024-11-05 HTTP+SSE endpoints ``/sse`` and ``/messages``), ``auth`` (a
    :class:`mcpkit.auth.ResourceServer`: bearer tokens required, protected resource metadata),
    ``shared`` (a :class:`mcpkit.redis.SharedSessions`: 2025 sessions and their events live
    in Redis and any replica serves any of them; ``Server(store=...)`` passes it; None, the
    default, keeps them in this process and no shared-store code runs).

    Origin and Host checks (the spec's security warning; refusals are HTTP 403 with a
    JSON-RPC error body saying what was refused):

    * ``Origin`` is validated on every request, whatever the bind. A request without one
      (a non-browser client) passes. One with an ``Origin`` passes when it is the origin the
      request's ``Host`` names (same host and port; a missing port is the scheme's default),
      when it is listed in ``allowed_origins`` (``"https://app.example.com"``, any port with
      ``"http://localhost:*"``, every origin with ``"*"``), or, under DNS-rebinding
      protection with no ``allowed_origins``, when it is a loopback origin.
    * DNS-rebinding protection also validates ``Host``: only loopback names, or those in
      ``allowed_hosts`` (``"mcp.example.com"``, ``"mcp.example.com:8443"``,
      ``"mcp.example.com:*"``). ``dns_rebinding_protection=None`` (the default) turns it on
      when the server is bound to a loopback address or ``allowed_hosts`` is given; ``True``
      or ``False`` force it. ``False`` leaves the Origin check above in place.

    Why the default event store is in memory, not SQLite: sessions live in this process, so
    after a restart every session is gone (clients get 404 and start a new one) and no
    stored event could ever be resumed; within the process a stream can be resumed from
    either store alike. Pass ``SQLiteEventStore(path)`` (the embedded, durable store; what
    ``mcpkit run --event-store FILE`` and ``mcpkit demo`` use) to keep retained events off
    the heap, or when a custom ``session_factory`` restores sessions across restarts.
    """

    def __init__(
        self,
        session_factory: SessionFactory,
        path: str = "/mcp",
        *,
        stateless: bool = False,
        json_response: bool = False,
        event_store: EventStore | bool | None = None,
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] | None = None,
        dns_rebinding_protection: bool | None = None,
        max_body_size: int = 4 * 1024 * 1024,
        max_header_bytes: int = 64 * 1024,
        max_header_count: int = 100,
        body_timeout: float | None = 30.0,
        min_body_rate: float | None = 240.0,
        body_rate_grace: float = 5.0,
        session_idle_timeout: float | None = 1800.0,
        initialize_timeout: float | None = 45.0,
        max_sessions: int = 10_000,
        max_sessions_per_client: int | None = 100,
        sse_retry_ms: int | None = None,
        keepalive_interval: float = 15.0,
        max_stream_buffer: int = 4 * 1024 * 1024,
        slow_reader_timeout: float = 30.0,
        supported_versions: tuple[ProtocolVersion, ...] = versions.SUPPORTED,
        legacy_sse: bool = False,
        legacy_sse_path: str = "/sse",
        legacy_messages_path: str = "/messages",
        auth: Any = None,
        shared: Any = None,
    ) -> None:
        self.session_factory = session_factory
        #: The last factory seen and the Server whose own ``session`` it is (or None).
        self._factory_owner: tuple[Any, Any] = (None, None)
        #: Where 2025-era sessions are shared between replicas (a
        #: :class:`mcpkit.redis.SharedSessions`; None: sessions live in this process).
        self.shared = shared
        if shared is not None:
            event_store = False  # shared sessions keep their events in the shared log
        if auth is not None:
            from mcpkit.auth.server import as_resource_server

            auth = as_resource_server(auth)
        #: A :class:`mcpkit.auth.ResourceServer`: OAuth-protected endpoint plus its metadata
        #: (an :class:`mcpkit.auth.APIKeyVerifier` given as ``auth`` becomes a key-only one).
        self.auth = auth
        self.path = "/" + path.strip("/") if path.strip("/") else "/"
        self.stateless = stateless
        self.json_response = json_response
        if event_store is None or event_store is True:
            event_store = MemoryEventStore(max_sessions=max_sessions)
        self.event_store: EventStore | None = event_store or None
        #: The Host/Origin policy every HTTP request passes first (see above).
        self.host_origin = HostOriginMiddleware(
            self._http,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins,
            dns_rebinding_protection=dns_rebinding_protection,
        )
        self.allowed_hosts = self.host_origin.allowed_hosts
        self.allowed_origins = self.host_origin.allowed_origins
        self.dns_rebinding_protection = dns_rebinding_protection
        self.max_body_size = max_body_size
        self.max_header_bytes = max_header_bytes
        self.max_header_count = max_header_count
        self.body_timeout = body_timeout
        self.min_body_rate = min_body_rate
        self.body_rate_grace = body_rate_grace
        #: The sessions of this process, their reaper and per-client counts.
        self.table = MemorySessionHost(
            idle_timeout=session_idle_timeout, initialize_timeout=initialize_timeout
        )
        #: Where sessions are held: :attr:`table`, or the shared table over it.
        self.host: SessionHost = self.table
        if shared is not None:
            shared.attach(self)
            self.host = shared
        self.max_sessions = max_sessions
        self.max_sessions_per_client = max_sessions_per_client
        self.sse_retry_ms = sse_retry_ms
        self.keepalive_interval = keepalive_interval
        self.max_stream_buffer = max_stream_buffer
        self.slow_reader_timeout = slow_reader_timeout
        self.supported_versions = supported_versions
        self._supported_names = {v.name: v for v in supported_versions}
        self._modern_versions: tuple[ProtocolVersion, ...] | None = None
        #: Every open SSE response (ended at once by :meth:`close_streams`).
        self._live: set[SSEConnection] = set()
        #: Every committed SSE answer to a modern request (a ``subscriptions/listen``
        #: stream stays open): ended by :meth:`close_streams` too.
        self.modern_streams: set[ModernRequestTransport] = set()
        #: Watches modern requests that wait long for a client disconnect (one timer).
        self.disconnect_watch = DisconnectWatch()
        #: True once shutdown began: open streams were ended and new ones end at once.
        self.shutting_down = False
        #: When the signal handlers were last looked at (see watch_signals).
        self._signals_watched: tuple[asyncio.AbstractEventLoop | None, float] = (None, 0.0)
        #: Called first when shutdown begins (:meth:`close_streams`): a Server ends its
        #: ``subscriptions/listen`` streams here, and the modern streams then get
        #: ``shutdown_grace`` seconds to send their closing results before they end.
        self.shutdown_hooks: list[Callable[[], None]] = []
        self.shutdown_grace = 0.1
        self.legacy: Any = None
        if legacy_sse:
            from mcpkit.transports.http.legacy_server import LegacySSEServer

            self.legacy = LegacySSEServer(self, legacy_sse_path, legacy_messages_path)

    @property
    def sessions(self) -> dict[str, HttpSessionTransport]:
        """The open sessions of this process by id (shared ones: this replica's views)."""
        return self.table.sessions

    @property
    def session_idle_timeout(self) -> float | None:
        """Seconds a session may stay unused before it ends (None: forever)."""
        return self.table.idle_timeout

    @session_idle_timeout.setter
    def session_idle_timeout(self, value: float | None) -> None:
        self.table.idle_timeout = value

    @property
    def initialize_timeout(self) -> float | None:
        """Seconds a session may stay with nothing after its ``initialize``."""
        return self.table.initialize_timeout

    @initialize_timeout.setter
    def initialize_timeout(self, value: float | None) -> None:
        self.table.initialize_timeout = value

    # -- ASGI entry point ----------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            # Handlers of what this request carries read it as ctx.request.
            mark = serving(scope)
            try:
                if self.auth is not None:
                    if oversized_headers(
                        scope["headers"], self.max_header_bytes, self.max_header_count
                    ):
                        await self._too_large_head(send)
                        return
                    await self.auth.handle(scope, receive, send, self.host_origin)
                    return
                # The headers are read once: their size, then the Host/Origin policy (what
                # self.host_origin does as middleware), then the request itself.
                h = RequestHeaders(scope["headers"])
                if h.size > self.max_header_bytes or h.count > self.max_header_count:
                    await self._too_large_head(send)
                    return
                refused = self.host_origin.refusal(scope, h.host, h.origin)
                if refused is not None:
                    await respond_error(send, 403, INVALID_REQUEST, refused)
                    return
                await self._route(scope, h, receive, send)
            finally:
                stop_serving(mark)
        elif kind == "lifespan":
            await self._lifespan(receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.start_shared()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close_streams()
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _too_large_head(self, send: Send) -> None:
        await respond_error(send, 431, INVALID_REQUEST, "Request Header Fields Too Large")

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An HTTP request past the Host/Origin policy (the app of :attr:`host_origin`)."""
        await self._route(scope, RequestHeaders(scope["headers"]), receive, send)

    async def _route(self, scope: Scope, h: RequestHeaders, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if len(path) > 1:
            path = path.rstrip("/")
        method: str = scope["method"]
        if path != (self.path or "/"):
            if self.legacy is not None and await self.legacy.handle(
                path, method, scope, h, receive, send
            ):
                return
            await self._elsewhere(path, method, root, send)
            return
        if method == "POST":
            await self._post(scope, h, receive, send)
        elif method in ("GET", "DELETE") and is_modern_stream_request(
            h.session_id, h.protocol_version
        ):
            # The modern wire has no GET stream and no session to DELETE.
            await respond_error(
                send, 405, INVALID_REQUEST, "Method not allowed", extra=[(b"allow", b"POST")]
            )
        elif method == "GET" and not self.stateless:
            await self._get(h, receive, send)
        elif method == "DELETE" and not self.stateless:
            await self._delete(h, send)
        else:
            allow = b"POST" if self.stateless else b"GET, POST, DELETE"
            await respond_error(
                send, 405, INVALID_REQUEST, "Method not allowed", extra=[(b"allow", allow)]
            )

    async def start_shared(self) -> None:
        """Connect to the shared store (if any) before serving, so that nothing published
        from then on is missed; an unreachable store is logged (requests then fail with
        503 until it answers)."""
        if self.shared is None:
            return
        try:
            await self.shared.backend.ready()
        except Exception as exc:
            logger.error("Shared store not reachable at start-up: %s", exc)

    async def _shared_session(
        self, sid: str, transport: HttpSessionTransport | None, send: Send, rid: Any
    ) -> HttpSessionTransport | None:
        """The view of shared session ``sid`` on this replica, loaded or refreshed (None
        when it is answered here: 404 for an unknown session, 503 when the store is down)."""
        shared = self.shared
        owner = current_owner()
        if transport is not None and not transport.closed and transport.owner != owner:
            await self._not_found(send, rid)  # another owner's: not even touched
            return None
        try:
            if transport is None or transport.closed:
                transport = await shared.load(sid, owner)
            elif not await shared.refresh(transport):
                await end_session(transport)
                transport = None
        except Exception as exc:
            from mcpkit.redis.backend import StoreUnavailable

            if not isinstance(exc, StoreUnavailable):
                raise
            await respond_error(send, 503, INTERNAL_ERROR, str(exc), rid, [(b"retry-after", b"1")])
            return None
        if transport is None:
            await self._not_found(send, rid)
        return transport

    async def _elsewhere(self, path: str, method: str, root: str, send: Send) -> None:
        """Any path but the endpoint. A GET (a person or a health check looking) is told
        where the endpoint is: 200 for ``/``, 404 elsewhere; other methods get a plain 404."""
        text = [(b"content-type", b"text/plain; charset=utf-8")]
        if method not in ("GET", "HEAD"):
            await respond(send, 404, b"Not Found", text)
            return
        hint = f"MCP server: POST JSON-RPC to {root}{self.path} (Streamable HTTP)\n".encode()
        await respond(send, 200 if path == "/" else 404, b"" if method == "HEAD" else hint, text)

    # -- POST ----------------------------------------------------------------------------------

    async def _post(self, scope: Scope, h: RequestHeaders, receive: Receive, send: Send) -> None:
        flags = accept_flags(h.accept)
        acceptable = flags[0] and (self.json_response or flags[1])
        # A POST without a session id or a legacy version header may be modern: its era
        # (and with it the Accept rule) is known once the body is read.
        maybe_modern = h.session_id is None and (
            h.protocol_version is None or is_modern_stream_request(None, h.protocol_version)
        )
        if not acceptable and not maybe_modern:
            await self._not_acceptable(send)
            return
        ctype = h.content_type
        if ctype != "application/json" and (
            ctype is None or ctype.split(";", 1)[0].strip().lower() != "application/json"
        ):
            await respond_error(
                send, 415, INVALID_REQUEST, "Unsupported Media Type: use application/json"
            )
            return
        if h.content_length is not None:
            try:
                declared = int(h.content_length)
            except ValueError:
                declared = -1
            if declared > self.max_body_size:
                await respond_error(send, 413, INVALID_REQUEST, "Request body too large")
                return
        try:
            body = await read_body_within(
                receive,
                self.max_body_size,
                self.body_timeout,
                self.min_body_rate,
                self.body_rate_grace,
            )
        except BodyTooLarge:
            await respond_error(send, 413, INVALID_REQUEST, "Request body too large")
            return
        except TimeoutError as exc:
            # The rest of the body is never read: the connection cannot carry another request,
            # and a client that keeps trickling bytes must not hold it open.
            await respond_body_timeout(send, exc)
            return
        if body is None:
            return  # the client went away before sending the whole body
        try:
            msg = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            await respond_error(send, 400, PARSE_ERROR, f"Parse error: {exc}")
            return
        if maybe_modern:
            params = msg.get("params") if type(msg) is dict else None
            meta = params.get("_meta") if type(params) is dict else None
            modern: tuple[ProtocolVersion, ...] = ()
            if type(meta) is dict and PROTOCOL_VERSION_KEY in meta:
                modern = self.modern_versions  # the usual modern request: no probe to build
            else:
                pv_probe = (
                    {} if h.protocol_version is None else {MCP_PROTOCOL_VERSION: h.protocol_version}
                )
                if is_modern_request(pv_probe, params):
                    modern = self.modern_versions
            if modern:
                if not (flags[0] or flags[1]):
                    await self._not_acceptable(send, modern=True)
                    return
                await serve_modern_post(
                    self, msg, header_mapping(scope["headers"]), flags, receive, send
                )
                return
            if not acceptable:
                await self._not_acceptable(send)
                return
        pv_name = h.protocol_version
        version: ProtocolVersion | None = None
        if pv_name is not None:
            version = self._supported_names.get(pv_name)
            if version is None:
                await respond_error(
                    send,
                    400,
                    INVALID_REQUEST,
                    f"Unsupported MCP-Protocol-Version: {pv_name!r} (supported: "
                    f"{', '.join(self._supported_names)})",
                )
                return
        if type(msg) is list:
            await self._post_batch(msg, h, version, receive, send)
            return
        kind, why = classify(msg)
        if kind is MessageKind.INVALID:
            rid = msg.get("id") if type(msg) is dict else None
            if type(rid) is not str and type(rid) is not int:
                rid = None
            await respond_error(send, 400, INVALID_REQUEST, f"Invalid request: {why}", rid)
            return
        is_request = kind is MessageKind.REQUEST
        if self.stateless:
            await serve_stateless(self, msg, is_request, version, receive, send)
            return
        sid = h.session_id
        if sid is None:
            if is_request and msg["method"] == "initialize":
                await open_session(self, msg, send, scope)
                return
            await respond_error(
                send,
                400,
                INVALID_REQUEST,
                "Bad Request: missing Mcp-Session-Id header (initialize first)",
                msg.get("id") if is_request else None,
            )
            return
        transport = self.table.get(sid)
        if self.shared is not None:
            transport = await self._shared_session(
                sid, transport, send, msg.get("id") if is_request else None
            )
            if transport is None:
                return
        if (
            transport is None
            or transport.closed
            or transport.sink is None
            or transport.owner != current_owner()
        ):
            await self._not_found(send, msg.get("id") if is_request else None)
            return
        transport.touch()
        transport.established = True
        if not is_request:
            if self.shared is not None:
                routed = await self._shared_message(transport, msg, kind, send)
                if routed is not False:
                    return  # answered here (routed elsewhere, or the store is down)
            transport.sink.receive_classified(msg, kind)
            if kind is MessageKind.NOTIFICATION and msg["method"] == "notifications/cancelled":
                cancelled = cancelled_request_id(msg.get("params"))
                if cancelled is not None:
                    transport.cancel_request(cancelled)
            await respond(send, 202, b"", _NO_BODY)
            return
        rid = msg["id"]
        if transport.has_request(rid):
            await respond_error(
                send, 400, INVALID_REQUEST, f"Request id {rid!r} is already in use", rid
            )
            return
        await self.serve_requests(transport, msg, [rid], receive, send)

    async def _shared_message(
        self, transport: Any, msg: Any, kind: MessageKind, send: Send
    ) -> bool | None:
        """A client's answer or cancellation for a shared session: an answer to a request
        another replica sent goes there (True: answered 202); a cancellation also goes to
        every replica. None: the store is unreachable (answered 503); False: deliver here."""
        from mcpkit.redis.backend import StoreUnavailable

        try:
            if kind is MessageKind.RESULT or kind is MessageKind.ERROR:
                if await self.shared.route_response(transport, msg):
                    await respond(send, 202, b"", _NO_BODY)
                    return True
            elif kind is MessageKind.NOTIFICATION and msg["method"] == "notifications/cancelled":
                await self.shared.broadcast_cancel(transport.session_id, msg)
        except StoreUnavailable as exc:
            await respond_error(send, 503, INTERNAL_ERROR, str(exc), None, [(b"retry-after", b"1")])
            return None
        return False

    async def _not_acceptable(self, send: Send, *, modern: bool = False) -> None:
        await respond_error(
            send,
            406,
            INVALID_REQUEST,
            "Not Acceptable: accept application/json or text/event-stream"
            if modern
            else "Not Acceptable: the client must accept both application/json and "
            "text/event-stream",
        )

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]:
        """The stateless revisions this app serves (those of the sessions its factory
        makes; empty for a legacy-only server, whose modern-looking POSTs then take the
        legacy path)."""
        found = self._modern_versions
        if found is None:
            # A Server's bound ``session`` says it directly; any other factory is asked
            # through a session it makes (never started).
            from mcpkit.server.app import Server  # once per app: the server imports this

            factory = self.session_factory
            owner = factory.__self__ if isinstance(factory, MethodType) else None
            if isinstance(owner, Server):
                found = owner.modern_versions
            else:
                found = factory(ModernRequestTransport(None)).modern_versions
            self._modern_versions = found
        return found

    async def _post_batch(
        self,
        items: list[Any],
        h: RequestHeaders,
        version: ProtocolVersion | None,
        receive: Receive,
        send: Send,
    ) -> None:
        transport: HttpSessionTransport | None = None
        if not self.stateless:
            sid = h.session_id
            if sid is None:
                await respond_error(
                    send, 400, INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id"
                )
                return
            transport = self.table.get(sid)
            if self.shared is not None:
                transport = await self._shared_session(sid, transport, send, None)
                if transport is None:
                    return
            if (
                transport is None
                or transport.closed
                or transport.sink is None
                or transport.owner != current_owner()
            ):
                await self._not_found(send, None)
                return
            transport.established = True
            version = transport.protocol_version
        elif version is None:
            version = _DEFAULT_VERSION
        refusal = batch_refusal(
            items,
            version is not None and version.batching,
            version.name if version is not None else None,
        )
        if refusal is not None:
            await respond_error(send, 400, INVALID_REQUEST, refusal)
            return
        ids: list[RequestId] = []
        for item in items:
            kind, _ = classify(item)
            if kind is MessageKind.REQUEST:
                if initialize_in_batch(item):
                    await respond_error(
                        send, 400, INVALID_REQUEST, "initialize cannot be part of a batch"
                    )
                    return
                ids.append(item["id"])
        if len(set(ids)) != len(ids) or (
            transport is not None and any(transport.has_request(i) for i in ids)
        ):
            await respond_error(send, 400, INVALID_REQUEST, "Duplicate request id in batch")
            return
        if transport is None:
            transport = await fresh_session(self, version)
            if not ids:
                await transport.close()
                await respond(send, 202, b"", _NO_BODY)
                return
            try:
                await self.serve_requests(transport, items, ids, receive, send)
            finally:
                await transport.close()
            return
        transport.touch()
        if not ids:
            transport.sink.receive(items)  # type: ignore[union-attr]
            await respond(send, 202, b"", _NO_BODY)
            return
        await self.serve_requests(transport, items, ids, receive, send)

    async def serve_requests(
        self,
        transport: HttpSessionTransport,
        msg: Any,
        ids: list[RequestId],
        receive: Receive,
        send: Send,
        extra_headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """Deliver request(s) to ``transport``'s session and answer with JSON or an SSE
        stream of related messages."""
        sink = transport.sink
        assert sink is not None
        sid = transport.session_id
        if self.json_response:
            future = transport.expect_json(ids)
            _deliver(sink, msg)
            try:
                data = await future
            except asyncio.CancelledError:
                transport.forget_json(ids[0])
                if not future.cancelled():
                    raise
                if transport.closed and sid is not None:
                    await self._not_found(send, ids[0])
                else:
                    # Cancelled by the client: no response.
                    await respond(send, 202, b"", _NO_BODY)
                return
            extra = [(b"mcp-session-id", sid.encode())] if sid is not None else []
            if extra_headers:
                extra += extra_headers
            await respond_json(send, 200, data, extra)
            return
        conn = SSEConnection(self.max_stream_buffer)
        transport.open_request_stream(ids, conn)
        conn.event.clear()  # the priming event alone does not need to leave at once
        transport.bind_task_results(msg)  # a tasks/result stream carries its task's messages
        _deliver(sink, msg)
        headers = list(SSE_HEADERS)
        if sid is not None:
            headers.append((b"mcp-session-id", sid.encode()))
        if extra_headers:
            headers += extra_headers
        await self.stream_sse(transport, conn, headers, receive, send, hold=_FIRST_MESSAGE_HOLD)

    def factory_server(self) -> Any:
        """The :class:`~mcpkit.server.app.Server` whose own ``session`` the session factory
        is (its requests may then be served by copies of its prototypes, or by none), else
        None; found once per factory."""
        factory = self.session_factory
        seen, owner = self._factory_owner
        if factory is not seen:
            owner = request_sessions().session_factory_server(factory)
            self._factory_owner = (factory, owner)
        return owner

    async def _not_found(self, send: Send, rid: Any) -> None:
        await respond_error(
            send, 404, SESSION_NOT_FOUND, "Session not found (ended or expired)", rid
        )

    async def terminate_session(self, session_id: str) -> bool:
        """End a session as DELETE does; False if it does not exist."""
        transport = self.table.get(session_id)
        if transport is None:
            return False
        await end_session(transport)
        return True

    def close_streams(self) -> None:
        """Shutdown began: end every open SSE response (after what it has buffered) and every
        one opened from now on, so the ASGI server is not left waiting for them. Sessions
        live on until :meth:`aclose` (their clients may resume with ``Last-Event-ID``)."""
        self.shutting_down = True
        for hook in list(self.shutdown_hooks):
            try:
                hook()
            except Exception:
                logger.exception("Shutdown hook %r failed", hook)
        for conn in list(self._live):
            conn.finish()
        modern = list(self.modern_streams)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if self.shutdown_hooks and modern and loop is not None:
            loop.call_later(self.shutdown_grace, _end_all, modern)
        else:
            _end_all(modern)

    async def aclose(self) -> None:
        """End every session (call it on shutdown when mounted inside another app)."""
        await self.table.aclose()
        if self.legacy is not None:
            await self.legacy.aclose()
        if self.shared is not None:
            # This replica's views are gone (the sessions live on in Redis); saying so at
            # once lets another replica end what it left unanswered without waiting for
            # its heartbeat to expire.
            await self.shared.shutdown()

    # -- GET and DELETE ------------------------------------------------------------------------

    async def _session_for(self, h: RequestHeaders, send: Send) -> HttpSessionTransport | None:
        pv = h.protocol_version
        if pv is not None and pv not in self._supported_names:
            await respond_error(
                send, 400, INVALID_REQUEST, f"Unsupported MCP-Protocol-Version: {pv!r}"
            )
            return None
        sid = h.session_id
        if sid is None:
            await respond_error(
                send, 400, INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id header"
            )
            return None
        transport = self.table.get(sid)
        if self.shared is not None:
            transport = await self._shared_session(sid, transport, send, None)
            if transport is None:
                return None
        if transport is None or transport.closed or transport.owner != current_owner():
            await self._not_found(send, None)
            return None
        transport.established = True
        return transport

    async def _get(self, h: RequestHeaders, receive: Receive, send: Send) -> None:
        if not accepts(h.accept, "text/event-stream"):
            await respond_error(
                send, 406, INVALID_REQUEST, "Not Acceptable: accept text/event-stream"
            )
            return
        transport = await self._session_for(h, send)
        if transport is None:
            return
        transport.touch()
        conn = SSEConnection(self.max_stream_buffer)
        if h.last_event_id:
            if self.shared is not None:
                try:
                    resumed = await transport.aresume(h.last_event_id, conn)  # type: ignore[attr-defined]
                except Exception as exc:
                    await respond_error(send, 503, INTERNAL_ERROR, str(exc))
                    return
            else:
                resumed = transport.resume(h.last_event_id, conn)
            if not resumed:
                await respond_error(
                    send,
                    400,
                    INVALID_REQUEST,
                    "Bad Request: unknown Last-Event-ID for this session (cannot resume)",
                )
                return
        else:
            transport.open_standalone(conn)
        headers = [*SSE_HEADERS, (b"mcp-session-id", transport.session_id.encode())]  # type: ignore[union-attr]
        await self.stream_sse(transport, conn, headers, receive, send, watch=True)

    async def _delete(self, h: RequestHeaders, send: Send) -> None:
        transport = await self._session_for(h, send)
        if transport is None:
            return
        if self.shared is not None and transport.session_id is not None:
            try:
                await self.shared.delete(transport.session_id)
            except Exception as exc:
                await respond_error(send, 503, INTERNAL_ERROR, str(exc))
                return
        await end_session(transport)
        await respond(send, 200, b"", _NO_BODY)

    # -- streaming -----------------------------------------------------------------------------

    async def stream_sse(
        self,
        transport: HttpSessionTransport,
        conn: SSEConnection,
        headers: list[tuple[bytes, bytes]],
        receive: Receive,
        send: Send,
        watch: bool = False,
        hold: float = 0.0,
    ) -> None:
        """Answer with ``conn``'s SSE frames as they come, with keep-alive comments, until it
        ends (the response of a POST, a GET stream, or a legacy HTTP+SSE stream): the
        session's side of :func:`~mcpkit.transports.http.sse.stream_response` (see there for
        ``watch`` and ``hold``), ended quietly when shutdown or a slow reader cut it."""
        transport.connections += 1
        self._live.add(conn)
        loop = running_loop()
        now = loop.time()
        watched_loop, watched_at = self._signals_watched
        if watched_loop is not loop or now - watched_at >= 1.0:  # at most once a second
            self._signals_watched = (loop, now)
            watch_signals(self)
        if self.shutting_down:
            conn.finish()
        try:
            await sse.stream_response(
                conn,
                headers,
                receive,
                send,
                keepalive=self.keepalive_interval,
                watch=watch,
                hold=hold,
            )
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or not (conn.aborted or self.shutting_down):
                raise
            task.uncancel()  # we aborted a write to a client that stopped reading, or the
            # server gave up waiting for this response at shutdown: end it quietly
        finally:
            self._live.discard(conn)
            transport.connections -= 1
            transport.detach(conn)
            transport.touch()


def _deliver(sink: MessageSink, msg: Any) -> None:
    """Hand a POST's request(s) to the session: a batch as it is, a single request as the
    request the edge already classified it as."""
    if type(msg) is list:
        sink.receive(msg)
    else:
        sink.receive_classified(msg, MessageKind.REQUEST)
