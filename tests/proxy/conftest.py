"""Helpers of the proxy tests: ``mcpkit proxy`` started as a process, and the fixture
servers of one era (tests/proxy/fixture_server.py)."""

from __future__ import annotations

import contextlib
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from tests.interop.conftest import py_peer as py_peer  # the official Python SDK
from tests.interop.conftest import ts_peer as ts_peer  # Node 22 and its packages

FIXTURE = Path(__file__).resolve().parent / "fixture_server.py"
_URL = re.compile(r"on (http://127\.0\.0\.1:\d+/\S*) ")


def fixture_command(era: str, *extra: str) -> str:
    """The command line of the fixture server serving only ``era`` (legacy or modern)."""
    import shlex

    return shlex.join([sys.executable, str(FIXTURE), era, *extra])


@contextlib.contextmanager
def start_proxy(args: list[str], *, timeout: float = 60.0) -> Iterator[str]:
    """Run ``mcpkit proxy ARGS --port 0`` (an HTTP proxy); yield its URL once it serves."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpkit", "proxy", *args, "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    try:
        while True:
            try:
                line = lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"mcpkit proxy did not start: {''.join(seen)}") from None
            if line is None:
                raise AssertionError(f"mcpkit proxy exited: {''.join(seen)}")
            seen.append(line)
            found = _URL.search(line)
            if found:
                break
        yield found.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
