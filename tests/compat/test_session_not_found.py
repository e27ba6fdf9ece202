"""A session not found (never opened, ended by DELETE, or used with another credential) is
answered as each original SDK answers it: the same server run on the SDK and unchanged on
mcpkit, sent the same requests with a session id that is not (or no longer) served; the
status, content type and body must be byte-equal. mcpkit's own server keeps its answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.test_compat import SERVERS
from tests.compat.test_fastmcp_auth import ACCEPT, INIT
from tests.compat.test_mcp_auth import started

pytestmark = pytest.mark.timeout(180)

SCRIPT = str(Path(SERVERS) / "session_gone.py")
LIST = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}


def answers(base: str, path: str) -> list[tuple[str, int, str | None, bytes]]:
    """Each request's label, status, content type and body."""
    out: list[tuple[str, int, str | None, bytes]] = []
    with httpx.Client(base_url=base, timeout=30) as http:

        def record(label: str, answer: httpx.Response) -> None:
            out.append(
                (label, answer.status_code, answer.headers.get("content-type"), answer.content)
            )

        unknown = {**ACCEPT, "mcp-session-id": "0" * 32}
        record("post unknown", http.post(path, json=LIST, headers=unknown))
        record("get unknown", http.get(path, headers=unknown))
        record("delete unknown", http.delete(path, headers=unknown))
        init = http.post(path, json=INIT, headers=ACCEPT)
        assert init.status_code == 200, init.text
        session = {**ACCEPT, "mcp-session-id": init.headers["mcp-session-id"]}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        http.post(path, json=note, headers=session)
        assert http.delete(path, headers=session).status_code == 200
        record("post ended", http.post(path, json=LIST, headers=session))
        record("notification ended", http.post(path, json=note, headers=session))
        record("get ended", http.get(path, headers=session))
    return out


@pytest.mark.parametrize(
    ("flavour", "peer_name", "path"),
    [
        ("mcpserver", "mcp2", "/mcp"),
        ("lowlevel2", "mcp2", "/mcp"),
        ("fastmcp1", "mcp1", "/mcp"),
        ("lowlevel1", "mcp1", "/mcp/"),
        ("fastmcp", "fastmcp", "/mcp"),
    ],
)
def test_session_not_found_answered_as_the_sdk(flavour: str, peer_name: str, path: str) -> None:
    """An unknown or ended session: 404 with the SDK's JSON-RPC error (-32600, "Session not
    found", its id: null on 2.x and fastmcp, "server-error" on 1.x), whatever the request."""
    with started(peer_name, [SCRIPT, flavour, "PORT"]) as (sdk, ours):
        expected = answers(sdk, path)
        got = answers(ours, path)
    assert got == expected
    for _label, status, ctype, body in expected:
        assert (status, ctype) == (404, "application/json")
        assert b'"code":-32600,"message":"Session not found"' in body


async def test_native_server_keeps_its_answer() -> None:
    """mcpkit's own server answers an unknown session with its -32001 and the request's id."""
    from mcpkit import Server

    app = Server("native").http_app("/mcp")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        answer = await client.post(
            "/mcp", json=LIST, headers={**ACCEPT, "mcp-session-id": "x" * 32}
        )
    assert answer.status_code == 404
    error: dict[str, Any] = answer.json()
    assert error["id"] == 7
    assert error["error"] == {"code": -32001, "message": "Session not found (ended or expired)"}
