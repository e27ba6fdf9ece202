"""The official SDK's HTTP+SSE server transport (``mcp.server.sse.SseServerTransport``) as
published servers wire it (``connect_sse`` + ``server.run`` in the GET endpoint,
``handle_post_message`` mounted in a Starlette app, uvicorn): each server runs on ``mcp``
1.x and unchanged on mcpkit (``python -m mcpkit.compat``), driven by the official client's
``sse_client``; what it saw must be equal, and the POST endpoint answers what the SDK's
does."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.compat.driving import submit
from tests.compat.test_compat import free_port, serve
from tests.compat.test_examples import EXAMPLES, LIST
from tests.compat.test_unchanged import (
    LOWLEVEL_V1_SCRIPT,
    SERVERS,
    assert_same,
    normalised,
    peer,
)

COMPAT = [sys.executable, "-m", "mcpkit.compat"]


def compared(
    argv: list[str], path: str, script: list[dict[str, Any]]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the official client saw over HTTP+SSE at ``path`` of the server ``argv`` (its
    port appended) on ``mcp`` 1.x and on mcpkit."""
    ports = free_port(), free_port()
    procs: list[subprocess.Popen[str]] = [serve([str(peer("mcp1")), *argv], ports[0])]
    try:
        procs.append(serve([*COMPAT, *argv], ports[1]))
        jobs = [
            submit(peer("mcp2"), script, tag, url=f"http://127.0.0.1:{port}{path}", sse=True)
            for port, tag in zip(ports, ("theirs", "ours"), strict=True)
        ]
        theirs, ours = (normalised(job.report()) for job in jobs)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    return theirs, ours


def test_lowlevel_1x_server_over_sse() -> None:
    """The 1.x low-level server of ``lowlevel_v1.py`` over HTTP+SSE, mounted under ``/api``:
    listings, every result form, validation errors, progress, logs and list-change
    notifications are the same on both."""
    theirs, ours = compared([str(SERVERS / "lowlevel_v1_sse.py")], "/api/sse", LOWLEVEL_V1_SCRIPT)
    assert_same(theirs, ours)
    assert ours["capabilities"]["resources"] == {"subscribe": False, "listChanged": True}
    ops = ours["ops"]
    assert ops[8]["progress"] == [[1, 2, "step 1"], [2, 2, "step 2"]]
    assert ops[8]["logs"] == [{"data": {"done": True}, "level": "info", "logger": "notes"}]
    assert ours["notifications"] == ["notifications/resources/list_changed"]


@pytest.mark.parametrize(
    ("name", "script"),
    [
        (
            "server_mcp_simple_prompt.py",
            [LIST, {"op": "get", "name": "simple", "args": {"context": "c", "topic": "t"}}],
        ),
        ("server_mcp_simple_resource.py", [LIST, {"op": "read", "uri": "file:///greeting.txt"}]),
        (
            "server_mcp_simple_pagination.py",
            [
                LIST,
                {"op": "call", "name": "tool_3", "args": {"input": "x"}},
                {"op": "read", "uri": "file:///path/to/resource_2.txt"},
            ],
        ),
    ],
)
def test_official_example_with_transport_sse(
    name: str, script: list[dict[str, Any]], tmp_path: Path
) -> None:
    """The SDK's example servers started as ``server --transport sse --port N``."""
    path = EXAMPLES / name
    launcher = tmp_path / "launch.py"
    launcher.write_text(
        f"import sys\nsys.path.insert(0, {str(path.parent)!r})\n"
        f"from {path.stem} import main\nsys.exit(main())\n"
    )
    theirs, ours = compared([str(launcher), "--transport", "sse", "--port"], "/sse", script)
    assert_same(theirs, ours)
    # Errors are compared above; only a list may fail (a kind the example does not serve).
    assert all("error" not in op for op in ours["ops"] if op["op"] != "list"), ours["ops"]


