"""``mcpkit run -t http --workers N``: N real processes on one port, sharing requestState
keys, stopping together, and saying what they serve without a shared store."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cli.conftest import cli_env

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers need os.fork")

SERVER = '''
import os
from mcpkit import Context, Server

app = Server("pids", "1.0")

CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@app.tool()
async def pid() -> str:
    """The answering worker's process id."""
    return str(os.getpid())


@app.tool()
async def confirm(ctx: Context) -> str:
    """Asks, then names the worker that finished."""
    answer = await ctx.elicit(f"Go? asked by {os.getpid()}", CONFIRM, key="go")
    return f"{answer.data['ok']} {os.getpid()}"
'''

HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}


class Served:
    def __init__(self, proc: subprocess.Popen[str], url: str, banner: str) -> None:
        self.proc, self.url, self.banner = proc, url, banner


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Any]:
    started: list[subprocess.Popen[str]] = []
    file = tmp_path / "pids.py"
    file.write_text(SERVER)

    def start(*extra: str, script: bool = False, **env: str) -> Served:
        if script:  # the file itself serves: app.run("http", workers=2, port=0)
            file.write_text(SERVER + '\napp.run("http", port=0, workers=2)\n')
            argv = [sys.executable, str(file)]
        else:
            argv = [sys.executable, "-m", "mcpkit", "run", str(file), "-t", "http"]
            argv += ["--port", "0", *extra]
        proc = subprocess.Popen(
            argv,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            # --workers serves with uvicorn (granian is refused), in the granian run too
            env=cli_env(**{"MCPKIT_HTTP_SERVER": "uvicorn", **env}),
        )
        started.append(proc)
        assert proc.stderr is not None
        lines = []
        while True:
            line = proc.stderr.readline()
            assert line, f"the command ended: {''.join(lines)}"
            lines.append(line)
            found = re.search(r"on (http://\S+/mcp) ", line)
            if found:
                # the lines printed together with the banner (the store message)
                if "--stateless" not in extra and "MCPKIT_STORE" not in env:
                    lines.append(proc.stderr.readline())
                return Served(proc, found.group(1), "".join(lines))

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def call(url: str, name: str, **params: Any) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {}, "_meta": META, **params},
    }
    # A new connection per call: the kernel spreads connections, not requests.
    with httpx.Client(timeout=30) as http:
        answer = http.post(url, json=body, headers={**HEADERS, "mcp-name": name})
    assert answer.status_code == 200, answer.text
    text = answer.text
    if answer.headers["content-type"].startswith("text/event-stream"):
        text = [ln[5:] for ln in text.splitlines() if ln.startswith("data:")][-1]
    message: dict[str, Any] = json.loads(text)
    return message["result"]


def worker_pids(parent: int) -> set[int]:
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(parent)], capture_output=True, text=True
    ).stdout
    return {int(p) for p in out.split()}


def test_two_workers_answer_on_one_port_and_share_request_state(workers: Any) -> None:
    served = workers("--workers", "2")
    pids: set[int] = set()
    for _ in range(60):
        pids.add(int(call(served.url, "pid")["content"][0]["text"]))
        if len(pids) == 2:
            break
    assert pids == worker_pids(served.proc.pid)
    assert served.proc.pid not in pids
    # An MRTR round sealed by one worker completes on the other.
    answer = {"go": {"action": "accept", "content": {"ok": True}}}
    for _ in range(60):
        first = call(served.url, "confirm")
        assert first["resultType"] == "input_required"
        asked_by = int(json.dumps(first["inputRequests"]).split("asked by ")[1].split('"')[0])
        state = first["requestState"]
        done = call(served.url, "confirm", requestState=state, inputResponses=answer)
        ok, finished_by = done["content"][0]["text"].split()
        assert ok == "True", done
        if int(finished_by) != asked_by:
            break
    else:
        pytest.fail("no round finished on another worker than the one that asked")
    assert {asked_by, int(finished_by)} == pids


def test_sigterm_stops_every_worker_promptly(workers: Any) -> None:
    served = workers("--workers", "2", "--stateless")
    call(served.url, "pid")
    children = worker_pids(served.proc.pid)
    assert len(children) == 2
    served.proc.send_signal(signal.SIGTERM)
    assert served.proc.wait(timeout=8) == 0
    for child in children:
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)


def test_without_a_store_the_workers_say_they_serve_stateless(workers: Any) -> None:
    served = workers("--workers", "2")
    assert "without a shared store: serving stateless HTTP only" in served.banner
    assert "--store" in served.banner
    # 2025 requests still work, without a session
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    answer = httpx.post(
        served.url,
        json=init,
        headers={"accept": "application/json, text/event-stream"},
        timeout=30,
    )
    assert answer.status_code == 200
    assert "mcp-session-id" not in answer.headers


def test_app_run_with_workers(workers: Any) -> None:
    served = workers(script=True)
    assert "2 workers" in served.banner
    assert "serving stateless HTTP only" in served.banner
    pids: set[int] = set()
    for _ in range(60):
        pids.add(int(call(served.url, "pid")["content"][0]["text"]))
        if len(pids) == 2:
            break
    assert pids == worker_pids(served.proc.pid)
    served.proc.send_signal(signal.SIGINT)
    assert served.proc.wait(timeout=8) == 0
    for child in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)


def test_sighup_restarts_the_workers_and_a_dead_one_is_replaced(workers: Any) -> None:
    served = workers("--workers", "2", "--stateless")
    call(served.url, "pid")
    first = worker_pids(served.proc.pid)
    assert len(first) == 2
    victim = min(first)
    os.kill(victim, signal.SIGKILL)
    for _ in range(400):  # bounded wait for the supervisor to notice and replace it
        now = worker_pids(served.proc.pid)
        if victim not in now and len(now) == 2:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the dead worker was not replaced: {now}")
    served.proc.send_signal(signal.SIGHUP)
    for _ in range(400):
        after = worker_pids(served.proc.pid)
        if len(after) == 2 and not after & now:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the workers were not restarted: {now} then {after}")
    answered = {int(call(served.url, "pid")["content"][0]["text"]) for _ in range(10)}
    assert answered <= after
    served.proc.send_signal(signal.SIGTERM)
    assert served.proc.wait(timeout=15) == 0


def test_with_a_store_a_2025_session_is_served_by_every_worker(
    workers: Any, tmp_path: Path
) -> None:
    from tests.scaleout.cluster import Redis

    redis = Redis(tmp_path)
    redis.start()
    try:
        served = workers("--workers", "2", MCPKIT_STORE=redis.url, MCPKIT_STORE_SECRET="s" * 43)
        assert "stateless HTTP only" not in served.banner
        headers = {"accept": "application/json, text/event-stream"}

        def post(body: dict[str, Any], sid: str | None = None) -> httpx.Response:
            extra = {} if sid is None else {"mcp-session-id": sid}
            with httpx.Client(timeout=30) as http:  # a new connection each time
                return http.post(served.url, json=body, headers={**headers, **extra})

        init = post(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        sid = init.headers["mcp-session-id"]
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        pids: set[int] = set()
        for i in range(60):
            answer = post(
                {
                    "jsonrpc": "2.0",
                    "id": i + 2,
                    "method": "tools/call",
                    "params": {"name": "pid", "arguments": {}},
                },
                sid,
            )
            assert answer.status_code == 200, answer.text
            data = [ln[5:] for ln in answer.text.splitlines() if ln.startswith("data:")]
            message = json.loads(data[-1] if data else answer.text)
            pids.add(int(message["result"]["content"][0]["text"]))
            if len(pids) == 2:
                break
        assert pids == worker_pids(served.proc.pid)
    finally:
        redis.stop()
