"""Request metrics: OpenTelemetry instruments read back with the SDK's in-memory reader,
and the Prometheus /metrics endpoint scraped and parsed by prometheus-client's parser."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from mcpkit import Client, Context, McpError, Server
from mcpkit.client.task_requestor import start_tool_task
from mcpkit.telemetry import ClientTelemetry, OpenTelemetryMiddleware
from mcpkit.transports.http import running
from tests.telemetry.conftest import Otel


def make_app(release: asyncio.Event, *middleware: Any) -> Server:
    app = Server("measured", middleware=middleware)

    @app.tool()
    def echo(text: str) -> str:
        return text

    @app.tool()
    def fails() -> str:
        raise ValueError("nope")

    @app.tool(task_support="optional")
    async def slow(ctx: Context) -> str:
        await release.wait()
        return "done"

    return app


def by(points: list[Any], **attrs: Any) -> list[Any]:
    return [p for p in points if all(p.attributes.get(k) == v for k, v in attrs.items())]


async def test_otel_request_metrics(otel: Otel) -> None:
    release = asyncio.Event()
    app = make_app(release, OpenTelemetryMiddleware(**otel.providers))
    client_metrics = ClientTelemetry(**otel.providers)
    async with Client(app, era="legacy", tracing=client_metrics) as client:
        await client.call_tool("echo", {"text": "a"})
        await client.call_tool("echo", {"text": "b"})
        await client.call_tool("fails", {})
        with pytest.raises(McpError):
            await client.call_tool("nope", {})
        assert by(otel.points("mcp.server.sessions.active"))[0].value == 1

    key = "mcp.method.name"
    durations = by(otel.points("mcp.server.operation.duration"), **{key: "tools/call"})
    echo = by(durations, **{"gen_ai.tool.name": "echo"})
    assert len(echo) == 1 and echo[0].count == 2 and "error.type" not in echo[0].attributes
    assert echo[0].explicit_bounds[:3] == (0.01, 0.02, 0.05)  # the advised buckets
    assert by(durations, **{"gen_ai.tool.name": "fails", "error.type": "tool_error"})[0].count == 1
    assert by(durations, **{"gen_ai.tool.name": "nope", "error.type": "-32602"})[0].count == 1
    assert sum(p.count for p in durations) == 4  # the request count
    errors = by(otel.points("mcp.server.errors"), **{key: "tools/call"})
    assert sorted(p.attributes["error.type"] for p in errors) == ["-32602", "tool_error"]
    in_flight = by(otel.points("mcp.server.requests.active"), **{key: "tools/call"})
    assert [p.value for p in in_flight] == [0]
    assert by(otel.points("mcp.server.sessions.active"))[0].value == 0
    # The client side: the same calls, seen from the client.
    client_side = by(otel.points("mcp.client.operation.duration"), **{key: "tools/call"})
    assert sum(p.count for p in client_side) == 4
    assert by(client_side, **{"error.type": "-32602", "rpc.response.status_code": "-32602"})


async def test_otel_task_metrics(otel: Otel) -> None:
    release = asyncio.Event()
    app = make_app(release, OpenTelemetryMiddleware(**otel.providers))
    async with Client(app, era="legacy") as client:
        handle = await start_tool_task(client, "slow", {})
        assert by(otel.points("mcp.server.tasks.active"))[0].value == 1
        release.set()
        result = await handle.result()
        assert result.content[0].text == "done"  # type: ignore[union-attr]
    created = otel.points("mcp.server.tasks.created")
    assert [(p.attributes["gen_ai.tool.name"], p.value) for p in created] == [("slow", 1)]
    assert by(otel.points("mcp.server.tasks.active"))[0].value == 0


def scrape(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples[(name, frozenset(labels.items()))]


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_prometheus_metrics_endpoint(era: str) -> None:
    release = asyncio.Event()
    app = make_app(release)
    asgi = app.http_app(metrics=True)
    async with running(asgi) as base, httpx.AsyncClient() as http:
        async with Client(base + "/mcp", era=era) as client:  # type: ignore[arg-type]
            await client.call_tool("echo", {"text": "a"})
            await client.call_tool("fails", {})
            with pytest.raises(McpError):
                await client.call_tool("no-such-tool", {})
            handle = await start_tool_task(client, "slow", {})
            during = await http.get(base + "/metrics")
            release.set()
            await handle.result()
        response = await http.get(base + "/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    samples = scrape(response.text)
    call = {"method": "tools/call"}
    assert value(samples, "mcp_server_requests_total", **call, target="echo", error_type="") == 1
    assert (
        value(samples, "mcp_server_errors_total", **call, target="fails", error_type="tool_error")
        == 1
    )
    # An unknown name is not a label value of its own: clients cannot grow the label set.
    unknown = {"target": "_OTHER", "error_type": "-32602"}
    assert value(samples, "mcp_server_errors_total", **call, **unknown) == 1
    assert not any("no-such-tool" in str(key) for key in samples)
    count = value(samples, "mcp_server_operation_duration_seconds_count", **call, target="echo")
    assert count == 1
    assert (
        value(
            samples,
            "mcp_server_operation_duration_seconds_bucket",
            **call,
            target="echo",
            le="+Inf",
        )
        == 1
    )
    assert value(samples, "mcp_server_requests_in_flight", method="tools/call") == 0
    assert value(samples, "mcp_server_tasks_created_total", target="slow") == 1
    assert value(samples, "mcp_server_tasks_active") == 0
    assert value(samples, "mcp_server_sessions") == 0  # the client has gone
    live = scrape(during.text)
    assert value(live, "mcp_server_tasks_active") == 1
    assert value(live, "mcp_server_sessions") == (1 if era == "legacy" else 0)


async def test_each_server_has_its_own_registry() -> None:
    release = asyncio.Event()
    one, two = make_app(release), make_app(release)
    first, second = one.http_app(metrics=True), two.http_app(metrics=True)
    transport = httpx.ASGITransport(first)
    async with Client(one, era="legacy") as client:
        await client.call_tool("echo", {"text": "a"})
    async with httpx.AsyncClient(transport=transport, base_url="http://m") as http:
        counted = scrape((await http.get("/metrics")).text)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(second), base_url="http://m") as h:
        other = scrape((await h.get("/metrics")).text)
    key = {"method": "tools/call", "target": "echo", "error_type": ""}
    assert value(counted, "mcp_server_requests_total", **key) == 1
    assert ("mcp_server_requests_total", frozenset(key.items())) not in other
    # A second http_app of the same server shares its registry and middleware.
    again = one.http_app(metrics=True)
    assert again.probes is not None and first.probes is not None
    # the one registry's render (a bound method: equal, not identical)
    assert again.probes.metrics == first.probes.metrics
    assert sum(1 for m in one.middleware if type(m).__name__ == "PrometheusMiddleware") == 1
