"""Client spans and metrics: one ``CLIENT`` span per request a :class:`~mcpkit.Client`
sends, its trace context injected into the request's ``params._meta``.

Turned on with ``Client(target, tracing=True)`` (the global tracer and meter providers) or
``Client(target, tracing=ClientTelemetry(tracer_provider=..., meter_provider=...))``.
Every request that leaves through :meth:`Client.request <mcpkit.Client.request>` (each
round of a multi round-trip request is its own request) gets a span named after the
conventions (``"tools/call echo"``) with ``mcp.method.name``, ``jsonrpc.request.id``,
``mcp.protocol.version``, ``mcp.session.id`` (HTTP), ``network.transport``,
``server.address``/``server.port`` and, on failure, ``error.type`` (and
``rpc.response.status_code`` for a JSON-RPC error) with an ``ERROR`` status; the duration
goes to the ``mcp.client.operation.duration`` histogram. Answers from the response cache
send nothing and make no span. A request sent again by ``Client(retry=...)`` makes one span
per send, and each retry counts in the ``mcpkit.client.retries`` counter (by
``mcp.method.name`` and ``mcpkit.retry.kind``: refused, unsent or lost).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from mcpkit._extras import needs_extra

try:
    from opentelemetry import context as otel_context
    from opentelemetry import metrics, trace
    from opentelemetry.propagators.textmap import TextMapPropagator
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode
except ModuleNotFoundError as exc:  # the extra is not installed
    raise needs_extra("Client(tracing=...)", "otel", exc.name) from None

from mcpkit._version import __version__
from mcpkit.telemetry import semconv as sc
from mcpkit.telemetry.propagation import inject_meta

if TYPE_CHECKING:
    from mcpkit.client.retry import RetryEvent
    from mcpkit.transports.base import Transport

__all__ = ["ClientTelemetry", "ObservedClient", "client_telemetry"]


Tracer = Callable[[str, Any], None]


class ObservedClient(Protocol):
    """What the client spans read of a connection (a :class:`~mcpkit.Client` is one)."""

    @property
    def protocol_version(self) -> str | None: ...

    @property
    def server_url(self) -> str | None: ...

    @property
    def transport(self) -> Transport: ...

    @property
    def session(self) -> object:
        """The connection's session: a new one means a new connection."""


