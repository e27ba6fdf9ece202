"""What a server prints before ``run()`` (at import, while loading) goes to stderr: the
client reads only JSON-RPC on the server's stdout."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.firsthour.conftest import HERE, env_with

DISCOVER = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}


def test_prints_before_run_reach_stderr_not_the_protocol() -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "weather.py")],
        input=(json.dumps(DISCOVER) + "\n").encode(),
        capture_output=True,
        env=env_with(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"loading the weather data" in done.stderr
    lines = done.stdout.splitlines()
    assert lines, done.stderr
    replies = [json.loads(line) for line in lines]  # every line is JSON-RPC
    assert [r.get("id") for r in replies] == [1]
    assert "loading" not in done.stdout.decode()
