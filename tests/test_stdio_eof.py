"""A stdio server whose stdin reaches end of file answers what it was already asked before it
exits (``server.py < requests.jsonl > answers.jsonl``, or a client that writes its requests,
closes its end of the pipe, then reads): requests still running after the drain timeout are
answered with an error, requests to the client fail at once, a closed stdout ends it at once."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.wire import WireChecker

SERVER = """
import asyncio, sys, time
from mcpkit import Context, Server

app = Server("eof", mask_errors=False)  # the tests read why a call failed

@app.tool()
def add(a: int, b: int) -> int:
    return a + b

@app.tool()
async def slow(seconds: float, ctx: Context) -> str:
    await ctx.info(f"sleeping {seconds}")
    await asyncio.sleep(seconds)
    return f"slept {seconds}"

@app.tool()
def blocking(seconds: float) -> str:
    time.sleep(seconds)  # in the server's thread pool
    return f"blocked {seconds}"

@app.tool()
async def ask(ctx: Context) -> str:
    answer = await ctx.sample("hello?")
    return str(answer)

app.run(drain_timeout=float(sys.argv[1]))
"""


def initialize(version: str = "2025-11-25", rid: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {"sampling": {}},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(rid: int, name: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def lines(messages: list[Any]) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


def script(tmp_path: Path) -> Path:
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    return path


def by_id(answers: list[Any]) -> dict[Any, dict[str, Any]]:
    """Every response by id (a batch's items too); an id answered twice fails."""
    out: dict[Any, dict[str, Any]] = {}
    for answer in answers:
        for item in answer if isinstance(answer, list) else [answer]:
            if "method" in item:
                continue
            assert item["id"] not in out, f"answered twice: {item}"
            out[item["id"]] = item
    return out


def check_wire(version: str, sent: list[Any], answers: list[Any]) -> None:
    """The server's side of the exchange against the schema of ``version``."""
    checker = WireChecker(version)
    for message in sent:
        checker("recv", message)
    for answer in answers:
        checker("send", answer)
    assert checker.errors == []


def text(answer: dict[str, Any]) -> str:
    content = answer["result"]["content"]
    assert isinstance(content[0]["text"], str)
    return str(content[0]["text"])


def test_a_file_of_requests_is_answered_in_full(tmp_path: Path) -> None:
    """`server.py < requests.jsonl > answers.jsonl`: every answer is in the file."""
    sent = [
        initialize(),
        INITIALIZED,
        call(2, "add", a=2, b=3),
        call(3, "slow", seconds=0.3),
        call(4, "blocking", seconds=0.3),
        {"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 6, "method": "ping"},
        call(7, "slow", seconds=30),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}},
        call(8, "add", a=1, b=1),
    ]
    requests = tmp_path / "requests.jsonl"
    # The last message has no newline: it is taken as it is at the end of the file.
    requests.write_bytes(lines(sent).rstrip(b"\n"))
    out = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, out.open("wb") as stdout:
        proc = subprocess.run(
            [sys.executable, str(script(tmp_path)), "10"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=30,
        )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    got = by_id(answers)
    # 7 was cancelled before the input ended: no answer (it would be the drain's error).
    assert sorted(got) == [1, 2, 3, 4, 5, 6, 8]
    assert all("result" in a for a in got.values()), got
    assert got[2]["result"]["structuredContent"] == {"result": 5}
    assert text(got[3]) == "slept 0.3"
    assert text(got[4]) == "blocked 0.3"
    assert {t["name"] for t in got[5]["result"]["tools"]} >= {"add", "slow", "blocking"}
    assert got[6]["result"] == {}
    logs = [a["params"]["data"] for a in answers if a.get("method") == "notifications/message"]
    assert logs.count("sleeping 0.3") == 1
    check_wire("2025-11-25", sent, answers)


def test_a_batch_through_a_pipe_is_answered_after_the_input_closes(tmp_path: Path) -> None:
    """A client that writes everything, closes its end, then reads (2025-03-26: batches)."""
    batch = [
        call(3, "slow", seconds=0.3),
        call(4, "blocking", seconds=0.3),
        call(5, "add", a=1, b=2),
    ]
    sent = [initialize("2025-03-26"), INITIALIZED, call(2, "slow", seconds=0.3), batch]
    proc = subprocess.run(
        [sys.executable, str(script(tmp_path)), "10"],
        input=lines(sent),
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    arrays = [a for a in answers if isinstance(a, list)]
    assert len(arrays) == 1 and sorted(item["id"] for item in arrays[0]) == [3, 4, 5]
    got = by_id(answers)
    assert sorted(got) == [1, 2, 3, 4, 5]
    assert [text(got[i]) for i in (2, 3, 4)] == ["slept 0.3", "slept 0.3", "blocked 0.3"]
    assert got[5]["result"]["structuredContent"] == {"result": 3}
    check_wire("2025-03-26", sent, answers)


def test_requests_outliving_the_drain_timeout_are_answered_with_an_error(tmp_path: Path) -> None:
    sent = [
        initialize(),
        INITIALIZED,
        call(2, "slow", seconds=60),
        call(3, "blocking", seconds=60),
        call(4, "slow", seconds=0.2),
    ]
    proc = subprocess.run(
        [sys.executable, str(script(tmp_path)), "0.5"],
        input=lines(sent),
        capture_output=True,
        timeout=30,  # the requests run for 60 s: only the drain's bound ends them
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    got = by_id(answers)
    assert sorted(got) == [1, 2, 3, 4]
    assert text(got[4]) == "slept 0.2"
    for rid in (2, 3):
        error = got[rid]["error"]
        assert error["code"] == -32603
        assert "closed its input" in error["message"] and "0.5 s" in error["message"]
    assert b"2 request(s) still running" in proc.stderr
    check_wire("2025-11-25", sent, answers)


def test_sampling_asked_during_the_drain_fails_at_once(tmp_path: Path) -> None:
    """No one can answer the server any more: the tool's request fails without waiting
    (the drain timeout is 60 s; the process ends long before)."""
    sent = [initialize(), INITIALIZED, call(2, "ask"), call(3, "add", a=1, b=1)]
    proc = subprocess.run(
        [sys.executable, str(script(tmp_path)), "60"],
        input=lines(sent),
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    got = by_id(answers)
    assert sorted(got) == [1, 2, 3]
    assert got[2]["result"]["isError"] is True
    assert "closed its input" in text(got[2])
    check_wire("2025-11-25", sent, answers)


def read_lines(proc: subprocess.Popen[bytes], count: int | None, timeout: float = 20) -> list[Any]:
    """``count`` lines of the server's stdout, or all of it to its end (None), failing
    after ``timeout`` seconds."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    buf = b""
    deadline = time.monotonic() + timeout
    while count is None or buf.count(b"\n") < count:
        left = deadline - time.monotonic()
        assert left > 0, f"no answer in time; got {buf!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk and count is None:
                break
            assert chunk, f"stdout closed early; got {buf!r}"
            buf += chunk
    return [json.loads(line) for line in buf.splitlines()]


def spawn(tmp_path: Path, drain_timeout: float) -> subprocess.Popen[bytes]:
    """The test server with every stream piped to this process."""
    return subprocess.Popen(
        [sys.executable, str(script(tmp_path)), str(drain_timeout)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_a_request_to_the_client_waiting_at_the_end_of_input_fails(tmp_path: Path) -> None:
    """The sampling request went out before the input closed; its answer never will."""
    proc = spawn(tmp_path, drain_timeout=60)
    assert proc.stdin is not None
    try:
        proc.stdin.write(lines([initialize(), INITIALIZED, call(2, "ask")]))
        proc.stdin.flush()
        first = read_lines(proc, 2)
        assert first[0]["id"] == 1 and first[1]["method"] == "sampling/createMessage"
        proc.stdin.close()  # no answer to the sampling request
        rest = read_lines(proc, None)
        proc.wait(timeout=20)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0
    got = by_id(rest)
    assert sorted(got) == [2]
    assert got[2]["result"]["isError"] is True and "closed its input" in text(got[2])


def test_stdout_closed_ends_the_server_at_once(tmp_path: Path) -> None:
    """Nobody reads the answers any more: the drain does not wait for them."""
    proc = spawn(tmp_path, drain_timeout=60)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(lines([initialize(), INITIALIZED, call(2, "slow", seconds=60)]))
        proc.stdin.flush()
        assert read_lines(proc, 2)[0]["id"] == 1  # the answer, and the tool's log message
        proc.stdout.close()
        proc.stdin.close()
        code = proc.wait(timeout=20)  # the slow call (60 s, drain 60 s) is not waited for
    finally:
        proc.kill()
        proc.wait()
    assert code == 0, proc.stderr.read() if proc.stderr else b""


def test_sigterm_during_the_drain_ends_the_server_at_once(tmp_path: Path) -> None:
    proc = spawn(tmp_path, drain_timeout=60)
    assert proc.stdin is not None
    try:
        proc.stdin.write(lines([initialize(), INITIALIZED, call(2, "slow", seconds=60)]))
        proc.stdin.close()
        assert read_lines(proc, 2)[0]["id"] == 1  # draining: the slow call is running
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)  # not the 60 s of the drain
    finally:
        proc.kill()
        proc.wait()
    assert code == -signal.SIGTERM


CLI_SERVER = """
import asyncio
from mcpkit import Server

app = Server("eof-cli")

@app.tool()
async def slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return f"slept {seconds}"
"""


def test_the_command_line_sets_the_drain_timeout(tmp_path: Path) -> None:
    path = tmp_path / "cli_server.py"
    path.write_text(CLI_SERVER)
    sent = [initialize(), INITIALIZED, call(2, "slow", seconds=60), call(3, "slow", seconds=0.1)]
    command = [sys.executable, "-m", "mcpkit", "run", str(path), "--drain-timeout", "0.3"]
    proc = subprocess.run(command, input=lines(sent), capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    got = by_id([json.loads(line) for line in proc.stdout.splitlines()])
    assert sorted(got) == [1, 2, 3]
    assert text(got[3]) == "slept 0.1"
    assert got[2]["error"]["code"] == -32603 and "0.3 s" in got[2]["error"]["message"]
    bad = subprocess.run([*command[:-1], "-1"], input=b"", capture_output=True, timeout=30)
    assert bad.returncode != 0 and b"--drain-timeout" in bad.stderr