class ClientTelemetry:
    """Spans and the duration metric of one client's requests.

    ``tracer_provider`` / ``meter_provider`` default to the global ones; ``propagator`` (a
    ``TextMapPropagator``) to the global propagator.
    """

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        propagator: TextMapPropagator | None = None,
    ) -> None:
        self.tracer = trace.get_tracer(
            sc.INSTRUMENTATION_NAME, __version__, tracer_provider=tracer_provider
        )
        meter = metrics.get_meter(
            sc.INSTRUMENTATION_NAME, __version__, meter_provider=meter_provider
        )
        self.duration = meter.create_histogram(
            "mcp.client.operation.duration",
            unit="s",
            description="Duration of an MCP request as the client sees it, until its response",
            explicit_bucket_boundaries_advisory=sc.DURATION_BUCKETS,
        )
        self.retries = meter.create_counter(
            "mcpkit.client.retries",
            unit="{request}",
            description="Requests sent again after a failure the retry policy allows",
        )
        self.propagator = propagator
        self._span: ContextVar[Span | None] = ContextVar("mcpkit_client_span", default=None)
        self._connections: weakref.WeakKeyDictionary[ObservedClient, tuple[Any, dict[str, Any]]] = (
            weakref.WeakKeyDictionary()
        )

    def session_tracer(self, inner: Tracer | None) -> Tracer:
        """A session tracer that gives the current span the id of the request it sends
        (then calls ``inner``, the client's own tracer, if any)."""
        current = self._span

        def observe(direction: str, message: Any) -> None:
            if direction == "send" and type(message) is dict and "method" in message:
                span = current.get()
                rid = message.get("id")
                if span is not None and rid is not None:
                    span.set_attribute(sc.JSONRPC_REQUEST_ID, str(rid))
                    current.set(None)  # later messages of this task are not this request
            if inner is not None:
                inner(direction, message)

        return observe

    def connection_attributes(self, client: ObservedClient) -> dict[str, Any]:
        """What the connection says of every request: version, session, network, server."""
        attrs: dict[str, Any] = {}
        version = client.protocol_version
        if version is not None:
            attrs[sc.MCP_PROTOCOL_VERSION] = version
        url = client.server_url
        if url is not None:
            attrs.update(sc.network_attributes("http"))
            parts = urlsplit(url)
            if parts.hostname:
                attrs[sc.SERVER_ADDRESS] = parts.hostname
                port = parts.port or (443 if parts.scheme == "https" else 80)
                attrs[sc.SERVER_PORT] = port
            session_id = client.transport.info.session_id
            if session_id is not None:
                attrs[sc.MCP_SESSION_ID] = session_id
        else:
            attrs.update(sc.network_attributes(client.transport.info.kind))
        return attrs

    async def request(
        self,
        client: ObservedClient,
        method: str,
        params: Any,
        send: Callable[[Any], Awaitable[Any]],
    ) -> Any:
        """Send ``params`` with ``send`` inside a client span, the span's context injected
        into ``params._meta``."""
        target = sc.target_of(method, params)
        attrs = sc.request_attributes(method, params, target)
        attrs.update(self._connection(client))
        started = time.perf_counter()
        span = self.tracer.start_span(
            sc.span_name(method, target), kind=SpanKind.CLIENT, attributes=attrs
        )
        context = trace.set_span_in_context(span)
        token = otel_context.attach(context)
        current = self._span.set(span)
        try:
            result = await send(inject_meta(params, context=context, propagator=self.propagator))
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                error_type, code = "cancelled", None
            else:
                error_type, code = sc.error_type_of_exception(exc)
            attrs[sc.ERROR_TYPE] = error_type
            span.set_attribute(sc.ERROR_TYPE, error_type)
            if code is not None:
                attrs[sc.RPC_RESPONSE_STATUS_CODE] = str(code)
                span.set_attribute(sc.RPC_RESPONSE_STATUS_CODE, str(code))
            span.set_status(Status(StatusCode.ERROR, sc.error_message(exc)))
            span.end()
            self._record(started, attrs)
            raise
        finally:
            self._span.reset(current)
            otel_context.detach(token)
        result_error = sc.error_type_of_result(method, result)
        if result_error is not None:
            attrs[sc.ERROR_TYPE] = result_error
            span.set_attribute(sc.ERROR_TYPE, result_error)
            span.set_status(Status(StatusCode.ERROR))
        span.end()
        self._record(started, attrs)
        return result

    def retrying(self, event: RetryEvent) -> None:
        """Count a retry about to happen."""
        self.retries.add(1, {sc.MCP_METHOD_NAME: event.method, "mcpkit.retry.kind": event.kind})

    def _connection(self, client: ObservedClient) -> dict[str, Any]:
        """:meth:`connection_attributes`, worked out once per connection."""
        session = client.session
        cached = self._connections.get(client)
        if cached is None or cached[0] is not session:
            cached = (session, self.connection_attributes(client))
            self._connections[client] = cached
        return cached[1]

    def _record(self, started: float, attrs: dict[str, Any]) -> None:
        self.duration.record(time.perf_counter() - started, sc.metric_attributes(attrs))


def client_telemetry(option: bool | ClientTelemetry | None) -> ClientTelemetry | None:
    """What ``Client(tracing=...)`` means: None (off), the global providers, or the given
    :class:`ClientTelemetry`."""
    if option is None or option is False:
        return None
    if option is True:
        return ClientTelemetry()
    if isinstance(option, ClientTelemetry):
        return option
    raise TypeError(f"tracing must be a bool or a ClientTelemetry, not {type(option).__name__}")
