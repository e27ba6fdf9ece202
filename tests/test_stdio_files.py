"""A stdio server whose stdout is a regular file (``server.py > answers.jsonl``): the event
loop cannot poll a file (uvloop aborted the process on it), so answers are written plainly."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

SERVER = """
from mcpkit import Server
app = Server("files")

@app.tool()
def add(a: int, b: int) -> int:
    return a + b

app.run()
"""

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def test_answers_go_to_a_regular_file(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    out = tmp_path / "answers.jsonl"
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=sink,
            stderr=subprocess.PIPE,
        )
    assert proc.stdin is not None
    try:
        proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while out.read_bytes().count(b"\n") < 1 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
            time.sleep(0.05)
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}  # fmt: skip
        proc.stdin.write(json.dumps(call).encode() + b"\n")
        proc.stdin.flush()
        while out.read_bytes().count(b"\n") < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
            time.sleep(0.05)
    finally:
        proc.stdin.close()
        code = proc.wait(timeout=30)
    assert code == 0, proc.stderr.read() if proc.stderr else b""
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    assert answers[0]["id"] == 1 and answers[0]["result"]["serverInfo"]["name"] == "files"
    assert answers[1]["id"] == 2 and answers[1]["result"]["structuredContent"] == {"result": 5}
