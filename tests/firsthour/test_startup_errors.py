"""A server that cannot start over HTTP says why in one line and a hint, exit code 1, as
over stdio: a failing lifespan, a proxy whose upstream is down."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.firsthour.conftest import HERE, env_with
from tests.firsthour.test_stop import free_port

FAILING = str(HERE / "failing_lifespan.py")


def mcpkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpkit", *args],
        capture_output=True,
        text=True,
        input="",
        env=env_with(),
        timeout=60,
    )


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_failing_lifespan_is_one_line_and_a_hint(transport: str) -> None:
    extra = ["--port", str(free_port())] if transport == "http" else []
    done = mcpkit("run", FAILING, "-t", transport, *extra)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "error: RuntimeError: database unreachable",
        "hint: run again with --debug for the traceback",
    ]


def test_a_proxy_served_over_http_with_its_upstream_down_says_so() -> None:
    down = f"http://127.0.0.1:{free_port()}/mcp"  # nothing listens there
    done = mcpkit("proxy", down, "-t", "http", "--port", str(free_port()))
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith(f"error: connection failed: HTTP request to {down} failed")
    assert lines[1].startswith("hint: check the URL")
