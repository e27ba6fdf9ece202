"""Small things a new user runs into: contradictory options refused, what is missing named."""

from __future__ import annotations

import select
import subprocess
import sys
from pathlib import Path

import pytest

from mcpkit import Client, Server
from mcpkit.client import ProtocolOptions
from mcpkit.errors import McpError
from tests.firsthour.conftest import HERE, env_with
from tests.firsthour.test_stop import free_port


def test_a_version_that_contradicts_the_era_is_refused() -> None:
    app = Server("x")
    with pytest.raises(ValueError, match="contradicts era='legacy'"):
        Client(app, protocol=ProtocolOptions(version="2026-07-28"), era="legacy")
    with pytest.raises(ValueError, match="contradicts era='2026-07-28'"):
        Client(app, protocol=ProtocolOptions(version="2025-11-25"), era="2026-07-28")
    Client(app, protocol=ProtocolOptions(version="2025-11-25"), era="legacy")  # alike: fine
    Client(app, protocol=ProtocolOptions(version="2026-07-28"), era="2026-07-28")
    Client(app, protocol=ProtocolOptions(version="2025-06-18"))  # auto follows the version


@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_a_prompt_from_a_server_without_prompts_says_so(era: str) -> None:
    app = Server("tools-only")
    app.add_tool(lambda: "x", name="noop")
    async with Client(app, era=era) as client:  # type: ignore[arg-type]
        with pytest.raises(McpError, match="offers no prompts") as caught:
            await client.get_prompt("greeting")
    assert caught.value.code == -32601


def test_run_with_a_port_serves_http(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpkit", "run", str(HERE / "weather.py"), "--port", str(port)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env_with(),
    )
    assert proc.stderr is not None
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 30)
        assert ready, "nothing said in 30 s (serving stdio?)"
        banner = proc.stderr.readline().decode()
        assert f"on http://127.0.0.1:{port}/mcp (Streamable HTTP" in banner, banner
    finally:
        proc.terminate()
        proc.wait(10)


STDIO_PORT = ("-t", "stdio", "--port", "8123")


def test_run_over_stdio_says_the_port_goes_unused() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit", "run", str(HERE / "weather.py"), *STDIO_PORT],
        input=b"",
        capture_output=True,
        env=env_with(),
        timeout=60,
    )
    assert done.returncode == 0
    assert b"--port not used: serving over stdio" in done.stderr


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("127.0.0.1:8000/mcp", "did you mean the URL http://127.0.0.1:8000/mcp?"),
        ("localhost:8000", "did you mean the URL http://localhost:8000/mcp?"),
        ("weather", "did you mean the file weather.py?"),
        ("ftp://example.org/mcp", "is a ftp:// URL; mcpkit reaches servers over http(s)"),
        ("no-such-server-command", "no command 'no-such-server-command' on PATH"),
    ],
)
def test_a_target_that_cannot_be_a_command_names_the_likely_intent(
    target: str, said: str, tmp_path: Path
) -> None:
    (tmp_path / "weather.py").write_text((HERE / "weather.py").read_text())
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit", "inspect", target],
        capture_output=True,
        text=True,
        input="",
        cwd=tmp_path,
        env=env_with(),
        timeout=60,
    )
    assert done.returncode == 1
    first = done.stderr.splitlines()[0]
    assert said in first, done.stderr
    assert "No such file or directory" not in done.stderr
