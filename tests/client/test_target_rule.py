"""One target rule for ``Client`` and the CLI: ``file.py`` runs with this interpreter over
stdio, ``file.py:app`` / ``module:app`` load that Server in memory, a file that defines a
Server it does not run gets a hint naming the ``file.py:app`` form."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client
from mcpkit.client import StdioOptions, TargetError
from mcpkit.client.targets import open_target
from mcpkit.transports import MemoryTransport, StdioClientTransport
from tests.cli.conftest import mcpkit
from tests.conftest import server_env

SERVER = """\
from mcpkit import Server

app = Server("weather", version="1.0.0")


@app.tool()
def forecast(city: str) -> str:
    return f"sunny in {city}"
"""
RUNS = SERVER + '\n\nif __name__ == "__main__":\n    app.run()\n'


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "weather.py").write_text(RUNS)
    (tmp_path / "norun.py").write_text(SERVER)
    (tmp_path / "plain.py").write_text("print('hello', file=__import__('sys').stderr)\n")
    return tmp_path


async def _forecast(c: Client) -> str:
    return (await c.call_tool("forecast", {"city": "Oslo"})).text


async def test_a_python_file_runs_with_this_interpreter(files: Path, wire: Any) -> None:
    conn = open_target(str(files / "weather.py"))
    assert isinstance(conn.transport, StdioClientTransport)
    assert (conn.transport.command, conn.transport.args) == (
        sys.executable,
        [str(files / "weather.py")],
    )
    async with Client(
        "weather.py", connection=StdioOptions(cwd=files, env=server_env()), tracer=wire()
    ) as c:
        assert await _forecast(c) == "sunny in Oslo"


def test_python_on_a_command_line_is_this_interpreter() -> None:
    t = open_target("python weather.py --flag").transport
    assert isinstance(t, StdioClientTransport)
    assert (t.command, t.args) == (sys.executable, ["weather.py", "--flag"])
    t = open_target("python3 -m srv").transport
    assert isinstance(t, StdioClientTransport) and t.command == sys.executable
    t = open_target("/opt/py/bin/python srv.py").transport  # a path is used as given
    assert isinstance(t, StdioClientTransport) and t.command == "/opt/py/bin/python"


async def test_file_and_module_with_an_object_load_in_memory(
    files: Path, wire: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = f"{files / 'norun.py'}:app"
    conn = open_target(target)
    assert isinstance(conn.transport, MemoryTransport) and conn.server is not None
    async with Client(target, tracer=wire()) as c:
        assert c.server_info.name == "weather"
        assert await _forecast(c) == "sunny in Oslo"
    monkeypatch.syspath_prepend(str(files))
    async with Client("norun:app", tracer=wire()) as c:
        assert await _forecast(c) == "sunny in Oslo"


async def test_a_server_file_that_does_not_run_gets_a_hint(files: Path) -> None:
    with pytest.raises(TargetError) as err:
        async with Client("norun.py", connection=StdioOptions(cwd=files, env=server_env())):
            pass
    assert err.value.message == "norun.py defines the Server 'app' but does not run it"
    assert err.value.hint is not None and "'norun.py:app'" in err.value.hint
    assert "app.run()" in err.value.hint


async def test_a_file_without_a_server_or_missing_is_a_clear_error(files: Path) -> None:
    with pytest.raises(TargetError, match=r"no mcpkit Server found in plain\.py"):
        async with Client("plain.py", connection=StdioOptions(cwd=files, env=server_env())):
            pass
    with pytest.raises(TargetError, match=r"no such file: missing\.py"):
        open_target("missing.py", cwd=files)
    with pytest.raises(TargetError, match="no attribute 'nope'"):
        open_target(f"{files / 'norun.py'}:nope")


def test_cli_runs_a_file_and_hints_at_the_object_form(files: Path) -> None:
    done = mcpkit("call", "weather.py", "forecast", "city=Oslo", cwd=files)
    assert done.returncode == 0, done.stderr
    assert "sunny in Oslo" in done.stdout
    done = mcpkit("call", "norun.py", "forecast", "city=Oslo", cwd=files)
    assert done.returncode == 1
    assert done.stderr.startswith("error: norun.py defines the Server 'app' but does not run it")
    assert "hint: connect to it in memory with the target 'norun.py:app'" in done.stderr
    done = mcpkit("call", "norun.py:app", "forecast", "city=Oslo", cwd=files)
    assert done.returncode == 0, done.stderr


def test_cli_imports_a_module_from_the_current_folder(files: Path) -> None:
    done = mcpkit("inspect", "norun:app", "--json", cwd=files)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["serverInfo"]["name"] == "weather"


async def test_cli_run_serves_a_module_from_the_current_folder(files: Path, wire: Any) -> None:
    argv = [sys.executable, "-m", "mcpkit", "run", "norun:app"]
    env = server_env()
    async with Client(argv, connection=StdioOptions(cwd=files, env=env), tracer=wire()) as c:
        assert await _forecast(c) == "sunny in Oslo"
