"""Prometheus metrics of a server (the ``metrics`` extra: ``prometheus-client``).

Each server gets its own ``CollectorRegistry`` (:func:`metrics_for`), filled by a
:class:`PrometheusMiddleware` and served as ``/metrics`` by the HTTP app
(``app.http_app(metrics=True)``, ``app.run("http", metrics=True)``; see
:mod:`mcpkit.transports.http.health`):

| metric | type | labels |
|---|---|---|
| ``mcp_server_requests_total`` | counter | ``method``, ``target``, ``error_type`` |
| ``mcp_server_errors_total`` | counter | ``method``, ``target``, ``error_type`` |
| ``mcp_server_operation_duration_seconds`` | histogram | ``method``, ``target`` |
| ``mcp_server_requests_in_flight`` | gauge | ``method`` |
| ``mcp_server_sessions`` | gauge | (2025-era sessions open) |
| ``mcp_server_tasks_created_total`` | counter | ``target`` |
| ``mcp_server_tasks_active`` | gauge | (tasks running in this process) |

``target`` is the tool of ``tools/call`` or the prompt of ``prompts/get`` when the server
has one of that name (``_OTHER`` for a name it does not know, so clients cannot grow the
label set), empty otherwise; ``error_type`` follows the OpenTelemetry conventions (the
JSON-RPC code, ``tool_error``, ``cancelled``, an exception's class name), empty on success.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from mcpkit._extras import needs_extra

try:
    from prometheus_client import (
        CONTENT_TYPE_LATEST,
        CollectorRegistry,
        Counter,
        Gauge,
        Histogram,
        generate_latest,
    )
    from prometheus_client.core import GaugeMetricFamily
    from prometheus_client.registry import Collector
except ModuleNotFoundError as exc:  # the extra is not installed
    raise needs_extra("Serving Prometheus metrics", "metrics", exc.name) from None

from mcpkit.server.middleware.base import CallNext, Middleware, MiddlewareContext
from mcpkit.telemetry import semconv as sc
from mcpkit.telemetry.observe import ObservedServer, active_sessions, active_tasks, created_task

if TYPE_CHECKING:
    from prometheus_client import Metric

    from mcpkit.server.context import ServerView

__all__ = [
    "CONTENT_TYPE",
    "MeasuredServer",
    "PrometheusMetrics",
    "PrometheusMiddleware",
    "metrics_for",
]

#: The ``Content-Type`` of the text exposition format.
CONTENT_TYPE: Final = CONTENT_TYPE_LATEST
_OTHER: Final = "_OTHER"


class MeasuredServer(ObservedServer, Protocol):
    """What :func:`metrics_for` needs of a server (a :class:`~mcpkit.Server` is one): what
    telemetry reads, and adding the middleware that records."""

    def add_middleware(self, middleware: Middleware) -> None: ...


_METRICS: weakref.WeakKeyDictionary[MeasuredServer, PrometheusMetrics] = weakref.WeakKeyDictionary()


class _ServerCollector(Collector):
    """Sessions and running tasks, read from the server at each scrape."""

    def __init__(self, server: ObservedServer) -> None:
        self._server = weakref.ref(server)

    def collect(self) -> Iterator[Metric]:
        server = self._server()
        sessions = active_sessions(server) if server is not None else 0
        tasks = active_tasks(server) if server is not None else 0
        yield GaugeMetricFamily("mcp_server_sessions", "2025-era MCP sessions open", sessions)
        yield GaugeMetricFamily("mcp_server_tasks_active", "Tasks running in this process", tasks)


class PrometheusMetrics:
    """The MCP request metrics of one server in a registry of their own (see the module
    docstring); :attr:`middleware` records them, :meth:`render` exposes them."""

    def __init__(
        self, server: ObservedServer, *, registry: CollectorRegistry | None = None
    ) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        labels = ("method", "target", "error_type")
        self.requests = Counter(
            "mcp_server_requests", "MCP requests handled", labels, registry=self.registry
        )
        self.errors = Counter(
            "mcp_server_errors", "MCP requests that failed", labels, registry=self.registry
        )
        self.duration = Histogram(
            "mcp_server_operation_duration_seconds",
            "Duration of an MCP request as the server handles it",
            ("method", "target"),
            buckets=sc.DURATION_BUCKETS,
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "mcp_server_requests_in_flight",
            "MCP requests in flight",
            ("method",),
            registry=self.registry,
        )
        self.tasks_created = Counter(
            "mcp_server_tasks_created",
            "Tasks created by tools/call",
            ("target",),
            registry=self.registry,
        )
        self.registry.register(_ServerCollector(server))
        #: The middleware that records into these metrics (installed by :func:`metrics_for`).
        self.middleware = PrometheusMiddleware(self)

    def render(self) -> bytes:
        """The registry in the Prometheus text format (:data:`CONTENT_TYPE`)."""
        return generate_latest(self.registry)


def _target(ctx: MiddlewareContext) -> str:
    method = ctx.method
    name = sc.target_of(method, ctx.params)
    if name is None:
        return ""
    server = cast("ServerView[Any]", ctx.session.server)  # a Server
    known = server.tools.tools if method == "tools/call" else server.prompts.prompts
    return name if name in known else _OTHER


class PrometheusMiddleware(Middleware):
    """Records every request into a :class:`PrometheusMetrics`."""

    def __init__(self, metrics: PrometheusMetrics) -> None:
        self.metrics = metrics
        # The label children of each (method, target) seen: one lookup per request.
        self._children: dict[tuple[str, str], tuple[Any, Any, Any]] = {}

    async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        """Count, time and track the request in flight."""
        metrics = self.metrics
        method = ctx.method
        target = _target(ctx)
        key = (method, target)
        children = self._children.get(key)
        if children is None:
            children = self._children[key] = (
                metrics.in_flight.labels(method),
                metrics.duration.labels(method, target),
                metrics.requests.labels(method, target, ""),
            )
        gauge, duration, succeeded = children
        gauge.inc()
        started = time.perf_counter()
        error_type = ""
        try:
            result = await call_next(ctx)
        except asyncio.CancelledError:
            error_type = "cancelled"
            raise
        except Exception as exc:
            error_type = sc.error_type_of_exception(exc)[0]
            raise
        else:
            error_type = sc.error_type_of_result(method, result) or ""
            if not error_type and target and created_task(method, result):
                metrics.tasks_created.labels(target).inc()
            return result
        finally:
            gauge.dec()
            duration.observe(time.perf_counter() - started)
            if error_type:
                metrics.requests.labels(method, target, error_type).inc()
                metrics.errors.labels(method, target, error_type).inc()
            else:
                succeeded.inc()


def metrics_for(server: MeasuredServer) -> PrometheusMetrics:
    """The :class:`PrometheusMetrics` of ``server``, made (and its middleware added to the
    server) on first use."""
    found = _METRICS.get(server)
    if found is None:
        found = _METRICS[server] = PrometheusMetrics(server)
        server.add_middleware(found.middleware)
    return found
