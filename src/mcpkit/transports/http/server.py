"""The Streamable HTTP server: a plain ASGI application (mountable in Starlette or FastAPI).

One endpoint (``path``) takes POST (a JSON-RPC message: :mod:`.post`), GET (the standalone
SSE stream, or a resumption with ``Last-Event-ID``) and DELETE (end the session:
:mod:`.get_delete`). Each MCP session is a :class:`~mcpkit.session.ServerSession` made by
``session_factory`` on an :class:`~mcpkit.transports.http.session_transport.HttpSessionTransport`,
which routes every outgoing message to the response of the POST it belongs to; the sessions
are held by a :class:`~mcpkit.transports.http.host.SessionHost`.

Request handling is plain ASGI with no per-message framework objects: headers are read in one
pass over ``scope["headers"]`` and bodies are read with a hard size limit.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable, Coroutine
from operator import attrgetter
from typing import Any, Final

from mcpkit._loop import running_loop
from mcpkit.http_request import scope_var
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, RequestId
from mcpkit.owner import principal as current_owner
from mcpkit.owner import token_var
from mcpkit.session import ServerSession
from mcpkit.transports.base import Transport
from mcpkit.transports.http import sse
from mcpkit.transports.http.asgi import (
    SSE_HEADERS,
    Message,
    Receive,
    RequestHeaders,
    Scope,
    Send,
    accepts,
    oversized_headers,
    read_headers,
    respond,
    respond_error,
    respond_json,
)
from mcpkit.transports.http.event_store import EventStore, MemoryEventStore
from mcpkit.transports.http.get_delete import serve_delete, serve_get
from mcpkit.transports.http.host import MemorySessionHost, SessionHost, end_session
from mcpkit.transports.http.host_origin import HostOriginMiddleware
from mcpkit.transports.http.modern_headers import is_modern_stream_request
from mcpkit.transports.http.modern_server import DisconnectWatch, ModernRequestTransport
from mcpkit.transports.http.options import FIELDS, HttpServerOptions
from mcpkit.transports.http.post import serve_post, serve_requests
from mcpkit.transports.http.served import ServedApp, served_by_factory
from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection
from mcpkit.transports.http.shutdown import watch_signals
from mcpkit.versions import ProtocolVersion

__all__ = [
    "SESSION_NOT_FOUND",
    "HttpServerOptions",
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


#: :func:`mcpkit.http_request.serving` and ``stop_serving``, bound once.
_serving = scope_var.set
_stop_serving = scope_var.reset
#: :func:`mcpkit.owner.current_token`, bound once.
_current_token = token_var.get


def _end_all(streams: list[ModernRequestTransport]) -> None:
    for transport in streams:
        transport.end()


class StreamableHTTPApp:
    """An ASGI application serving MCP over Streamable HTTP at ``path``.

    ``session_factory(transport)`` returns a new, not yet started
    :class:`~mcpkit.session.ServerSession` (a Server's ``session``). ``options``: an
    :class:`~mcpkit.transports.http.options.HttpServerOptions` (what is served, the
    Host/Origin policy, request limits, sessions, streams; the keyword arguments of the
    same names are still accepted, with a :class:`DeprecationWarning`). ``auth``: a
    :class:`mcpkit.auth.ResourceServer` (bearer tokens required, protected resource
    metadata). ``shared``: a :class:`mcpkit.redis.SharedSessions` (2025 sessions and their
    events live in Redis and any replica serves any of them; ``Server(store=...)`` passes
    it; None, the default, keeps them in this process and no shared-store code runs).
    ``served``: the :class:`~mcpkit.transports.http.served.ServedApp` of the server whose
    sessions ``session_factory`` makes (found by itself when the factory is a server's own
    ``session``).

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
        options: HttpServerOptions | None = None,
        *,
        auth: Any = None,
        shared: Any = None,
        served: ServedApp | None = None,
        **settings: Any,
    ) -> None:
        if settings:
            names = ", ".join(settings)
            warnings.warn(
                f"StreamableHTTPApp keyword settings ({names}) are deprecated: pass "
                f"options=HttpServerOptions({', '.join(f'{k}=...' for k in settings)})",
                DeprecationWarning,
                stacklevel=2,
            )
        options = HttpServerOptions.merged(options, settings)
        #: The settings this app serves with (read-only; see :class:`HttpServerOptions`).
        self.options = options
        self._served = served
        #: The :class:`ServedApp` whose own session maker ``session_factory`` is, else None
        #: (kept by ``session_factory``'s setter; what :meth:`served_app` answers).
        self.served: ServedApp | None = None
        self.session_factory = session_factory
        #: Where 2025-era sessions are shared between replicas (a
        #: :class:`mcpkit.redis.SharedSessions`; None: sessions live in this process).
        self.shared = shared
        if auth is not None:
            from mcpkit.auth.server import as_resource_server

            auth = as_resource_server(auth)
        #: A :class:`mcpkit.auth.ResourceServer`: OAuth-protected endpoint plus its metadata
        #: (an :class:`mcpkit.auth.APIKeyVerifier` given as ``auth`` becomes a key-only one).
        self.auth = auth
        self.path = "/" + path.strip("/") if path.strip("/") else "/"
        self.stateless = options.stateless
        self.json_response = options.json_response
        store = options.event_store
        #: Where the events of 2025 streams are kept for resumption (None: nowhere; shared
        #: sessions keep theirs in the shared log).
        self.event_store: EventStore | None = None
        if shared is None and store is not False:
            self.event_store = (
                MemoryEventStore(max_sessions=options.max_sessions)
                if store is None or store is True
                else store
            )
        #: The Host/Origin policy every HTTP request passes first (see above).
        self.host_origin = HostOriginMiddleware(
            self._http,
            allowed_hosts=options.allowed_hosts,
            allowed_origins=options.allowed_origins,
            dns_rebinding_protection=options.dns_rebinding_protection,
        )
        self.allowed_hosts = self.host_origin.allowed_hosts
        self.allowed_origins = self.host_origin.allowed_origins
        #: The sessions of this process, their reaper and per-client counts.
        self.table = MemorySessionHost(
            idle_timeout=options.session_idle_timeout,
            initialize_timeout=options.initialize_timeout,
        )
        #: Where sessions are held: :attr:`table`, or the shared table over it.
        self.host: SessionHost = self.table
        if shared is not None:
            shared.attach(self)
            self.host = shared
        #: The revisions of the handshake era served, by name.
        self.supported_names = {v.name: v for v in options.supported_versions}
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
        #: The whole body of the 404 answering an unknown, ended or other owner's session
        #: (None: mcpkit's JSON-RPC error -32001 with the request's id); a compat server
        #: sets its SDK's, once, when it makes the app.
        self.session_not_found: bytes | None = None
        #: Answer as the official SDKs do where mcpkit chooses otherwise: ``initialize`` on
        #: an SSE stream (unless ``json_response``), and a notification of a request
        #: answered with one JSON body dropped (mcpkit sends it on the session's GET
        #: stream). A compat server sets it when it makes the app.
        self.sdk_streams = False
        self.legacy: Any = None
        if options.legacy_sse:
            from mcpkit.transports.http.sse_2024_server import HttpSseServer

            self.legacy = HttpSseServer(self, options.legacy_sse_path, options.legacy_messages_path)

    @property
    def session_factory(self) -> SessionFactory:
        """Makes a new, not yet started session on a transport (see the class docstring);
        assigning another one serves it from the next request on."""
        return self._factory

    @session_factory.setter
    def session_factory(self, factory: SessionFactory) -> None:
        self._factory = factory
        given = self._served
        found = given if given is not None and given.made_by(factory) else None
        self.served = found if found is not None else served_by_factory(factory)
        self._modern_versions: tuple[ProtocolVersion, ...] | None = None

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
            # Handlers of what this request carries read it as ctx.request (serving(scope),
            # inline).
            mark = _serving(scope)
            try:
                await self.handle_http(scope, receive, send)
            finally:
                _stop_serving(mark)
        elif kind == "lifespan":
            await self._lifespan(receive, send)

    def handle_http(self, scope: Scope, receive: Receive, send: Send) -> Coroutine[Any, Any, None]:
        """The coroutine answering the HTTP request ``scope``, to be awaited at once with
        ``serving(scope)`` set (what :meth:`__call__` does; a wrapping app that sets it
        itself awaits this, with no coroutine frame of its own in between): the head's
        size, then the Host/Origin policy are checked here, with the headers read once."""
        options = self.options
        if self.auth is not None:
            if oversized_headers(
                scope["headers"], options.max_header_bytes, options.max_header_count
            ):
                return self._too_large_head(send)
            return self.auth.handle(scope, receive, send, self.host_origin)  # type: ignore[no-any-return]
        h = read_headers(scope["headers"])
        # The head's size, then the Host/Origin policy: checked once per head, app (its
        # policy is its own) and server address they let through (a head read before is
        # the same object: see read_headers).
        policy = self.host_origin
        bound = scope.get("server")
        allowed = h.allowed
        if allowed is None or allowed[0] is not policy or allowed[1] != bound:
            if h.size > options.max_header_bytes or h.count > options.max_header_count:
                return self._too_large_head(send)
            refused = policy.refusal(scope, h.host, h.origin)
            if refused is not None:
                return respond_error(send, 403, INVALID_REQUEST, refused)
            h.allowed = (policy, bound)
        if scope["method"] == "POST" and scope["path"] == self.path and not scope.get("root_path"):
            # What _route does for the usual request, without its frame.
            return serve_post(self, scope, h, receive, send)
        return self._route(scope, h, receive, send)

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
        await self._route(scope, read_headers(scope["headers"]), receive, send)

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
            await serve_post(self, scope, h, receive, send)
        elif method in ("GET", "DELETE") and is_modern_stream_request(
            h.session_id, h.protocol_version
        ):
            # The modern wire has no GET stream and no session to DELETE.
            await respond_error(
                send, 405, INVALID_REQUEST, "Method not allowed", extra=[(b"allow", b"POST")]
            )
        elif method == "GET" and not self.stateless:
            await serve_get(self, h, receive, send)
        elif method == "GET" and self.sdk_streams:  # a stateless app, as the SDKs answer
            await _idle_stream(self, h, receive, send)
        elif method == "DELETE" and not self.stateless:
            await serve_delete(self, h, send)
        else:
            allow = b"POST" if self.stateless else b"GET, POST, DELETE"
            text = "Method not allowed"
            if method == "DELETE" and self.sdk_streams:  # a stateless app, in the SDKs' words
                text = "Method Not Allowed: Session termination not supported"
            await respond_error(send, 405, INVALID_REQUEST, text, extra=[(b"allow", allow)])

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
            await self.not_found(send, rid)  # another owner's: not even touched
            return None
        try:
            if transport is None or transport.closed:
                transport = await shared.load(sid, owner)
            elif not await shared.refresh(transport):
                await end_session(transport)
                transport = None
        except Exception as exc:
            if not isinstance(exc, shared.unavailable):
                raise
            await respond_error(send, 503, INTERNAL_ERROR, str(exc), rid, [(b"retry-after", b"1")])
            return None
        if transport is None:
            await self.not_found(send, rid)
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

    # -- what is served ------------------------------------------------------------------------

    def served_app(self) -> ServedApp | None:
        """The :class:`~mcpkit.transports.http.served.ServedApp` of the server whose own
        session maker ``session_factory`` is (its requests may then be served by copies of
        its prototypes), else None (:attr:`served`, found as the factory is set)."""
        return self.served

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]:
        """The stateless revisions this app serves (those of the sessions its factory
        makes; empty for a legacy-only server, whose modern-looking POSTs then take the
        legacy path)."""
        found = self._modern_versions
        if found is None:
            # A server says it directly; any other factory is asked through a session it
            # makes (never started).
            served = self.served_app()
            if served is not None:
                found = served.modern_versions
            else:
                found = self.session_factory(ModernRequestTransport(None)).modern_versions
            self._modern_versions = found
        return found

    # -- sessions --------------------------------------------------------------------------------

    def session_here(self, sid: str, posting: bool) -> HttpSessionTransport | None:
        """The open session ``sid`` of this process that is the caller's (the current
        principal's), marked as used by its client, else None; no coroutine (the usual
        POST of a session not shared between replicas). ``posting``: a session not yet
        started takes no message."""
        transport = self.table.sessions.get(sid)  # what _usable says, inline (hot path)
        if transport is None or transport.closed or (posting and transport.sink is None):
            return None
        token = _current_token()  # the owner check: current_owner(), inline
        if transport.owner != (None if token is None else token.owner_key):
            return None
        transport.established = True
        return transport

    async def session_of(
        self, sid: str, send: Send, rid: RequestId | None, posting: bool
    ) -> HttpSessionTransport | None:
        """:meth:`session_here`, or the view of shared session ``sid`` loaded or refreshed
        here; None when it is answered here (404 for an unknown, ended or other owner's
        session; 503 when the shared store is down)."""
        transport = self.table.sessions.get(sid)
        if self.shared is not None:
            transport = await self._shared_session(sid, transport, send, rid)
            if transport is None:
                return None
        transport = _usable(transport, posting)
        if transport is None:
            await self.not_found(send, rid)
        return transport

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
        stream of related messages (:func:`~mcpkit.transports.http.post.serve_requests`)."""
        await serve_requests(self, transport, msg, ids, receive, send, extra_headers)

    async def not_found(self, send: Send, rid: Any) -> None:
        """404: the session is unknown, ended, expired or not the caller's."""
        body = self.session_not_found
        if body is not None:
            await respond_json(send, 404, body)
            return
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

    # -- streaming -----------------------------------------------------------------------------

    def stream_sse(
        self,
        transport: HttpSessionTransport,
        conn: SSEConnection,
        headers: list[tuple[bytes, bytes]],
        receive: Receive,
        send: Send,
        watch: bool = False,
        hold: float = 0.0,
    ) -> Coroutine[Any, Any, None]:
        """The response sending ``conn``'s SSE frames as they come, with keep-alive comments,
        until it ends (the response of a POST, a GET stream, or an HTTP+SSE stream): counted
        as a connection of ``transport`` from now on, ended quietly when shutdown or a slow
        reader cut it (:meth:`cancel_is_quiet`), and when it ends :meth:`stream_ended`.

        It is :func:`~mcpkit.transports.http.sse.stream_response` itself (see there for
        ``watch`` and ``hold``), no coroutine around it: await it at once."""
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
        return sse.stream_response(
            conn,
            headers,
            receive,
            send,
            keepalive=self.options.keepalive_interval,
            watch=watch,
            hold=hold,
            host=self,
            owner=transport,
            loop=loop,
        )

    def cancel_is_quiet(self, conn: SSEConnection) -> bool:
        """Whether a cancelled response of ``conn`` ends quietly: a write to a client that
        stopped reading was aborted, or the server gave up waiting for it at shutdown."""
        return conn.aborted or self.shutting_down

    def stream_ended(self, transport: HttpSessionTransport, conn: SSEConnection) -> None:
        """A response of :meth:`stream_sse` ended: the session counts as used from now."""
        self._live.discard(conn)
        transport.connections -= 1
        transport.detach(conn)
        transport.touch()


