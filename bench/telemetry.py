"""The cost of observability on the echo workload, as ratios to the bare server.

Usage: python bench/telemetry.py [--calls N] [--rounds R] [--era legacy|2026-07-28] [--smoke]

Sequential ``tools/call echo`` from an mcpkit ``Client`` to an mcpkit ``Server`` in the same
process (the in-memory transport: no sockets, so what is measured is mcpkit's own work plus
the instrumentation), one configuration after the other in interleaved rounds:

- ``bare``: no middleware, no client tracing;
- ``otel api only``: the server's ``OpenTelemetryMiddleware`` with the OpenTelemetry API
  and no SDK (its no-op tracer and meter: what installing the middleware costs before an
  SDK is configured);
- ``server spans+metrics``: the middleware recording into the SDK (spans sampled and
  ended, no exporter; metrics aggregated, not exported);
- ``client+server spans``: the same plus ``Client(tracing=...)``: a client span per call
  and the trace context in ``params._meta``;
- ``prometheus``: the server's Prometheus middleware (``http_app(metrics=True)``).

CPU time per call (process time, steadier than wall time on a shared machine): the best
round and the median, and the median as a ratio to ``bare``. ``--smoke`` runs one tiny
round of each era, checks every answer and that the spans form one trace per call, and
prints no table.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcpkit import Client, Server
from mcpkit.telemetry import ClientTelemetry, OpenTelemetryMiddleware
from mcpkit.telemetry.prometheus import metrics_for


@dataclass
class Setup:
    """One configuration: how to build the server and the client's tracing option."""

    name: str
    server: Callable[[], Server]
    tracing: Callable[[], Any]


def _echo_server() -> Server:
    app = Server("bench")

    @app.tool()
    def echo(text: str) -> str:
        return text

    return app


class Sdk:
    """An SDK tracer and meter provider (spans kept only with ``keep=True``)."""

    def __init__(self, keep: bool = False) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        if keep:
            self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])

    def providers(self) -> dict[str, Any]:
        return {"tracer_provider": self.tracer_provider, "meter_provider": self.meter_provider}


def setups(sdk: Sdk) -> list[Setup]:
    def bare() -> Server:
        return _echo_server()

    def api_only() -> Server:
        app = _echo_server()
        noop = {
            "tracer_provider": trace.NoOpTracerProvider(),
            "meter_provider": _noop_meter_provider(),
        }
        app.add_middleware(OpenTelemetryMiddleware(**noop))
        return app

    def otel() -> Server:
        app = _echo_server()
        app.add_middleware(OpenTelemetryMiddleware(**sdk.providers()))
        return app

    def prometheus() -> Server:
        app = _echo_server()
        metrics_for(app)
        return app

    return [
        Setup("bare", bare, lambda: None),
        Setup("otel api only", api_only, lambda: None),
        Setup("server spans+metrics", otel, lambda: None),
        Setup("client+server spans", otel, lambda: ClientTelemetry(**sdk.providers())),
        Setup("prometheus", prometheus, lambda: None),
    ]


def _noop_meter_provider() -> Any:
    from opentelemetry.metrics import NoOpMeterProvider

    return NoOpMeterProvider()


async def run_calls(setup: Setup, era: str, calls: int) -> float:
    """CPU seconds per call of ``calls`` sequential echo calls (the connection made first)."""
    app = setup.server()
    async with Client(app, era=era, tracing=setup.tracing()) as client:  # type: ignore[arg-type]
        await client.call_tool("echo", {"text": "warm"})
        gc.collect()
        started = time.process_time()
        for i in range(calls):
            result = await client.call_tool("echo", {"text": f"m{i}"})
            if result.content[0].text != f"m{i}":  # type: ignore[union-attr]
                raise AssertionError(f"{setup.name}: wrong answer {result!r}")
        return (time.process_time() - started) / calls


async def smoke(era: str) -> int:
    sdk = Sdk(keep=True)
    checked = 0
    for setup in setups(sdk):
        sdk.exporter.clear()
        await run_calls(setup, era, 3)
        checked += 1
        if setup.name == "client+server spans":
            spans = [s for s in sdk.exporter.get_finished_spans() if s.name == "tools/call echo"]
            clients = {s.context.span_id: s for s in spans if s.kind is trace.SpanKind.CLIENT}
            servers = [s for s in spans if s.kind is trace.SpanKind.SERVER]
            if len(clients) != 4 or len(servers) != 4:  # the warm-up call and three more
                raise AssertionError(f"expected 4 client and 4 server spans, got {len(spans)}")
            for span in servers:
                parent = clients.get(span.parent.span_id) if span.parent else None
                if parent is None or parent.context.trace_id != span.context.trace_id:
                    raise AssertionError("a server span is not the child of its client span")
    print(f"smoke run ({era}): checked the answers of {checked} configurations and the traces")
    return 0


async def main(calls: int, rounds: int, era: str) -> int:
    sdk = Sdk()
    configs = setups(sdk)
    results: dict[str, list[float]] = {c.name: [] for c in configs}
    for _ in range(rounds):
        for setup in configs:
            results[setup.name].append(await run_calls(setup, era, calls))
    bare = statistics.median(results["bare"])
    print(f"echo workload, {era}, in memory: {calls} sequential calls x {rounds} rounds\n")
    print("| configuration | best µs/call | median µs/call | ratio to bare |")
    print("|---|---:|---:|---:|")
    for name, values in results.items():
        median = statistics.median(values)
        print(f"| {name} | {min(values) * 1e6:.1f} | {median * 1e6:.1f} | {median / bare:.2f} |")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--era",
        choices=("legacy", "2026-07-28"),
        help="the protocol era (default: legacy; --smoke checks both)",
    )
    parser.add_argument("--smoke", action="store_true", help="one tiny round, answers checked")
    args = parser.parse_args()
    if args.smoke:
        for era in [args.era] if args.era else ["legacy", "2026-07-28"]:
            asyncio.run(smoke(era))
        sys.exit(0)
    sys.exit(asyncio.run(main(args.calls, args.rounds, args.era or "legacy")))
