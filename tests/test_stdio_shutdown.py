"""The stdio client shuts a server down as the spec says: close stdin, wait, SIGTERM, SIGKILL."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest

from mcpkit.errors import ConnectionClosed
from mcpkit.session import ClientSession
from mcpkit.transports import StdioClientTransport

STUBBORN = r"""
import signal, sys, time
mode = sys.argv[1]
if mode == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stderr.write("ready\n"); sys.stderr.flush()
if mode == "polite":
    sys.stdin.read()          # exits when stdin closes
    sys.exit(0)
while True:
    time.sleep(0.1)           # never reads stdin
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(
    ("mode", "returncode", "min_s"),
    [("polite", 0, 0.0), ("stubborn", -15, 0.4), ("ignore-term", -9, 0.8)],
)
async def test_shutdown_escalates(tmp_path: Path, mode: str, returncode: int, min_s: float) -> None:
    script = tmp_path / "server.py"
    script.write_text(STUBBORN)
    transport = StdioClientTransport(sys.executable, [str(script), mode], shutdown_timeout=0.5)
    session = ClientSession(transport)
    await session.start()
    for _ in range(100):
        if "ready" in transport.stderr_tail:
            break
        await asyncio.sleep(0.02)
    pid = transport.pid
    assert pid is not None
    t = time.monotonic()
    await session.close()
    took = time.monotonic() - t
    assert transport.returncode == returncode
    assert took >= min_s
    assert not alive(pid)


async def test_missing_command_is_a_clear_error() -> None:
    session = ClientSession(StdioClientTransport("/nonexistent/mcp-server"))
    with pytest.raises(ConnectionClosed, match="Could not start server"):
        await session.start()
