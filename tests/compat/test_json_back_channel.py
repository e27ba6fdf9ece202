"""A server-initiated request of a call answered with one JSON body (``json_response``) has
no back-channel: a compat app refuses it as mcp 2.x does (``NoBackChannelError``: the call
answered with -32600 naming the method) instead of sending it on the session's GET stream.
``servers/json_back_channel.py`` served by uvicorn on both sides, driven with raw HTTP.
"""

from __future__ import annotations

import sys
from typing import Any

import httpx

from tests.compat.test_compat import SERVERS
from tests.compat.test_http_examples import served
from tests.compat.test_unchanged import peer

SERVER = SERVERS / "json_back_channel.py"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def call(port: int, tool: str) -> dict[str, Any]:
    """A session's call of ``tool``: the status, media type and message it was answered with."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    init["params"] = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}, "sampling": {}},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    request = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    request["params"] = {"name": tool, "arguments": {}}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        answer = http.post("/mcp", json=init, headers=ACCEPT)
        headers = {**ACCEPT, "mcp-protocol-version": "2025-11-25"}
        headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post("/mcp", json=note, headers=headers).status_code == 202
        answer = http.post("/mcp", json=request, headers=headers)
    return {
        "status": answer.status_code,
        "type": answer.headers["content-type"],
        "message": answer.json(),
    }


def test_elicit_refused_as_mcp_2x() -> None:
    """``ctx.elicit`` in a tool of a JSON-response app: the same error on both."""
    with served(
        [str(peer("mcp2")), str(SERVER), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(SERVER), "--port"],
    ) as ports:
        theirs, ours = (call(port, "ask") for port in ports)
        # mcp 2.x never answers a ``ctx.session.create_message`` there (the request goes
        # nowhere and the call waits): mcpkit refuses it the same way as ``ctx.elicit``
        sampled = call(ports[1], "sample")
    assert ours == theirs
    assert ours["message"]["error"]["code"] == -32600
    assert "'elicitation/create'" in ours["message"]["error"]["message"]
    assert sampled["message"]["error"]["code"] == -32600
    assert "'sampling/createMessage'" in sampled["message"]["error"]["message"]
