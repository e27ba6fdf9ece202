"""A 2026-07-28 stdio server with an open ``subscriptions/listen`` exits when its stdin
closes: the listen stream is not a request still to be answered (the end-of-input drain
would wait for it, then answer it -32603)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.firsthour.conftest import HERE, env_with, modern


def test_an_open_listen_does_not_hold_the_server_at_end_of_input() -> None:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "weather.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env_with(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(modern(1, "server/discover")).encode() + b"\n")
        listen = modern(2, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        proc.stdin.write(json.dumps(listen).encode() + b"\n")
        proc.stdin.flush()
        seen = [json.loads(proc.stdout.readline()) for _ in range(2)]
        assert {m.get("id") for m in seen} == {1, None}  # discover's answer, the acknowledgment
        ack = next(m for m in seen if "id" not in m)
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        proc.stdin.close()  # the client goes away
        # Well within the 10 s the drain gives requests still running.
        assert proc.wait(timeout=5) == 0
        rest = [json.loads(line) for line in proc.stdout.read().splitlines()]
        assert not [m for m in rest if "error" in m], rest
        assert b"still running" not in proc.stderr.read()  # type: ignore[union-attr]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