async def _idle_stream(
    app: StreamableHTTPApp, h: RequestHeaders, receive: Receive, send: Send
) -> None:
    """A stateless app's GET as the official SDKs answer it: an SSE stream that carries
    nothing (keep-alive comments aside), ended when the client goes away or at shutdown."""
    if not accepts(h.accept, "text/event-stream"):
        text = "Not Acceptable: Client must accept text/event-stream"
        await respond_error(send, 406, INVALID_REQUEST, text)
        return
    conn = SSEConnection(app.options.max_stream_buffer)
    app._live.add(conn)
    if app.shutting_down:
        conn.finish()
    try:
        await sse.stream_response(
            conn,
            SSE_HEADERS,
            receive,
            send,
            keepalive=app.options.keepalive_interval,
            watch=True,
        )
    finally:
        app._live.discard(conn)


def _usable(transport: HttpSessionTransport | None, posting: bool) -> HttpSessionTransport | None:
    """``transport`` when it is open and the caller's (the current principal's), marked as
    used by its client; else None. ``posting``: a session not yet started takes no message."""
    if (
        transport is None
        or transport.closed
        or (posting and transport.sink is None)
        or transport.owner != current_owner()
    ):
        return None
    transport.established = True
    return transport


# The other settings read as attributes of the app, as before they were one value: read-only
# properties made here (a __getattr__ on the class would keep CPython from specializing every
# other attribute read of the app, on the hot path), so that assigning one is an error instead
# of shadowing the setting without changing it.
for _name in sorted(
    FIELDS
    - {
        "stateless",
        "json_response",
        "event_store",
        "allowed_hosts",
        "allowed_origins",
        "session_idle_timeout",
        "initialize_timeout",
    }
):
    setattr(
        StreamableHTTPApp,
        _name,
        property(attrgetter("options." + _name), doc=f"``options.{_name}`` (read-only)."),
    )
del _name
