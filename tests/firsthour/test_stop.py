"""Stopping with clients connected: Ctrl-C (SIGINT) or SIGTERM ends an HTTP server at once,
with requests in flight answered and no traceback; Ctrl-C on ``mcpkit call`` against a
stdio server ends it as quickly."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mcpkit import Client
from mcpkit.errors import McpError
from tests.firsthour.conftest import HERE, env_with

#: Far longer than a prompt stop takes, far shorter than the waits it used to sit out.
STOP_BOUND = 3.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(*args: str, **env: str) -> subprocess.Popen[bytes]:
    """``python ARGS`` with its output on pipes."""
    return subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env_with(**env),
    )


def exits_within(proc: subprocess.Popen[bytes], seconds: float) -> int | None:
    """The exit code, or None when ``proc`` is still running after ``seconds``."""
    try:
        return proc.wait(seconds)
    except subprocess.TimeoutExpired:
        return None


@pytest.mark.parametrize("era", ["auto", "legacy"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_an_http_server_stops_at_once_with_a_request_in_flight(
    era: str, signum: signal.Signals
) -> None:
    port = free_port()
    proc = start(str(HERE / "http_server.py"), str(port))
    assert proc.stderr is not None
    in_flight: asyncio.Task[object] | None = None
    outcome: object = None
    try:
        banner = await asyncio.to_thread(proc.stderr.readline)
        assert b"serving busy" in banner, banner
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(url, era=era, timeout=30) as client:  # type: ignore[arg-type]
            assert (await client.call_tool("quick")).text == "quick"
            in_flight = asyncio.create_task(client.call_tool("slow"))
            await asyncio.sleep(1.0)  # the call is running on the server
            assert not in_flight.done()
            proc.send_signal(signum)
            code = await asyncio.to_thread(exits_within, proc, STOP_BOUND)
            assert code == 0
            done, _ = await asyncio.wait([in_flight], timeout=10)
            assert done  # ended, not left hanging
            outcome = in_flight.exception()
        assert isinstance(outcome, McpError)
        if era == "auto":  # answered, not cut off: the stop cancelled it
            assert "The server is shutting down" in str(outcome)
        err = proc.stderr.read().decode()
        assert "Traceback" not in err
        assert "ERROR" not in err
    finally:
        if in_flight is not None and not in_flight.done():
            in_flight.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_on_a_call_cancels_it_at_the_stdio_server(tmp_path: Path) -> None:
    marker = tmp_path / "ended"
    proc = start(
        "-m", "mcpkit", "call", str(HERE / "busy_stdio.py"), "slow", BUSY_MARKER=str(marker)
    )
    assert proc.stderr is not None
    try:
        line = proc.stderr.readline()
        while line and b"working" not in line:
            line = proc.stderr.readline()
        assert b"working" in line  # the call runs on the server
        proc.send_signal(signal.SIGINT)
        assert exits_within(proc, STOP_BOUND) == 130
        err = proc.stderr.read().decode()
        assert "Traceback" not in err
        assert "interrupted" in err
        # The server was told (notifications/cancelled), not killed at the end of a wait.
        assert marker.read_text() == "cancelled"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
