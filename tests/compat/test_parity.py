"""Behaviours published servers rely on, compared with the real SDK: a 2.x ``MCPServer``
with ``mcp.server.context`` middleware, its error texts and output schemas, the
``mcp.client`` names, ``TransportSecuritySettings`` over HTTP, and what a server prints
before ``run()`` (for the three SDK styles)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.test_unchanged import SERVERS, assert_same, both, peer

PARITY = SERVERS / "official_parity.py"

SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "echo", "args": {"text": "hi"}},
    {"op": "call", "name": "alias", "args": {"text": "rewritten"}},
    {"op": "call", "name": "forbidden"},
    {"op": "call", "name": "refuse", "args": {"why": "no"}},
    {"op": "call", "name": "crash"},
    {"op": "call", "name": "typing_dict"},
    {"op": "call", "name": "bare_dict"},
    {"op": "call", "name": "builtin_dict"},
    {"op": "call", "name": "reading", "args": {"sensor": "s1"}},
    {"op": "call", "name": "context_info"},
    {"op": "call", "name": "sign_in"},
    {"op": "call", "name": "client_names"},
    {"op": "call", "name": "methods"},
]


def test_mcpserver_2x_middleware_errors_and_schemas(tmp_path: Path) -> None:
    """Middleware given to ``MCPServer(middleware=[...])`` sees the same methods, refuses
    and rewrites calls the same way; ``ToolError`` and other failures, the three ``dict``
    annotations, a plain class, an indented docstring, ``Context[...]``,
    ``UrlElicitationRequiredError`` and the ``mcp.client`` names as on ``mcp`` 2.x."""
    theirs, ours = both("mcp2", PARITY, SCRIPT, tmp_path)
    # The -32042 error's data compared as data (mcpkit orders an elicitation's keys mode,
    # message, elicitationId, url; the SDK puts url before elicitationId).
    sign_in = [_error_parts(r["ops"].pop(11)["error"]) for r in (theirs, ours)]
    assert sign_in[0] == sign_in[1]
    assert sign_in[1][0] == "MCPError: code=-32042 message='URL elicitation required'"
    assert sign_in[1][1]["elicitations"][0]["elicitationId"] == "login-1"
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert "outputSchema" not in tools["bare_dict"]
    assert tools["typing_dict"]["outputSchema"]["required"] == ["result"]
    assert tools["reading"]["outputSchema"]["properties"]["value"] == {
        "title": "Value",
        "type": "number",
    }
    assert "\n            Indented further." in tools["echo"]["description"]
    ops = {op.get("name"): op for op in ours["ops"][1:]}
    assert ops["alias"]["result"]["content"][0]["text"] == "rewritten"
    assert "forbidden by the guard" in ops["forbidden"]["error"]
    assert (
        ops["refuse"]["result"]["content"][0]["text"] == "Error executing tool refuse: refused: no"
    )
    assert ops["crash"]["result"]["content"][0]["text"] == "Error executing tool crash"
    assert ops["reading"]["result"]["structuredContent"] == {"sensor": "s1", "value": 21.5}
    assert ops["client_names"]["result"]["structuredContent"] == {"result": ["true", "x", "True"]}
    methods = ops["methods"]["result"]["structuredContent"]["result"]
    assert methods[:2] == ["initialize", "notifications/initialized"]
    assert methods.count("tools/call") == 13


def _error_parts(text: str) -> tuple[str, Any]:
    """An error as the client printed it: its text and its data (a Python literal)."""
    head, _, data = text.partition(" data=")
    return head, ast.literal_eval(data)


def _http_answers(base: str) -> list[Any]:
    """Status codes for requests with an allowed and refused ``Host`` and ``Origin``."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
    port = base.rsplit(":", 1)[1]
    headers = {"Accept": "application/json, text/event-stream"}
    cases = [
        {},
        {"Host": f"mcp.example.com:{port}"},
        {"Host": "evil.example.com"},
        {"Host": f"evil.example.com:{port}"},
        {"Origin": "https://app.example.com"},
        {"Origin": "https://evil.example.com"},
    ]
    out = []
    with httpx.Client(timeout=30) as http:
        for extra in cases:
            done = http.post(f"{base}/mcp", json=init, headers={**headers, **extra})
            out.append(done.status_code < 400)
    return out


def test_transport_security_settings_are_applied(tmp_path: Path) -> None:
    """``run(transport="streamable-http", transport_security=TransportSecuritySettings(
    allowed_hosts=..., allowed_origins=...))``: the same requests let through and refused
    (a listed Host name that is not loopback passes, others and other origins do not)."""
    from tests.compat.test_compat import free_port, serve

    ports = free_port(), free_port()
    procs = [serve([str(peer("mcp2")), str(PARITY), "http"], ports[0])]
    try:
        procs.append(serve([sys.executable, "-m", "mcpkit.compat", str(PARITY), "http"], ports[1]))
        theirs, ours = (_http_answers(f"http://127.0.0.1:{port}") for port in ports)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    assert theirs == [True, True, False, False, True, False]
    assert ours == theirs


STYLES = {
    "mcp1": "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('p')\n",
    "mcp2": "from mcp.server.mcpserver import MCPServer\nmcp = MCPServer('p')\n",
    "fastmcp": "from fastmcp import FastMCP\nmcp = FastMCP('p')\n",
}


@pytest.mark.parametrize("sdk", sorted(STYLES))
def test_prints_before_run_do_not_reach_stdout(sdk: str, tmp_path: Path) -> None:
    """A line a server file prints at import, before ``run()``, never reaches the protocol's
    stdout on mcpkit (stdout on a pipe, buffered, as clients start servers): the client
    reads JSON-RPC only. (``mcp`` 2.x and fastmcp write such a line after the replies, when
    they exit; ``mcp`` 1.x drops it.)"""
    server = tmp_path / "server.py"
    server.write_text(
        STYLES[sdk]
        + textwrap.dedent(
            """
            print("loading the data")

            @mcp.tool()
            def ping() -> str:
                return "pong"

            if __name__ == "__main__":
                mcp.run()
            """
        )
    )
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit.compat", str(server)],
        input=json.dumps(init) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "loading the data" in done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1], done.stdout
