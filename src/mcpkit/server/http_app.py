"""What :meth:`Server.http_app <mcpkit.server.core.ServerCore.http_app>` returns: the
Streamable HTTP app of a server, entering the server's lifespan on the ASGI lifespan."""

from __future__ import annotations

import contextlib
import operator
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Protocol

from mcpkit.http_request import scope_var

if TYPE_CHECKING:
    from mcpkit.bus import BusRelay
    from mcpkit.transports.base import Transport
    from mcpkit.transports.http.event_store import EventStore
    from mcpkit.transports.http.health import ObservabilityApp
    from mcpkit.transports.http.host import MemorySessionHost, SessionHost
    from mcpkit.transports.http.host_origin import HostOriginMiddleware
    from mcpkit.transports.http.options import HttpServerOptions
    from mcpkit.transports.http.routes import CustomRoutes
    from mcpkit.transports.http.served import ServedApp
    from mcpkit.transports.http.server import Receive, Scope, Send, StreamableHTTPApp
    from mcpkit.transports.http.session_transport import HttpSessionTransport
    from mcpkit.versions import ProtocolVersion

__all__ = ["LifespanServer", "ServerHTTPApp"]


class LifespanServer(Protocol):
    """What :class:`ServerHTTPApp` reads of the server it serves (a
    :class:`~mcpkit.server.core.ServerCore` is one)."""

    @property
    def relay(self) -> BusRelay: ...

    @property
    def middleware(self) -> Sequence[Any]: ...

    async def end_listens(self) -> None: ...

    def running(self) -> AbstractAsyncContextManager[Any]: ...


#: :func:`mcpkit.http_request.serving` and ``stop_serving``, bound once.
_serving = scope_var.set
_stop_serving = scope_var.reset


class _StartupFailed(Exception):
    """The server's lifespan failed at the ASGI ``lifespan.startup``."""


#: The scope key of a request that went through the middleware of ``add_middleware``.
_PAST_MIDDLEWARE = "mcpkit.past_middleware"


