"""OpenTelemetry SDK fixtures: spans into an in-memory exporter, metrics into an in-memory
reader (the SDK is a test dependency only; the library uses the API)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind


class Otel:
    """A tracer provider and a meter provider of the test's own, and what they recorded."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    @property
    def providers(self) -> dict[str, Any]:
        return {"tracer_provider": self.tracer_provider, "meter_provider": self.meter_provider}

    def spans(self, kind: SpanKind | None = None, name: str | None = None) -> list[ReadableSpan]:
        return [
            s
            for s in self.exporter.get_finished_spans()
            if (kind is None or s.kind == kind) and (name is None or s.name == name)
        ]

    def span(self, kind: SpanKind, name: str) -> ReadableSpan:
        found = self.spans(kind, name)
        assert len(found) == 1, [(s.kind, s.name) for s in self.exporter.get_finished_spans()]
        return found[0]

    def points(self, metric: str) -> list[Any]:
        """The data points of ``metric`` collected now (all scopes)."""
        data = self.reader.get_metrics_data()
        out: list[Any] = []
        if data is None:
            return out
        for rm in data.resource_metrics:
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    if m.name == metric:
                        out.extend(m.data.data_points)
        return out

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


@pytest.fixture
def otel() -> Iterator[Otel]:
    recorder = Otel()
    yield recorder
    recorder.shutdown()


@pytest.fixture
def served() -> Iterator[Any]:
    """``served(*args)``: ``mcpkit run ... --transport http`` in the background (see
    :class:`tests.cli.conftest.Served`), stopped at the end."""
    from tests.cli.conftest import Served

    made: list[Served] = []

    def make(*args: str) -> Served:
        made.append(Served(*args))
        return made[-1]

    yield make
    for server in made:
        server.stop()
