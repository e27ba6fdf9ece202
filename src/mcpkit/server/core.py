"""The core of a server: its sessions and how it is served.

:class:`ServerCore` is every part of the public :class:`~mcpkit.server.app.Server` but the
methods that build compositions: the settings, registries and stores
(:class:`~mcpkit.server.configured.ConfiguredServer`), the handler table
(:class:`~mcpkit.server.handling.HandlingServer`), the decorators
(:class:`~mcpkit.server.registering.RegisteringServer`), and here the sessions it makes
(:meth:`~ServerCore.session`: stdio, Streamable HTTP and the in-memory client all go through
it) and serving (:meth:`~ServerCore.run`, :meth:`~ServerCore.http_app`). Compositions (mount,
proxy, OpenAPI, transforms) are built on it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any, Literal, Self, Unpack, overload

from mcpkit._extras import needs_extra
from mcpkit.jsonrpc import JSONObject
from mcpkit.server import mcp_apps as apps_feature
from mcpkit.server.context import LifespanT
from mcpkit.server.http_app import ServerHTTPApp
from mcpkit.server.registering import RegisteringServer
from mcpkit.server.session import AppSession
from mcpkit.transports.base import Transport
from mcpkit.versions import Era

if TYPE_CHECKING:
    from mcpkit.server.http_served import ServerServedApp
    from mcpkit.transports.http.health import ObservabilityApp
    from mcpkit.transports.http.options import HttpServerOptions, HttpSettings
    from mcpkit.transports.http.server import StreamableHTTPApp

__all__ = ["ServerCore"]


class ServerCore(RegisteringServer[LifespanT]):
    """A server without the methods that build compositions (see :class:`mcpkit.Server`)."""

    # -- lifespan -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Self]:
        """Enter the lifespan (nested entries share one); stdio and HTTP do this for you."""
        if self._lifespan_depth == 0:
            apps_feature.check_links(self)
        if self._lifespan_depth == 0 and self._lifespan is not None:
            stack = contextlib.AsyncExitStack()
            self._lifespan_state = await stack.enter_async_context(self._lifespan(self))
            self._lifespan_stack = stack
        self._lifespan_depth += 1
        self.relay.start()
        try:
            yield self
        finally:
            self._lifespan_depth -= 1
            if self._lifespan_depth == 0:
                self.relay.stop()  # listen streams end gracefully
                stack_ = self._lifespan_stack
                self._lifespan_stack = None
                if stack_ is not None:
                    await stack_.aclose()
                self._lifespan_state = None
                if self._task_manager is not None:
                    await self._task_manager.shutdown()
                self.workers.shutdown()

    # -- sessions -------------------------------------------------------------------------------

    def served_app(self) -> ServerServedApp:
        """What this server hands the Streamable HTTP app serving it (see
        :mod:`mcpkit.transports.http.served`)."""
        from mcpkit.server.http_served import ServerServedApp

        return ServerServedApp(self, ServerCore.session)

    def session(
        self, transport: Transport, *, era: Era | None = None, **session_kwargs: Any
    ) -> AppSession:
        """A server session on ``transport`` with all of this server's handlers (not started).

        ``era``: None lets the first request decide (``initialize``: legacy; a request with
        the modern ``_meta`` envelope: modern); ``"modern"`` serves only stateless requests
        (a per-request session of Streamable HTTP); ``"legacy"`` only the handshake era.
        ``session_kwargs`` go to :class:`~mcpkit.session.ServerSession` (``tracer``,
        ``max_in_flight``, ``default_timeout``, ...).
        """
        session_kwargs.setdefault("debug", self.debug)
        session = AppSession(
            self,
            transport,
            server_info=self.server_info,
            capabilities=self.capabilities,
            instructions=self.instructions,
            **session_kwargs,
        )
        session.install(self.handler_table())
        self.relay.start()
        session.set_notification_handler(
            "notifications/roots/list_changed", functools.partial(self._roots_changed, session)
        )
        for method, nhandler in self._raw_notifications.items():
            session.set_notification_handler(method, nhandler)
        chain = self._chain()
        if chain:
            from mcpkit.server.middleware.chain import wrap_notification

            for method, nhandler in list(session._notification_handlers.items()):
                session.set_notification_handler(
                    method,
                    wrap_notification(
                        method,
                        nhandler,
                        chain,
                        session,
                        eager=method == "notifications/initialized",
                    ),
                )
        if era == "modern":
            session.enter_modern()
        elif era == "legacy":
            session.era = "legacy"
        elif era is not None:
            raise ValueError(f"era must be 'legacy', 'modern' or None, not {era!r}")
        return session

    # -- running --------------------------------------------------------------------------------

    @overload
    def run(self, transport: Literal["stdio"] | None = None, **session_kwargs: Any) -> None: ...

    @overload
    def run(
        self,
        transport: Literal["http", "streamable-http", "sse"],
        *,
        log_level: str | None = None,
        host: str = "127.0.0.1",
        port: int = 8000,
        path: str = "/mcp",
        options: HttpServerOptions | None = None,
        health: bool = False,
        metrics: bool = False,
        observability_port: int | None = None,
        max_in_flight: int | None = None,
        max_queued: int | None = None,
        server: Literal["auto", "uvicorn", "granian"] = "auto",
        workers: int | None = None,
        **settings: Unpack[HttpSettings],
    ) -> None: ...

    def run(self, transport: str | None = None, **options: Any) -> None:
        """Serve until the client goes away (stdio) or the process is stopped (HTTP); Ctrl-C
        ends it quietly.

        What is not given comes from the ``MCPKIT_*`` environment variables
        (:func:`mcpkit.settings.run_options`): the transport (``MCPKIT_TRANSPORT``, else
        stdio), ``log_level`` (``MCPKIT_LOG_LEVEL``: records of that level and above to
        stderr), the store of a server made without one (``MCPKIT_STORE``, see
        :meth:`use_store`), and for HTTP ``host``, ``port``, ``path`` and the other options
        of the settings table (docs/configuration.md).

        ``app.run("http", host="127.0.0.1", port=8000, path="/mcp", stateless=False,
        json_response=False)`` serves Streamable HTTP (needs the ``http`` extra) and prints its
        URL to stderr; ``"sse"`` serves it with the 2024-11-05 HTTP+SSE endpoints (``/sse``,
        ``/messages``) beside it. The app's settings are ``options``, an
        :class:`~mcpkit.transports.http.HttpServerOptions`, or any of its fields as a
        keyword (as :meth:`http_app` takes them). For stdio, ``options`` go to
        :meth:`session`.
        ``health=True`` / ``metrics=True`` serve ``/healthz`` and ``/readyz`` / ``/metrics``
        beside the endpoint, or on ``observability_port`` when given (health then by
        default; see :mod:`mcpkit.transports.http.health`). ``server``: the ASGI server
        (``"uvicorn"``, ``"granian"`` with the ``granian`` extra, or ``"auto"``: see
        :func:`mcpkit.transports.http.serve.choose_server`). ``workers=N`` serves the port
        from N processes (:mod:`mcpkit.transports.http.workers`; without a store they serve
        stateless HTTP only, and say so).
        """
        from mcpkit.server import serving

        serving.run(self, transport, options)

    async def run_stdio(self, **session_kwargs: Any) -> None:
        """Serve one client over this process's stdin/stdout (``max_message_size``, bytes,
        and ``drain_timeout``, the seconds requests received before stdin's end of file get
        to finish, go to the transport; the rest to the session)."""
        from mcpkit.server.serving import serve_stdio

        await serve_stdio(self, **session_kwargs)

    def http_app(
        self,
        path: str = "/mcp",
        options: HttpServerOptions | None = None,
        *,
        max_in_flight: int | None = None,
        max_queued: int | None = None,
        health: bool = False,
        metrics: bool = False,
        auth: Any = None,
        **settings: Unpack[HttpSettings],
    ) -> ServerHTTPApp:
        """The Streamable HTTP ASGI app serving this server (needs the ``http`` extra).

        ``options``: an :class:`~mcpkit.transports.http.HttpServerOptions`; any of its
        fields may also be given as a keyword (``http_app(stateless=True)``), replacing the
        field of ``options``. ``auth``: a :class:`mcpkit.auth.ResourceServer` protecting
        this app (default: the server's own ``auth``).

        ``max_in_flight``: at most this many requests of this app (every session, both
        eras; ``subscriptions/listen`` streams not counted) are handled at once; up to
        ``max_queued`` more wait (default 4 times ``max_in_flight``), the rest are answered
        -31503 (:class:`~mcpkit.server.middleware.InFlightLimit`). Over HTTP a session's
        own ``max_in_flight`` (the engine's read backpressure) has nothing to pause, so this
        is the HTTP app's limit instead.

        Mounted inside another ASGI app, give the host its ``lifespan``
        (``Starlette(..., lifespan=asgi.lifespan)``) so the server's lifespan runs and its
        sessions end at shutdown.

        ``health=True`` answers ``/healthz`` and ``/readyz``, ``metrics=True`` ``/metrics``
        (the ``metrics`` extra) on this app, ahead of the endpoint's Host/Origin and OAuth
        checks (see :mod:`mcpkit.transports.http.health`)."""
        try:
            from mcpkit.transports.http import HttpServerOptions, StreamableHTTPApp
        except ImportError as exc:
            raise needs_extra("Streamable HTTP", "http", exc.name) from exc
        self._http_served = True
        shared = None
        options = HttpServerOptions.merged(options, settings)
        if self.store_backend is not None and not options.stateless:
            from mcpkit.redis.sessions import shared_sessions

            shared = shared_sessions(self.store_backend)
        inner = StreamableHTTPApp(
            self.session,
            path,
            options,
            auth=self.auth if auth is None else auth,
            shared=shared,
            served=self.served_app(),
        )
        gate = None
        if max_in_flight is not None:
            from mcpkit.server.middleware.concurrency import InFlightLimit

            gate = InFlightLimit(max_in_flight, max_queued)
            if not self._http_gates:
                self._http_gates = True
                self._reinstall()
        asgi = ServerHTTPApp(inner, self, gate)
        if self._custom_routes:
            from mcpkit.transports.http.routes import CustomRoutes

            clash = [p for p, *_ in self._custom_routes if p.rstrip("/") == path.rstrip("/")]
            if clash:
                raise ValueError(f"custom route {clash[0]!r} is the MCP endpoint's path")
            asgi.routes = CustomRoutes(self._custom_routes)
        if health or metrics:
            asgi.probes = self.probe_app(inner, health=health, metrics=metrics)
        return asgi

    def probe_app(
        self, http_app: StreamableHTTPApp | None = None, *, health: bool, metrics: bool
    ) -> ObservabilityApp:
        """The ``/healthz``, ``/readyz`` and ``/metrics`` app of this server (and of its
        Streamable HTTP app); see :mod:`mcpkit.transports.http.health`."""
        from mcpkit.server.probes import probes_for

        return probes_for(self, http_app, health=health, metrics=metrics)

    # -- notifications from clients -------------------------------------------------------------

    def _roots_changed(
        self, session: AppSession, params: JSONObject | None = None
    ) -> Awaitable[None] | None:
        if not self._roots_hooks:
            return None
        return self._run_roots_hooks(session)

    async def _run_roots_hooks(self, session: AppSession) -> None:
        for hook in self._roots_hooks:
            outcome = hook(session)
            if inspect.isawaitable(outcome):
                await outcome