def _posts(base: str) -> list[tuple[int, str]]:
    """The status and text of the messages endpoint's answers to bad POSTs (an open session
    for the ones that need one)."""
    answers: list[tuple[int, str]] = []
    with (
        httpx.Client(base_url=base, timeout=10) as http,
        http.stream("GET", "/api/sse") as stream,
    ):
        lines = stream.iter_lines()
        assert next(lines) == "event: endpoint"
        endpoint = next(lines).removeprefix("data: ")
        sid = endpoint.rsplit("=", 1)[1]
        assert endpoint == f"/api/messages/?session_id={sid}"
        assert uuid.UUID(hex=sid).hex == sid
        good = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        json_type = {"content-type": "application/json"}
        for method, url, body, headers in [
            ("POST", "/api/messages/", good, json_type),
            ("POST", "/api/messages/?session_id=nothex", good, json_type),
            ("POST", f"/api/messages/?session_id={uuid.uuid4().hex}", good, json_type),
            ("POST", endpoint, good, {"content-type": "text/plain"}),
            ("POST", endpoint, "{not json", json_type),
            ("POST", endpoint, {"jsonrpc": "2.0"}, json_type),
            ("POST", endpoint, "x" * (5 * 1024 * 1024), json_type),
            ("GET", endpoint, None, {}),
            ("POST", endpoint, good, json_type),
        ]:
            content = body if isinstance(body, str) else json.dumps(body) if body else None
            answer = http.request(method, url, content=content, headers=headers)
            answers.append((answer.status_code, answer.text))
    return answers


def test_messages_endpoint_answers_as_the_sdk() -> None:
    """The messages endpoint's answers, good and bad (no session id, a malformed one, an
    unknown one, not JSON, not a message, too large, not a POST), are the SDK's."""
    argv = [str(SERVERS / "lowlevel_v1_sse.py")]
    ports = free_port(), free_port()
    procs: list[subprocess.Popen[str]] = [serve([str(peer("mcp1")), *argv], ports[0])]
    try:
        procs.append(serve([*COMPAT, *argv], ports[1]))
        theirs, ours = (_posts(f"http://127.0.0.1:{port}") for port in ports)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    assert ours == theirs
    assert ours[0] == (400, "session_id is required")
    assert ours[-1] == (202, "Accepted")


def _guarded(base: str) -> list[tuple[int, str]]:
    """The answers of a protected transport: a GET and POSTs with a foreign ``Host`` or
    ``Origin``, then an allowed session's POST."""
    answers: list[tuple[int, str]] = []
    with httpx.Client(base_url=base, timeout=10) as http:
        for headers in ({"host": "evil.example"}, {"origin": "http://evil.example"}):
            # A connection each: the file's handler answers again after the transport's
            # refusal (as published servers do), and the server may then drop the
            # connection a next request would have reused.
            answer = http.get("/sse", headers={**headers, "connection": "close"})
            answers.append((answer.status_code, answer.text))
        with http.stream("GET", "/sse", headers={"origin": base}) as stream:
            lines = stream.iter_lines()
            assert next(lines) == "event: endpoint"
            endpoint = next(lines).removeprefix("data: ")
            ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
            for headers in (
                {"host": "evil.example"},
                {"origin": "http://evil.example"},
                {"origin": base},
            ):
                answer = http.post(
                    endpoint,
                    content=ping,
                    headers={"content-type": "application/json", **headers},
                )
                answers.append((answer.status_code, answer.text))
    return answers


def test_security_settings_as_the_sdk() -> None:
    """``security_settings=TransportSecuritySettings(...)`` on the transport: a foreign
    ``Host`` or ``Origin`` refused on the stream and on the messages with the SDK's
    statuses and texts, an allowed one served."""
    argv = [str(SERVERS / "lowlevel_v1_sse_guarded.py")]
    ports = free_port(), free_port()
    procs: list[subprocess.Popen[str]] = [serve([str(peer("mcp1")), *argv], ports[0])]
    try:
        procs.append(serve([*COMPAT, *argv], ports[1]))
        theirs, ours = (_guarded(f"http://127.0.0.1:{port}") for port in ports)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    assert ours == theirs
    assert ours[0] == (421, "Invalid Host header")
    assert ours[1] == (403, "Invalid Origin header")
    assert ours[-1] == (202, "Accepted")
