"""Health probes and Prometheus metrics over HTTP: ``/healthz``, ``/readyz``, ``/metrics``.

```python
asgi = app.http_app(health=True, metrics=True)        # beside /mcp on the same app
app.run("http", health=True, metrics=True)            # the same, served
app.run("http", metrics=True, observability_port=9464) # on a port of their own
```

- ``GET /healthz`` (liveness): 200 ``{"status": "ok"}`` while the process serves.
- ``GET /readyz`` (readiness): 200 ``{"status": "ready", "checks": {...}}`` once the
  server's lifespan has started and every readiness check passes; else 503
  ``{"status": "not ready", "checks": {...}}`` naming what failed (also from the moment
  shutdown begins, so a load balancer stops sending before sessions end).
- ``GET /metrics``: the server's Prometheus registry in the text format (see
  :mod:`mcpkit.telemetry.prometheus`).

Readiness checks are pluggable (:class:`Health`): ``health_of(app).add_check(name, fn)``
with ``fn`` sync or async, failing by raising or returning ``False``. A store takes part on
its own by having an ``async def ready(self)`` with the same contract: the server's
``bus``, its task manager's ``store`` and the HTTP app's ``event_store`` are checked when
they have one (the Redis stores do). Each check has :attr:`Health.timeout` seconds.

The probe paths answer before the MCP endpoint's Host/Origin and OAuth checks (a probe
carries neither); they say nothing secret, but ``/metrics`` names tools: serve them on their
own port (``observability_port=``) when the MCP port is public.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

import orjson

from mcpkit.transports.http.asgi import JSON_HEADERS, Receive, Scope, Send, respond

if TYPE_CHECKING:
    from mcpkit.server.app import Server
    from mcpkit.telemetry.prometheus import PrometheusMetrics

__all__ = [
    "HEALTHZ_PATH",
    "METRICS_PATH",
    "READYZ_PATH",
    "Health",
    "ObservabilityApp",
    "ReadinessCheck",
    "health_of",
]

HEALTHZ_PATH: Final = "/healthz"
READYZ_PATH: Final = "/readyz"
METRICS_PATH: Final = "/metrics"
#: A readiness check: sync or async, not ready when it raises or returns ``False``.
ReadinessCheck = Callable[[], Awaitable[object] | object]
_HEALTH: weakref.WeakKeyDictionary[Server, Health] = weakref.WeakKeyDictionary()
_TEXT: Final = [(b"content-type", b"text/plain; charset=utf-8")]


class Health:
    """Liveness and readiness of one server (see the module docstring)."""

    def __init__(self, server: Server, *, timeout: float = 2.0) -> None:
        self._server = weakref.ref(server)
        #: Seconds each readiness check may take before it counts as failed.
        self.timeout = timeout
        self._checks: dict[str, ReadinessCheck] = {}
        self._started = False
        self._stopping = False

    def add_check(self, name: str, check: ReadinessCheck) -> None:
        """Check ``check`` (under ``name``) on every ``/readyz``."""
        if not callable(check):
            raise TypeError(f"a readiness check must be callable, not {type(check).__name__}")
        self._checks[name] = check

    def remove_check(self, name: str) -> None:
        """Stop checking ``name`` (no error when it is not there)."""
        self._checks.pop(name, None)

    @property
    def checks(self) -> dict[str, ReadinessCheck]:
        """The checks added with :meth:`add_check`, by name."""
        return dict(self._checks)

    def lifespan_started(self) -> None:
        """The ASGI lifespan started (the server's lifespan is running)."""
        self._started, self._stopping = True, False

    def lifespan_stopping(self) -> None:
        """Shutdown began: not ready from now on."""
        self._stopping = True

    @property
    def started(self) -> bool:
        """True from lifespan startup until shutdown begins."""
        return self._started and not self._stopping

    def _store_checks(self, stores: Iterable[tuple[str, object]]) -> dict[str, ReadinessCheck]:
        found: dict[str, ReadinessCheck] = {}
        server = self._server()
        candidates: list[tuple[str, object]] = []
        if server is not None:
            candidates.append(("bus", server.bus))
            candidates.append(("task_store", getattr(server.task_manager, "store", None)))
        candidates.extend(stores)
        for name, store in candidates:
            ready = getattr(store, "ready", None)
            if store is not None and callable(ready):
                found[name] = ready
        return found

    async def readiness(
        self, stores: Iterable[tuple[str, object]] = ()
    ) -> tuple[bool, dict[str, str]]:
        """Run every check (at once, each bounded by :attr:`timeout`): whether all pass, and
        each one's outcome (``"ok"`` or why not). ``stores``: more ``(name, store)`` pairs
        whose ``ready()`` counts (the HTTP app's event store)."""
        report: dict[str, str] = {"lifespan": "ok" if self.started else "not started"}
        if self._stopping:
            report["lifespan"] = "shutting down"
        checks = {**self._store_checks(stores), **self._checks}
        names = list(checks)
        outcomes = await asyncio.gather(*(self._run(checks[name]) for name in names))
        report.update(zip(names, outcomes, strict=True))
        return all(outcome == "ok" for outcome in report.values()), report

    async def _run(self, check: ReadinessCheck) -> str:
        try:
            async with asyncio.timeout(self.timeout):
                outcome = check()
                if inspect.isawaitable(outcome):
                    outcome = await outcome
        except TimeoutError:
            return f"timed out after {self.timeout:g}s"
        except Exception as exc:
            return f"failed: {type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return "failed" if outcome is False else "ok"


def health_of(server: Server) -> Health:
    """The :class:`Health` of ``server`` (made on first use; one per server)."""
    found = _HEALTH.get(server)
    if found is None:
        found = _HEALTH[server] = Health(server)
    return found


class ObservabilityApp:
    """An ASGI app answering the probe and metrics paths and passing everything else to
    ``app`` (404 without one: the app of a separate port).

    ``health`` (a :class:`Health`, None: no probes), ``metrics`` (a
    :class:`~mcpkit.telemetry.prometheus.PrometheusMetrics`, None: no ``/metrics``);
    ``stores``: ``(name, store)`` pairs checked by ``/readyz`` beside the server's own.
    ``routes=False`` serves no path at all and only watches the lifespan (the main app when
    the probes have a port of their own). The lifespan events passing through mark the
    server started and stopping.
    """

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]] | None,
        *,
        health: Health | None = None,
        metrics: PrometheusMetrics | None = None,
        stores: Iterable[tuple[str, object]] = (),
        routes: bool = True,
    ) -> None:
        self.app = app
        self.health = health
        self.metrics = metrics
        self.stores = tuple(stores)
        self._paths: dict[str, Callable[[], Awaitable[tuple[int, bytes, list[Any]]]]] = {}
        if routes and health is not None:
            self._paths[HEALTHZ_PATH] = self._healthz
            self._paths[READYZ_PATH] = self._readyz
        if routes and metrics is not None:
            self._paths[METRICS_PATH] = self._metrics

    def __getattr__(self, name: str) -> Any:
        if name == "app":  # not set yet (during __init__)
            raise AttributeError(name)
        return getattr(self.app, name)

    @contextlib.asynccontextmanager
    async def lifespan(self, host_app: object = None) -> AsyncIterator[None]:
        """The wrapped app's lifespan for a host application (see
        :meth:`ServerHTTPApp.lifespan <mcpkit.server.app.ServerHTTPApp.lifespan>`), marking
        the server started and stopping."""
        inner = getattr(self.app, "lifespan", None)
        async with contextlib.AsyncExitStack() as stack:
            if inner is not None:
                await stack.enter_async_context(inner(host_app))
            if self.health is not None:
                self.health.lifespan_started()
            try:
                yield
            finally:
                if self.health is not None:
                    self.health.lifespan_stopping()

    async def _healthz(self) -> tuple[int, bytes, list[Any]]:
        return 200, orjson.dumps({"status": "ok"}), JSON_HEADERS

    async def _readyz(self) -> tuple[int, bytes, list[Any]]:
        assert self.health is not None
        ready, checks = await self.health.readiness(self.stores)
        body = {"status": "ready" if ready else "not ready", "checks": checks}
        return (200 if ready else 503), orjson.dumps(body), JSON_HEADERS

    async def _metrics(self) -> tuple[int, bytes, list[Any]]:
        assert self.metrics is not None
        from mcpkit.telemetry.prometheus import CONTENT_TYPE

        return 200, self.metrics.render(), [(b"content-type", CONTENT_TYPE.encode())]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            route = self._paths.get(scope["path"])
            if route is not None:
                await self._answer(route, scope, send)
                return
        elif kind == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        if self.app is None:
            await respond(send, 404, b"Not Found", _TEXT)
            return
        await self.app(scope, receive, send)

    async def _answer(
        self,
        route: Callable[[], Awaitable[tuple[int, bytes, list[Any]]]],
        scope: Scope,
        send: Send,
    ) -> None:
        method = scope.get("method", "GET")
        if method not in ("GET", "HEAD"):
            await respond(send, 405, b"Method Not Allowed", [*_TEXT, (b"allow", b"GET, HEAD")])
            return
        status, body, headers = await route()
        headers = [*headers, (b"cache-control", b"no-store")]
        await respond(send, status, b"" if method == "HEAD" else body, headers)

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        health = self.health

        async def watched_receive() -> Any:
            message = await receive()
            if health is not None and message.get("type") == "lifespan.shutdown":
                health.lifespan_stopping()
            return message

        async def watched_send(message: Any) -> None:
            if health is not None and message.get("type") == "lifespan.startup.complete":
                health.lifespan_started()
            await send(message)

        if self.app is not None:
            await self.app(scope, watched_receive, watched_send)
            return
        while True:  # a probe-only app: nothing to start
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
