"""A traced server for the stdio test: its spans go, one JSON line each, to the file named
by ``SPANS_FILE`` (exported as each span ends)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from mcpkit import Server
from mcpkit.telemetry import OpenTelemetryMiddleware


class FileExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with open(os.environ["SPANS_FILE"], "a", encoding="utf-8") as out:
            for span in spans:
                line = {
                    "name": span.name,
                    "trace_id": format(span.context.trace_id, "032x"),
                    "parent_id": format(span.parent.span_id, "016x") if span.parent else None,
                    "attributes": dict(span.attributes or {}),
                }
                out.write(json.dumps(line) + "\n")
        return SpanExportResult.SUCCESS


provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(FileExporter()))
app = Server("traced-stdio")
app.add_middleware(OpenTelemetryMiddleware(tracer_provider=provider))


@app.tool()
def echo(text: str) -> str:
    return text


if __name__ == "__main__":
    app.run()
