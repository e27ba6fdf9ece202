"""The official SDK 2.x's ``stories/serve_one`` (``examples/NOTICE``), unchanged on mcpkit:
the kernel drivers a transport entry composes (``mcp.server.connection.Connection``,
``mcp.server.runner.serve_one`` / ``serve_connection``,
``mcp.shared.jsonrpc_dispatcher.JSONRPCDispatcher``) mapped onto mcpkit's engine.

- the story's own client passes on both: it drives ``handle_one`` in process (the raw
  result dict of one 2026-07-28 request), then starts ``server.py`` (the hand-built
  ``serve_connection`` loop over stdio) and lists and calls over the wire;
- ``handle_one`` answers every exchange of ``servers/serve_one_exchanges.py`` alike: the
  result dicts, the errors raised (``MCPError``'s code, message and data) and a handler's
  own exception, re-raised;
- the loop serves the handshake era only, as the SDK's: ``server/discover`` is answered
  as a method nobody serves.

``server.py`` is also driven by the official client in ``test_examples_official.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compat.driving import warmed
from tests.compat.test_unchanged import peer

EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v2"
STORY = EXAMPLES / "stories" / "serve_one"
EXCHANGES = Path(__file__).resolve().parent / "servers" / "serve_one_exchanges.py"

#: Each side: how it runs a module of the story's folder, and a file.
SIDES = {
    "theirs": lambda *target: [str(peer("mcp2")), *target],
    "ours": lambda *target: [sys.executable, "-m", "mcpkit.compat", *target],
}


def _run(command: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    path = [str(EXAMPLES), *sys.path]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=120, env=env, cwd=EXAMPLES
    )


def test_story_client_passes_on_both() -> None:
    """The story's scaffold imports ``httpx2`` (in mcpkit's test environment too)."""
    theirs = _run(warmed([str(peer("mcp2")), "-m", "stories.serve_one.client"]))
    ours = _run([sys.executable, "-m", "mcpkit.compat", "stories.serve_one.client"])
    for side, done in (("theirs", theirs), ("ours", ours)):
        assert done.returncode == 0, f"{side}: {done.stderr[-3000:]}"
        assert "OK: serve_one (stdio/legacy)" in done.stderr, side


def test_handle_one_answers_alike() -> None:
    theirs = _run([str(peer("mcp2")), str(EXCHANGES)])
    ours = _run([sys.executable, "-m", "mcpkit.compat", str(EXCHANGES)])
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    assert ours.returncode == 0, ours.stderr[-3000:]
    lines = theirs.stdout.splitlines()
    assert len(lines) == 8
    assert ours.stdout.splitlines() == lines
    first = json.loads(lines[0].partition(" ")[2])
    assert first["structuredContent"] == {"result": 5}


DISCOVER = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "server/discover",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "x", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}


@pytest.mark.parametrize("side", sorted(SIDES))
def test_the_loop_serves_the_handshake_era_only(side: str) -> None:
    done = _run(SIDES[side](str(STORY / "server.py")), json.dumps(DISCOVER) + "\n")
    assert json.loads(done.stdout) == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32601, "message": "Method not found", "data": "server/discover"},
    }
