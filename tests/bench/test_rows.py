"""The benchmark rows of large payloads and idle sessions: the client's checks catch every
wrong answer, and one tiny round of the rows runs against mcpkit and the raw baseline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import client  # noqa: E402  (bench/client.py, found through the line above)

TEXT = client.LARGE_TEXT
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
}


def resource(text: Any, uri: str = client.LARGE_URI) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]},
    }


def tool(text: Any, is_error: bool = False) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"content": [{"type": "text", "text": text}], "isError": is_error},
    }


def check(message: dict[str, Any] | bytes, kind: str) -> str | None:
    """What the client says of an answer on the wire: cut, then parsed, then checked."""
    raw = message if isinstance(message, bytes) else orjson.dumps(message)
    return client.check_large(orjson.loads(client.cut_large(raw)), kind)


def test_the_payload_is_one_mebibyte_of_lines_with_quotes() -> None:
    assert len(TEXT) == 1 << 20
    lines = TEXT.splitlines()
    assert len(lines) == 16_384 and {len(line) for line in lines} == {63}
    assert lines[0].startswith("000000 ") and lines[-1].startswith("016383 ")
    assert TEXT.count('"') == 2 * 16_384


def test_right_answers_pass_cut_or_parsed_in_full() -> None:
    assert check(resource(TEXT), "resource") is None
    assert check(tool(TEXT), "tool") is None
    # The JSON form the cut looks for is really taken out (only the small rest is parsed).
    assert len(client.cut_large(orjson.dumps(tool(TEXT)))) < 200
    # Other encoders' spacing is fine; so is another escaping of the same text (no cut:
    # it is parsed in full and compared).
    spaced = json.dumps(resource(TEXT), indent=1).encode()
    assert client.cut_large(spaced) != spaced and check(spaced, "resource") is None
    escaped = json.dumps(tool(TEXT)).replace('\\"', "\\u0022").encode()
    assert client.cut_large(escaped) == escaped and check(escaped, "tool") is None


@pytest.mark.parametrize("kind", ["resource", "tool"])
def test_wrong_answers_are_caught(kind: str) -> None:
    make = resource if kind == "resource" else tool
    changed = TEXT[:500_000] + "X" + TEXT[500_001:]
    assert check(make(changed), kind) == "not the 1 MiB text (got 1048576 characters)"
    assert check(make(TEXT[:-1]), kind) == "not the 1 MiB text (got 1048575 characters)"
    assert check(make(TEXT + "!"), kind) == "not the 1 MiB text (got 1048577 characters)"
    assert check(make(""), kind) == "not the 1 MiB text (got 0 characters)"
    assert check(make(None), kind) == "not the 1 MiB text (got NoneType characters)"
    # The text somewhere else than where the answer must carry it.
    misplaced = make("short")
    misplaced["result"]["extra"] = TEXT
    assert check(misplaced, kind) == "not the 1 MiB text (got 5 characters)"
    error = {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "no"}}
    assert check(error, kind) == "error response: {'code': -32602, 'message': 'no'}"
    assert (check({"jsonrpc": "2.0", "id": 7, "result": {}}, kind) or "").startswith(
        "malformed result"
    )


def test_a_resource_answer_must_name_its_uri_and_a_tool_answer_must_not_be_an_error() -> None:
    assert check(resource(TEXT, uri="bench://other"), "resource") == "wrong uri 'bench://other'"
    assert (check(tool(TEXT, is_error=True), "tool") or "").startswith("isError result")


@pytest.fixture
async def raw_http(request: pytest.FixtureRequest) -> AsyncIterator[tuple[int, int]]:
    """The raw baseline's HTTP server (sessions, or stateless with the marker's word)."""
    port = client.free_port()
    argv = [sys.executable, str(ROOT / "bench" / "servers" / "raw_http.py"), "--port", str(port)]
    argv += getattr(request, "param", [])
    proc = await client.spawn(argv, ENV, subprocess.DEVNULL, stdio=False)
    try:
        await client.wait_for_port(port, proc, 30)
        yield port, proc.pid
    finally:
        await client.stop(proc)


async def test_idle_sessions_are_opened_counted_and_checked_alive(
    raw_http: tuple[int, int],
) -> None:
    port, pid = raw_http
    got = await client.idle_sessions(port, pid, 40, 3, 30.0, 2, settle=0.0)
    assert (got.created, got.errors, got.first_error, got.checked) == (40, 0, None, 8)
    assert got.notes == [] and got.seconds > 0 and got.rate > 0
    assert got.rss_before_kb > 0 and got.rss_after_kb > 0


@pytest.mark.parametrize("raw_http", [["--stateless"]], indirect=True)
async def test_a_server_that_keeps_no_sessions_opens_none(raw_http: tuple[int, int]) -> None:
    port, pid = raw_http
    got = await client.idle_sessions(port, pid, 40, 2, 30.0, 0, settle=0.0)
    assert got.created == 0 and got.checked == 0
    assert got.errors == 10  # five failures in a row stop each of the two connections
    assert got.first_error == "BenchError: no Mcp-Session-Id on the initialize response"


async def test_large_answers_over_http_are_measured(raw_http: tuple[int, int]) -> None:
    port, pid = raw_http
    for kind in client.LARGE_KINDS:
        m = await client.http_large(port, pid, kind, 3, False, 30.0, 1)
        assert (m.calls, m.errors, m.first_error, m.sse_responses) == (3, 0, None, 3)


def test_one_tiny_round_of_the_rows_against_mcpkit_and_the_raw_loop() -> None:
    rows = [
        "large-stdio-resource",
        "large-stdio-tool",
        "large-sse-resource",
        "large-sse-tool",
        "large-json-resource",
        "large-json-tool",
        "sessions-rate",
        "sessions-rss",
    ]
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "run.py"),
            "--smoke",
            "--only",
            "mcpkit,raw",
            "--workloads",
            ",".join(rows),
            "--no-setup",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=ENV,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checked the answers only (16 implementation x workload runs" in done.stdout
    saved = next(line for line in done.stdout.splitlines() if line.startswith("Raw results: "))
    results = json.loads((ROOT / saved.split()[2].rstrip(";")).read_text())["results"]
    for impl in ("mcpkit", "raw"):
        for row in rows:
            cell = results[impl][row]
            assert cell["errors"] == 0 and not cell["failed"], (impl, row, cell["notes"])
            assert len(cell["values"]) == 1, (impl, row)
            # 20 sessions may not grow the RSS by a page; everything else moved something.
            assert cell["values"][0] >= 0 if row == "sessions-rss" else cell["values"][0] > 0
        assert results[impl]["sessions-rate"]["created"] == [20]
        assert results[impl]["large-sse-tool"]["calls"] == 2
