"""Observability: OpenTelemetry spans and metrics (the ``otel`` extra) and Prometheus metrics
(the ``metrics`` extra), all off unless turned on.

- Server: ``app.add_middleware(OpenTelemetryMiddleware())`` (see
  :mod:`mcpkit.telemetry.server`); ``app.http_app(metrics=True)`` / ``app.run("http",
  metrics=True)`` serves ``/metrics`` (see :mod:`mcpkit.telemetry.prometheus` and
  :mod:`mcpkit.transports.http.health`).
- Client: ``Client(target, tracing=True)`` (see :mod:`mcpkit.telemetry.client`).
- Trace context travels in ``params._meta`` both ways (:mod:`mcpkit.telemetry.propagation`).

Names load on first use; nothing imports OpenTelemetry or prometheus-client until then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit._lazy import export_names, load_export

_EXPORTS: dict[str, str] = {
    "ClientTelemetry": "mcpkit.telemetry.client",
    "OpenTelemetryMiddleware": "mcpkit.telemetry.server",
    "PrometheusMetrics": "mcpkit.telemetry.prometheus",
    "PrometheusMiddleware": "mcpkit.telemetry.prometheus",
    "extract_meta": "mcpkit.telemetry.propagation",
    "inject_meta": "mcpkit.telemetry.propagation",
}

if TYPE_CHECKING:
    from mcpkit.telemetry.client import ClientTelemetry as ClientTelemetry
    from mcpkit.telemetry.prometheus import PrometheusMetrics as PrometheusMetrics
    from mcpkit.telemetry.prometheus import PrometheusMiddleware as PrometheusMiddleware
    from mcpkit.telemetry.propagation import extract_meta as extract_meta
    from mcpkit.telemetry.propagation import inject_meta as inject_meta
    from mcpkit.telemetry.server import OpenTelemetryMiddleware as OpenTelemetryMiddleware

__all__ = export_names(_EXPORTS)


def __getattr__(name: str) -> Any:
    return load_export(__name__, name, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
