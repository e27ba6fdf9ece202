"""A published-style HTTP+SSE server (``SseServerTransport`` and ``server.run(...)`` in the
GET endpoint) runs its lifespan once per connection on the SDK, each connection's requests
seeing their own: two clients at once, then a third, on ``mcp`` 1.x and unchanged on
mcpkit, must be answered the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.compat.test_compat import SERVERS, free_port, serve
from tests.compat.test_unchanged import peer

pytestmark = pytest.mark.timeout(180)

SERVER = str(Path(SERVERS) / "sse_lifespan.py")
CLIENT = str(Path(__file__).parent / "clients" / "sse_two_clients.py")


def answers(command: list[str], server: str = SERVER) -> list[str]:
    """What the three clients of ``sse_two_clients.py`` were told by ``server`` run by
    ``command``."""
    port = free_port()
    proc = serve([*command, server], port)
    try:
        run = subprocess.run(
            [str(peer("mcp2")), CLIENT, f"http://127.0.0.1:{port}/sse"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        return run.stdout.split("\n")[:3]
    finally:
        proc.terminate()
        proc.wait(10)


def test_lifespan_runs_per_connection_as_on_the_sdk() -> None:
    """Each connection enters the lifespan and sees its own value; the third, alone, is
    the third entry with one open."""
    theirs = answers([str(peer("mcp1"))])
    ours = answers([sys.executable, "-m", "mcpkit.compat"])
    assert ours == theirs
    assert theirs == ["entry 1 of 2 open", "entry 2 of 2 open", "entry 3 of 1 open"]


def test_mcpserver_run_sse_lifespan_per_connection_as_on_the_sdk() -> None:
    """``MCPServer.run("sse")``: the SDK's ``sse_app()`` enters the lifespan per connection
    (not at start-up); so does mcpkit."""
    server = str(Path(SERVERS) / "sse_lifespan_mcpserver.py")
    theirs = answers([str(peer("mcp2"))], server)
    ours = answers([sys.executable, "-m", "mcpkit.compat"], server)
    assert ours == theirs
    assert theirs == ["entry 1 of 2 open", "entry 2 of 2 open", "entry 3 of 1 open"]
