"""Server spans and metrics: :class:`OpenTelemetryMiddleware`, one ``SERVER`` span per
request a :class:`~mcpkit.Server` handles, on both eras and every transport.

```python
from mcpkit.telemetry import OpenTelemetryMiddleware

app.add_middleware(OpenTelemetryMiddleware())   # the global tracer and meter providers
```

The span's parent is the context the request carries in ``params._meta``
(``traceparent``/``tracestate``/``baggage``); the ambient context (an HTTP server span of
ASGI instrumentation, say) is its parent when the request carries none, and a link when it
does. Span names and attributes follow the MCP semantic conventions (see
:mod:`mcpkit.telemetry.semconv`): ``"tools/call echo"``, ``mcp.method.name``,
``jsonrpc.request.id``, ``mcp.protocol.version``, ``mcp.session.id``,
``network.transport``, ``client.address``, ``gen_ai.tool.name``, and on failure
``error.type`` (plus ``rpc.response.status_code``) with an ``ERROR`` status.

Metrics (meter ``mcpkit``): ``mcp.server.operation.duration`` (histogram, seconds, the
advised buckets; its count is the request count, by ``error.type`` the errors),
``mcp.server.errors`` (counter), ``mcp.server.requests.active`` (in flight),
``mcp.server.sessions.active`` (2025-era sessions open), ``mcp.server.tasks.created`` and
``mcp.server.tasks.active`` (tasks running in this process).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Iterable
from typing import Any

from mcpkit._extras import needs_extra

try:
    from opentelemetry import context as otel_context
    from opentelemetry import trace
    from opentelemetry.metrics import CallbackOptions, MeterProvider, Observation, get_meter
    from opentelemetry.propagators.textmap import TextMapPropagator
    from opentelemetry.trace import Link, SpanKind, Status, StatusCode
except ModuleNotFoundError as exc:  # the extra is not installed
    raise needs_extra("OpenTelemetryMiddleware", "otel", exc.name) from None

from mcpkit._version import __version__
from mcpkit.jsonrpc import INTERNAL_ERROR
from mcpkit.server.middleware.base import CallNext, Middleware, MiddlewareContext
from mcpkit.telemetry import semconv as sc
from mcpkit.telemetry.observe import (
    ObservedServer,
    active_sessions,
    active_tasks,
    created_task,
    describe,
)
from mcpkit.telemetry.propagation import extract_meta

__all__ = ["OpenTelemetryMiddleware"]


class OpenTelemetryMiddleware(Middleware):
    """A server span and the request metrics of every request (see the module docstring).

    ``tracer_provider`` / ``meter_provider`` default to the global ones, ``propagator`` to
    the global propagator; ``tracing=False`` or ``metrics=False`` turns one half off.
    """

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        propagator: TextMapPropagator | None = None,
        tracing: bool = True,
        metrics: bool = True,
    ) -> None:
        self.tracing = tracing
        self.metrics = metrics
        self.propagator = propagator
        self.tracer = trace.get_tracer(
            sc.INSTRUMENTATION_NAME, __version__, tracer_provider=tracer_provider
        )
        meter = get_meter(sc.INSTRUMENTATION_NAME, __version__, meter_provider=meter_provider)
        self._servers: weakref.WeakSet[ObservedServer] = weakref.WeakSet()
        self.duration = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="Duration of an MCP request as the server handles it",
            explicit_bucket_boundaries_advisory=sc.DURATION_BUCKETS,
        )
        self.errors = meter.create_counter(
            "mcp.server.errors",
            unit="{request}",
            description="MCP requests that failed (error.type says how)",
        )
        # Requests in flight, by method: counted here, read by the SDK when it collects (no
        # SDK call on the request path).
        self._in_flight: dict[str, int] = {}
        meter.create_observable_up_down_counter(
            "mcp.server.requests.active",
            callbacks=[self._observe_in_flight],
            unit="{request}",
            description="MCP requests in flight",
        )
        self.tasks_created = meter.create_counter(
            "mcp.server.tasks.created", unit="{task}", description="Tasks created by tools/call"
        )
        meter.create_observable_up_down_counter(
            "mcp.server.sessions.active",
            callbacks=[self._observe_sessions],
            unit="{session}",
            description="2025-era MCP sessions open",
        )
        meter.create_observable_up_down_counter(
            "mcp.server.tasks.active",
            callbacks=[self._observe_tasks],
            unit="{task}",
            description="Tasks running in this process",
        )

    def _observe_in_flight(self, options: CallbackOptions) -> Iterable[Observation]:
        return [
            Observation(count, {sc.MCP_METHOD_NAME: method})
            for method, count in list(self._in_flight.items())
        ]

    def _observe_sessions(self, options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(active_sessions(server)) for server in list(self._servers)]

    def _observe_tasks(self, options: CallbackOptions) -> Iterable[Observation]:
        return [Observation(active_tasks(server)) for server in list(self._servers)]

    async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        """Serve the request inside its span, then record its metrics."""
        server = ctx.session.server
        if server not in self._servers:
            self._servers.add(server)
        method = ctx.method
        target, attrs = describe(ctx)
        started = time.perf_counter()
        in_flight = self._in_flight
        if self.metrics:
            in_flight[method] = in_flight.get(method, 0) + 1
        try:
            if not self.tracing:
                return await self._run(ctx, call_next, attrs, None)
            parent = extract_meta(ctx.params, propagator=self.propagator)
            links: list[Link] | None = None
            if parent is not None:
                ambient = trace.get_current_span().get_span_context()
                if ambient.is_valid:
                    links = [Link(ambient)]
            span = self.tracer.start_span(
                sc.span_name(method, target),
                context=parent,
                kind=SpanKind.SERVER,
                attributes=attrs,
                links=links,
            )
            # The span is current while the handler runs, in the remote parent's context
            # (its baggage too) when the request carried one.
            token = otel_context.attach(trace.set_span_in_context(span, parent))
            try:
                return await self._run(ctx, call_next, attrs, span)
            finally:
                otel_context.detach(token)
                span.end()
        finally:
            if self.metrics:
                in_flight[method] -= 1
                measured = sc.metric_attributes(attrs)
                self.duration.record(time.perf_counter() - started, measured)
                if sc.ERROR_TYPE in measured:
                    self.errors.add(1, measured)

    async def _run(
        self,
        ctx: MiddlewareContext,
        call_next: CallNext,
        attrs: dict[str, Any],
        span: trace.Span | None,
    ) -> Any:
        try:
            result = await call_next(ctx)
        except asyncio.CancelledError:
            self._failed(attrs, span, "cancelled", None, None)
            raise
        except Exception as exc:
            error_type, code = sc.error_type_of_exception(exc)
            if code is None:  # the session answers it as an internal error
                if span is not None:
                    span.record_exception(exc)
                code = INTERNAL_ERROR
            self._failed(attrs, span, error_type, code, sc.error_message(exc))
            raise
        result_error = sc.error_type_of_result(ctx.method, result)
        if result_error is not None:
            self._failed(attrs, span, result_error, None, None)
        elif self.metrics and created_task(ctx.method, result):
            self.tasks_created.add(1, sc.metric_attributes(attrs))
        return result

    @staticmethod
    def _failed(
        attrs: dict[str, Any],
        span: trace.Span | None,
        error_type: str,
        code: int | None,
        message: str | None,
    ) -> None:
        attrs[sc.ERROR_TYPE] = error_type
        if code is not None:
            attrs[sc.RPC_RESPONSE_STATUS_CODE] = str(code)
        if span is not None:
            span.set_attribute(sc.ERROR_TYPE, error_type)
            if code is not None:
                span.set_attribute(sc.RPC_RESPONSE_STATUS_CODE, str(code))
            span.set_status(Status(StatusCode.ERROR, message))
