"""The stdio client shuts a server down as the spec says: close stdin, wait, SIGTERM, SIGKILL."""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import time
from pathlib import Path
from typing import Any

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


def running(pid: int) -> bool:
    """The process runs (a zombie, killed but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_a_loop_that_ends_during_a_shutdown_leaves_no_process_transport_open() -> None:
    """A server that closes its stdout and lives on is shut down in the background (close
    stdin, wait, SIGTERM, SIGKILL); a loop that ends first cancels that shutdown, which
    still closes the process transport: the server killed, its pipes released, nothing
    left to close once the loop is gone (it raised "Event loop is closed" when collected)."""
    fake = str(Path(__file__).parent / "reliability" / "fake_stdio.py")
    # Held past the loop, as a test's fixtures or a traceback may hold one.
    transport = StdioClientTransport(sys.executable, [fake, "close-stdout"], shutdown_timeout=30)
    unclosed: list[str] = []

    async def run(transport: StdioClientTransport) -> None:
        session = ClientSession(transport)
        await session.start()
        await session.initialize({"name": "c", "version": "1"})
        with pytest.raises(ConnectionClosed):
            await session.request("tools/call", {"name": "t", "arguments": {}}, timeout=30)

    def hook(unraisable: Any) -> None:
        unclosed.append(f"{unraisable.object!r}: {unraisable.exc_value!r}")

    previous = sys.unraisablehook
    sys.unraisablehook = hook
    try:
        asyncio.run(run(transport))  # ends while the shutdown waits for the server to exit
        pid = transport.pid
        assert pid is not None
        del transport
        gc.collect()
    finally:
        sys.unraisablehook = previous
    assert unclosed == []
    deadline = time.monotonic() + 10
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(pid)  # it would sleep on for a minute
