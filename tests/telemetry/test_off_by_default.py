"""Telemetry costs nothing unless turned on: no OpenTelemetry or prometheus-client import on
the default path, no trace keys on the wire; and the conventions' names, unit by unit."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mcpkit.errors import McpError, RequestTimeout
from mcpkit.telemetry import semconv as sc
from tests.conftest import server_env

DEFAULT_PATH = """
import asyncio, sys
from mcpkit import Client, Server

app = Server("plain")

@app.tool()
def echo(text: str) -> str:
    return text

async def main():
    async with Client(app) as c:
        await c.call_tool("echo", {"text": "a"})
    app.http_app()

asyncio.run(main())
print(",".join(sorted({m.split(".")[0] for m in sys.modules
                       if m.startswith(("opentelemetry", "prometheus_client"))})))
"""


def test_no_telemetry_import_on_the_default_path() -> None:
    done = subprocess.run(
        [sys.executable, "-c", DEFAULT_PATH],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_span_names_and_attributes() -> None:
    assert sc.target_of("tools/call", {"name": "echo"}) == "echo"
    assert sc.target_of("prompts/get", {"name": "greet"}) == "greet"
    assert sc.target_of("resources/read", {"uri": "a://b"}) is None
    assert sc.target_of("tools/call", {"name": 3}) is None
    assert sc.span_name("tools/call", "echo") == "tools/call echo"
    assert sc.span_name("tools/list", None) == "tools/list"
    assert sc.request_attributes("resources/subscribe", {"uri": "a://b"}, None) == {
        "mcp.method.name": "resources/subscribe",
        "mcp.resource.uri": "a://b",
    }
    assert sc.network_attributes("stdio") == {"network.transport": "pipe"}
    assert sc.network_attributes("http") == {
        "network.transport": "tcp",
        "network.protocol.name": "http",
    }
    assert sc.network_attributes("memory") == {}


def test_error_types() -> None:
    assert sc.error_type_of_exception(McpError(-32602, "bad")) == ("-32602", -32602)
    assert sc.error_type_of_exception(RequestTimeout("tools/call", 1.0)) == ("timeout", None)
    assert sc.error_type_of_exception(KeyError("k")) == ("KeyError", None)
    assert sc.error_type_of_result("tools/call", {"isError": True}) == "tool_error"
    assert sc.error_type_of_result("tools/call", {"isError": False}) is None
    assert sc.error_type_of_result("prompts/get", {"isError": True}) is None
    assert sc.error_message(McpError(-32602, "Unknown tool: x")) == "Unknown tool: x"


MISSING = """
import sys
sys.modules[{module!r}] = None  # as if the extra were not installed
from mcpkit import Client, Server
try:
    {statement}
except ImportError as exc:
    print(exc)
"""


@pytest.mark.parametrize(
    ("module", "statement", "message"),
    [
        (
            "opentelemetry",
            "Client(Server('s'), tracing=True)",
            "Client(tracing=...) needs the 'otel' extra (opentelemetry is not installed): "
            "in the mcpkit checkout: pip install '.[otel]'",
        ),
        (
            "prometheus_client",
            "Server('s').http_app(metrics=True)",
            "Serving Prometheus metrics needs the 'metrics' extra (prometheus_client is not "
            "installed): in the mcpkit checkout: pip install '.[metrics]'",
        ),
    ],
)
def test_a_missing_extra_says_which(module: str, statement: str, message: str) -> None:
    code = MISSING.format(module=module, statement=statement)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=server_env(), timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == message
