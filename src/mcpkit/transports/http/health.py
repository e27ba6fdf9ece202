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
``store_backend`` (``Server(store=...)``), ``bus``, its task manager's ``store`` and the HTTP
app's ``event_store`` are checked when they have one. Each check has :attr:`Health.timeout` seconds.

This module knows no server: a :class:`Health` is told by callables whether the server's
lifespan runs and which stores it uses, and ``/metrics`` renders through a callable too.
:mod:`mcpkit.server.probes` (``health_of``, ``probes_for``) builds them for a
:class:`~mcpkit.server.app.Server`.

The probe paths answer before the MCP endpoint's Host/Origin and OAuth checks (a probe
carries neither); they say nothing secret, but ``/metrics`` names tools: serve them on their
own port (``observability_port=``) when the MCP port is public.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import warnings
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

import orjson

from mcpkit.asgi_types import Receive, Scope, Send
from mcpkit.transports.http.asgi import JSON_HEADERS, respond

if TYPE_CHECKING:
    from mcpkit.transports.http.server import StreamableHTTPApp

__all__ = [
    "HEALTHZ_PATH",
    "METRICS_PATH",
    "READYZ_PATH",
    "Health",
    "ObservabilityApp",
    "ReadinessCheck",
    "StoreList",
]

HEALTHZ_PATH: Final = "/healthz"
READYZ_PATH: Final = "/readyz"
METRICS_PATH: Final = "/metrics"
#: A readiness check: sync or async, not ready when it raises or returns ``False``.
ReadinessCheck = Callable[[], Awaitable[object] | object]
#: The stores to check, by name (asked on every ``/readyz``; those with ``ready()`` count).
StoreList = Callable[[], Iterable[tuple[str, object]]]
_TEXT: Final = [(b"content-type", b"text/plain; charset=utf-8")]


@runtime_checkable
class SupportsReady(Protocol):
    """A store that can say whether it is reachable (a Redis backend, bus or task store):
    its ``ready()`` takes part in ``/readyz``."""

    def ready(self) -> Awaitable[object] | object: ...


def _no_stores() -> tuple[tuple[str, object], ...]:
    return ()


class Health:
    """Liveness and readiness of one server (see the module docstring): ``running()`` says
    whether its lifespan runs, ``stores()`` names the stores it uses."""

    def __init__(
        self, running: Callable[[], bool], stores: StoreList = _no_stores, *, timeout: float = 2.0
    ) -> None:
        self._running = running
        self._stores = stores
        #: Seconds each readiness check may take before it counts as failed.
        self.timeout = timeout
        self._checks: dict[str, ReadinessCheck] = {}

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

    def started(self, http_app: StreamableHTTPApp | None = None) -> bool:
        """True while the server's lifespan runs, until shutdown begins (of ``http_app``, a
        :class:`~mcpkit.transports.http.StreamableHTTPApp`, when given)."""
        if not self._running():
            return False
        return http_app is None or not http_app.shutting_down

    def _store_checks(self, stores: Iterable[tuple[str, object]]) -> dict[str, ReadinessCheck]:
        found: dict[str, ReadinessCheck] = {}
        candidates = [*self._stores(), *stores]
        for name, store in candidates:
            if isinstance(store, SupportsReady):
                found[name] = store.ready
        return found

    async def readiness(
        self, http_app: StreamableHTTPApp | None = None
    ) -> tuple[bool, dict[str, str]]:
        """Run every check (at once, each bounded by :attr:`timeout`): whether all pass, and
        each one's outcome (``"ok"`` or why not). ``http_app``: the
        :class:`~mcpkit.transports.http.StreamableHTTPApp` served (its shutdown and its
        ``event_store`` count too)."""
        if not self._running():
            lifespan = "not running"
        elif http_app is not None and http_app.shutting_down:
            lifespan = "shutting down"
        else:
            lifespan = "ok"
        report: dict[str, str] = {"lifespan": lifespan}
        stores: list[tuple[str, object]] = []
        if http_app is not None:
            stores.append(("event_store", http_app.event_store))
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


class ObservabilityApp:
    """An ASGI app answering the probe and metrics paths, 404 for every other path: the app
    of a port of its own (``observability_port=``), or what a :class:`ServerHTTPApp
    <mcpkit.server.app.ServerHTTPApp>` asks first (see :func:`probes_for`).

    ``health`` (a :class:`Health`; None: no probes), ``metrics`` (renders the metrics
    text, of ``metrics_type``; None: no ``/metrics``), ``http_app``: the
    :class:`~mcpkit.transports.http.StreamableHTTPApp` whose shutdown and event store
    ``/readyz`` watches.
    """

    def __init__(
        self,
        *,
        health: Health | None = None,
        metrics: Callable[[], bytes] | None = None,
        metrics_type: str = "text/plain; version=0.0.4; charset=utf-8",
        http_app: StreamableHTTPApp | None = None,
    ) -> None:
        self.health = health
        self.metrics = metrics
        self._metrics_type = [(b"content-type", metrics_type.encode())]
        self.http_app = http_app
        self.routes: dict[str, Callable[[], Awaitable[tuple[int, bytes, list[Any]]]]] = {}
        if health is not None:
            self.routes[HEALTHZ_PATH] = self._healthz
            self.routes[READYZ_PATH] = self._readyz
        if metrics is not None:
            self.routes[METRICS_PATH] = self._metrics

    async def _healthz(self) -> tuple[int, bytes, list[Any]]:
        return 200, orjson.dumps({"status": "ok"}), JSON_HEADERS

    async def _readyz(self) -> tuple[int, bytes, list[Any]]:
        assert self.health is not None
        ready, checks = await self.health.readiness(self.http_app)
        body = {"status": "ready" if ready else "not ready", "checks": checks}
        return (200 if ready else 503), orjson.dumps(body), JSON_HEADERS

    async def _metrics(self) -> tuple[int, bytes, list[Any]]:
        assert self.metrics is not None
        return 200, self.metrics(), self._metrics_type

    def route_of(self, scope: Scope) -> str | None:
        """The path of :attr:`routes` an HTTP request asks for (below the ``root_path`` of
        an app it is mounted in), or None."""
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        return path if path in self.routes else None

    async def answer(self, scope: Scope, send: Send) -> None:
        """Answer an HTTP request for one of :attr:`routes` (``GET`` or ``HEAD``)."""
        path = self.route_of(scope)
        if path is None:
            await respond(send, 404, b"Not Found", _TEXT)
            return
        route = self.routes[path]
        method = scope.get("method", "GET")
        if method not in ("GET", "HEAD"):
            await respond(send, 405, b"Method Not Allowed", [*_TEXT, (b"allow", b"GET, HEAD")])
            return
        status, body, headers = await route()
        headers = [*headers, (b"cache-control", b"no-store")]
        await respond(send, status, b"" if method == "HEAD" else body, headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self.answer(scope, send)
        elif kind == "lifespan":  # nothing to start: the server's app runs the lifespan
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return


#: Former names here, now of :mod:`mcpkit.server.probes` (they take a Server).
_MOVED: Final = ("health_of", "probes_for")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(
            f"mcpkit.transports.http.health.{name} is deprecated: use mcpkit.server.probes.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module("mcpkit.server.probes"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
