"""``mcp.shared.memory``'s ``create_connected_server_and_client_session`` as server test
code uses it: a script in the official SDK 1.x's style (``clients/official_memory_session.py``,
a low-level ``Server`` and a ``FastMCP`` with the client's sampling, roots and logging
callbacks) prints the same on ``mcp`` 1.x and unchanged on mcpkit."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.compat.test_fastmcp_client import CLIENTS
from tests.compat.test_unchanged import peer

SCRIPT = CLIENTS / "official_memory_session.py"


def _printed(argv: list[str]) -> list[str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=150, cwd=CLIENTS)
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout.splitlines()


def test_memory_session_prints_the_same() -> None:
    theirs = _printed([str(peer("mcp1")), str(SCRIPT)])
    ours = _printed([sys.executable, "-m", "mcpkit.compat", str(SCRIPT)])
    assert ours == theirs
    seen = {k: v for line in ours for k, v in json.loads(line).items()}
    assert seen["add"] == ["3", {"result": 3}]
    assert seen["protocol-error"]["content"][0]["text"] == "refused here"
    assert seen["read missing"] == {"McpError": [0, "Note not found: none"]}
    assert seen["ask"]["content"][0]["text"] == "sampled / ['file:///work']"
    assert seen["logs"] == [{"data": "asking", "level": "info"}]
