"""A trace crossing a process boundary: an mcpkit client and an mcpkit server over stdio,
the server's spans read back from the file its exporter writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from opentelemetry.trace import SpanKind

from mcpkit import Client
from mcpkit.client import StdioOptions
from mcpkit.telemetry import ClientTelemetry
from tests.conftest import server_env
from tests.telemetry.conftest import Otel

SERVER = Path(__file__).with_name("stdio_server.py")


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_a_trace_crosses_stdio(otel: Otel, era: str, tmp_path: Path) -> None:
    spans_file = tmp_path / "spans.jsonl"
    env = server_env(SPANS_FILE=str(spans_file))
    tracing = ClientTelemetry(**otel.providers)
    async with Client(
        [sys.executable, str(SERVER)], connection=StdioOptions(env=env), era=era, tracing=tracing
    ) as c:  # type: ignore[arg-type]
        result = await c.call_tool("echo", {"text": "over the pipe"})
        assert result.content[0].text == "over the pipe"  # type: ignore[union-attr]
    client_span = otel.span(SpanKind.CLIENT, "tools/call echo")
    assert client_span.attributes is not None
    assert client_span.attributes["network.transport"] == "pipe"
    served = [json.loads(line) for line in spans_file.read_text().splitlines()]
    (server_span,) = [s for s in served if s["name"] == "tools/call echo"]
    assert server_span["trace_id"] == format(client_span.context.trace_id, "032x")
    assert server_span["parent_id"] == format(client_span.context.span_id, "016x")
    assert server_span["attributes"]["network.transport"] == "pipe"
    assert (
        server_span["attributes"]["mcp.protocol.version"]
        == client_span.attributes["mcp.protocol.version"]
    )