class ServerHTTPApp:
    """What :meth:`Server.http_app` returns: the :class:`StreamableHTTPApp` serving the server
    (``app``), wrapped to enter the server's lifespan on ``lifespan.startup`` (and leave it on
    shutdown); everything else passes straight through, and so do the inner app's attributes
    (``sessions``, ``options``, ``max_body_size``, ``terminate_session``, ...: read from
    ``app``, and those the inner app lets be assigned assigned there).

    Mounted inside another app it gets no lifespan events: pass :meth:`lifespan` to the host
    (``Starlette(..., lifespan=asgi.lifespan)``, ``FastAPI(lifespan=asgi.lifespan)``)."""

    if TYPE_CHECKING:
        # Forwarded to ``app`` by the properties made below the class (no __getattr__: it
        # would keep CPython from specializing this class's own attribute reads, which
        # every request makes). The settings of ``options`` are forwarded too, untyped.
        options: HttpServerOptions
        session_factory: Callable[[Transport], Any]
        served: ServedApp | None
        shared: Any
        auth: Any
        path: str
        stateless: bool
        json_response: bool
        event_store: EventStore | None
        host_origin: HostOriginMiddleware
        allowed_hosts: Any
        allowed_origins: Any
        table: MemorySessionHost
        host: SessionHost
        supported_names: dict[str, ProtocolVersion]
        shutting_down: bool
        shutdown_hooks: list[Callable[[], None]]
        shutdown_grace: float
        session_not_found: bytes | None
        sdk_streams: bool
        legacy: Any
        sessions: dict[str, HttpSessionTransport]
        session_idle_timeout: float | None
        initialize_timeout: float | None
        modern_versions: tuple[ProtocolVersion, ...]

        def served_app(self) -> ServedApp | None: ...
        async def start_shared(self) -> None: ...
        async def terminate_session(self, session_id: str) -> bool: ...
        def close_streams(self) -> None: ...

    def __init__(self, app: StreamableHTTPApp, server: LifespanServer, gate: Any = None) -> None:
        self.app = app
        self.server = server
        #: The :class:`~mcpkit.server.middleware.InFlightLimit` of ``max_in_flight``, or None.
        self.gate = gate
        self._probes: ObservabilityApp | None = None
        self._routes: CustomRoutes | None = None
        # What answers ahead of the endpoint (probes, custom routes); None: nothing.
        self._front: Callable[[Scope, Receive, Send], Awaitable[bool]] | None = None
        # The middleware of add_middleware, outermost first, and the app they make.
        self._middleware: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []
        self._stack: Callable[[Scope, Receive, Send], Awaitable[None]] | None = None
        #: What the server's lifespan raised at the ASGI ``lifespan.startup`` (the ASGI
        #: server is told the startup failed; None: it did not fail).
        self.startup_error: Exception | None = None
        # At shutdown listen streams end first, each answering its closing result.
        app.shutdown_hooks.append(server.relay.end_listens)

    @property
    def probes(self) -> ObservabilityApp | None:
        """The ``/healthz``, ``/readyz`` and ``/metrics`` app (``http_app(health=,
        metrics=)``), answered ahead of everything else; None: no such paths."""
        return self._probes

    @probes.setter
    def probes(self, probes: ObservabilityApp | None) -> None:
        self._probes = probes
        self._front = self._answer_front if probes is not None or self._routes else None
        if self._stack is not None:
            self._front = self._answer_front

    @property
    def routes(self) -> CustomRoutes | None:
        """The plain routes of :meth:`Server.custom_route`, answered ahead of the endpoint
        (after the probes); None: no such routes."""
        return self._routes

    @routes.setter
    def routes(self, routes: CustomRoutes | None) -> None:
        self._routes = routes
        self._front = self._answer_front if routes is not None or self._probes else None
        if self._stack is not None:
            self._front = self._answer_front

    def add_middleware(
        self, middleware_class: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> None:
        """Wrap every HTTP request to this app (its probes and custom routes too) in an
        ASGI middleware, ``middleware_class(app, *args, **kwargs)``, as Starlette's
        ``add_middleware`` does: the last added outermost (CORS, for instance)."""
        self._middleware.insert(0, (middleware_class, args, kwargs))
        app: Callable[[Scope, Receive, Send], Awaitable[None]] = self._past_middleware
        for cls, cls_args, cls_kwargs in reversed(self._middleware):
            app = cls(app, *cls_args, **cls_kwargs)
        self._stack = app
        self._front = self._answer_front

    async def _past_middleware(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self({**scope, _PAST_MIDDLEWARE: True}, receive, send)

    async def _answer_front(self, scope: Scope, receive: Receive, send: Send) -> bool:
        stack = self._stack
        if stack is not None and _PAST_MIDDLEWARE not in scope:
            await stack(scope, receive, send)
            return True
        probes = self._probes
        if probes is not None and scope["type"] == "http" and probes.route_of(scope):
            await probes.answer(scope, send)
            return True
        routes = self._routes
        if routes is not None and routes.route_of(scope):
            await routes(scope, receive, send)
            return True
        return False

    async def aclose(self) -> None:
        """End every ``subscriptions/listen`` stream gracefully, then every session (what
        the ASGI lifespan's shutdown does)."""
        await self.server.end_listens()
        await self.app.aclose()

    @contextlib.asynccontextmanager
    async def lifespan(self, host_app: object = None) -> AsyncIterator[None]:
        """A lifespan for the application this app is mounted in: enters the server's
        lifespan, and on exit ends every session (then leaves the lifespan).

        ``host_app`` (what Starlette and FastAPI pass) is ignored; to combine with a lifespan
        of your own, ``async with asgi.lifespan(app):`` inside it."""
        async with self.server.running():
            try:
                yield
            finally:
                await self.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind != "lifespan":
            front = self._front  # probes and custom routes, when there are any
            if front is not None and await front(scope, receive, send):
                return
            if self.gate is None and not self.server.middleware:
                if kind == "http":
                    # What the inner app's __call__ does, without its coroutine frame.
                    mark = _serving(scope)
                    try:
                        await self.app.handle_http(scope, receive, send)
                    finally:
                        _stop_serving(mark)
                else:
                    await self.app(scope, receive, send)
                return
            # Middleware learn where the request came from (its handler task inherits this).
            from mcpkit.server.middleware.base import _HttpOrigin, http_origin

            client = scope.get("client")
            token = http_origin.set(_HttpOrigin(client[0] if client else None, self.gate))
            try:
                await self.app(scope, receive, send)
            finally:
                http_origin.reset(token)
            return
        stack = contextlib.AsyncExitStack()

        async def wrapped_receive() -> Any:
            message = await receive()
            kind = message.get("type")
            if kind == "lifespan.startup":
                try:
                    await stack.enter_async_context(self.server.running())
                except Exception as exc:
                    self.startup_error = exc
                    raise _StartupFailed from exc
            elif kind == "lifespan.shutdown":
                await self.aclose()  # sessions end while the lifespan still runs
                await stack.aclose()
            return message

        try:
            await self.app(scope, wrapped_receive, send)
        except _StartupFailed:
            # Reported, not logged: whoever serves the app raises startup_error itself
            # (mcpkit.transports.http.running does), as run_stdio would.
            await send({"type": "lifespan.startup.failed", "message": ""})
        finally:
            await stack.aclose()


#: The attributes of :class:`StreamableHTTPApp` a :class:`ServerHTTPApp` forwards: its data
#: (read from and assigned to the inner app; a read-only one stays read-only) ...
_FORWARDED_DATA = (
    "options",
    "session_factory",
    "served",
    "shared",
    "auth",
    "path",
    "stateless",
    "json_response",
    "event_store",
    "host_origin",
    "allowed_hosts",
    "allowed_origins",
    "table",
    "host",
    "supported_names",
    "modern_streams",
    "disconnect_watch",
    "shutting_down",
    "shutdown_hooks",
    "shutdown_grace",
    "session_not_found",
    "sdk_streams",
    "legacy",
    "sessions",
    "session_idle_timeout",
    "initialize_timeout",
    "modern_versions",
    # the settings of ``options``, read-only properties of the inner app
    "dns_rebinding_protection",
    "max_body_size",
    "max_header_bytes",
    "max_header_count",
    "body_timeout",
    "min_body_rate",
    "body_rate_grace",
    "max_sessions",
    "max_sessions_per_client",
    "sse_retry_ms",
    "keepalive_interval",
    "max_stream_buffer",
    "slow_reader_timeout",
    "supported_versions",
    "legacy_sse",
    "legacy_sse_path",
    "legacy_messages_path",
)
#: ... and its methods (read from the inner app).
_FORWARDED_METHODS = (
    "start_shared",
    "served_app",
    "session_here",
    "session_of",
    "serve_requests",
    "not_found",
    "terminate_session",
    "close_streams",
    "stream_sse",
    "cancel_is_quiet",
    "stream_ended",
    "handle_http",
)


def _forward(name: str, settable: bool) -> property:
    get = operator.attrgetter("app." + name)
    doc = f"``app.{name}`` (see :class:`~mcpkit.transports.http.StreamableHTTPApp`)."
    if not settable:
        return property(get, doc=doc)

    def assign(self: ServerHTTPApp, value: Any) -> None:
        setattr(self.app, name, value)

    return property(get, assign, doc=doc)


for _name in _FORWARDED_DATA:
    setattr(ServerHTTPApp, _name, _forward(_name, True))
for _name in _FORWARDED_METHODS:
    setattr(ServerHTTPApp, _name, _forward(_name, False))
del _name
