"""``MCPServer.run(transport="sse")`` and 1.x's ``FastMCP.run(transport="sse")`` on the SDK
and unchanged on mcpkit, sent the same raw HTTP: the stream's status and headers, its
``endpoint`` event (``/messages/?session_id=<hex>``) and the messages endpoint's answers to
good and bad POSTs (status, headers and body) must be equal, the port and session ids
aside."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.test_compat import SERVERS
from tests.compat.test_mcp_auth import started

pytestmark = pytest.mark.timeout(180)

SCRIPT = str(Path(SERVERS) / "sse_run.py")
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2024-11-05",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
JSON = {"content-type": "application/json"}
#: Headers that differ by nature (when, and how uvicorn spells its own).
VARYING = {"date", "server", "transfer-encoding"}


def head(answer: httpx.Response, base: str) -> tuple[int, dict[str, str]]:
    headers = {k: v.replace(base, "BASE") for k, v in answer.headers.items() if k not in VARYING}
    if "allow" in headers:  # Starlette lists a route's methods in a set's order
        headers["allow"] = ", ".join(sorted(headers["allow"].split(", ")))
    return answer.status_code, headers


def seen(answer: httpx.Response, base: str) -> tuple[int, dict[str, str], str]:
    return (*head(answer, base), answer.text)


def flow(base: str) -> dict[str, Any]:
    """The stream's head and endpoint event, then each POST's answer."""
    out: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=30) as http:
        with http.stream("GET", "/sse") as stream:
            out["stream"] = head(stream, base)
            lines = stream.iter_lines()
            out["first event"] = next(lines)
            endpoint = next(lines).removeprefix("data: ")
            sid = endpoint.rsplit("=", 1)[1]
            out["endpoint"] = endpoint.replace(sid, "SID")
            assert uuid.UUID(hex=sid).hex == sid
            good = json.dumps(INIT)
            for label, method, url, body, headers in [
                ("initialize", "POST", endpoint, good, JSON),
                ("no session id", "POST", "/messages/", good, JSON),
                ("malformed id", "POST", "/messages/?session_id=zz", good, JSON),
                ("unknown id", "POST", f"/messages/?session_id={uuid.uuid4().hex}", good, JSON),
                ("not json type", "POST", endpoint, good, {"content-type": "text/plain"}),
                ("not json", "POST", endpoint, "{nope", JSON),
                ("not a message", "POST", endpoint, '{"jsonrpc": "2.0"}', JSON),
                ("too large", "POST", endpoint, "x" * (4 * 1024 * 1024 + 1), JSON),
                ("too large, no id", "POST", "/messages/", "x" * (4 * 1024 * 1024 + 1), JSON),
                ("get messages", "GET", endpoint, None, {}),
                ("no slash", "POST", "/messages?session_id=abc", good, JSON),
                ("post sse", "POST", "/sse", good, JSON),
            ]:
                answer = http.request(method, url, content=body, headers=headers)
                out[label] = seen(answer, base)
            data = next(line for line in lines if line.startswith("data: "))
            result = json.loads(data.removeprefix("data: "))["result"]
            out["initialize result"] = {k: v for k, v in result.items() if k != "serverInfo"}
    return out


@pytest.mark.parametrize(("peer_name", "generation"), [("mcp2", "v2"), ("mcp1", "v1")])
def test_run_sse_answers_as_the_sdk(peer_name: str, generation: str) -> None:
    """The stream and the messages endpoint of ``run("sse")`` answer as the SDK's."""
    with started(peer_name, [SCRIPT, generation, "PORT"]) as (sdk, ours):
        expected = flow(sdk)
        got = flow(ours)
    assert got == expected
    assert expected["endpoint"] == "/messages/?session_id=SID"
    assert expected["stream"][1]["content-type"] == "text/event-stream; charset=utf-8"
    assert expected["too large"][0] == 413
    assert re.fullmatch(r"\d+", expected["initialize"][1]["content-length"])
