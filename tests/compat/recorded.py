"""A client script run on mcp 2.x and unchanged on mcpkit, each against its own server on
mcp 2.x that writes a JSON line per request it receives: what the tests then compare."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.compat.driving import warmed
from tests.compat.test_compat import free_port, serve
from tests.compat.test_unchanged import peer


def run_both(
    tmp_path: Path, server_src: str, client_src: str, mode: str
) -> dict[str, tuple[str, list[Any]]]:
    """``{"theirs" | "ours": (what the client printed, what the server recorded)}``: the
    client is given the server's URL and ``mode``; each must exit 0."""
    server = tmp_path / "server.py"
    server.write_text(server_src)
    client = tmp_path / "client.py"
    client.write_text(client_src)
    sides = {
        "theirs": [str(peer("mcp2")), str(client)],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(client)],
    }
    seen = {}
    for side, argv in sides.items():
        log = tmp_path / f"{side}.jsonl"
        log.write_text("")
        port = free_port()
        proc = serve([str(peer("mcp2")), str(server), str(log)], port)
        try:
            done = subprocess.run(
                warmed([*argv, f"http://127.0.0.1:{port}/mcp", mode]),
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        assert done.returncode == 0, f"{side}: {done.stderr[-3000:]}"
        seen[side] = done.stdout, [json.loads(line) for line in log.read_text().splitlines()]
    return seen
