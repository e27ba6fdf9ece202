"""Running unmodified servers on mcpkit: the import aliases of ``mcpkit.compat``,
``python -m mcpkit.compat`` and ``mcpkit run --compat`` on a file, a console script and a
module, and the CLI loading the server object of a file written for another SDK."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcpkit import Client
from mcpkit import import_aliases as _alias
from mcpkit.cli.targets import load_server, parse_server_ref
from mcpkit.client import StdioOptions

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
SRC = str(Path(__file__).resolve().parents[2] / "src")

SERVER = textwrap.dedent(
    """
    import sys
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("argv-echo")

    @mcp.tool()
    def argv() -> list[str]:
        return sys.argv[1:]

    def main() -> None:
        mcp.run()

    if __name__ == "__main__":
        main()
    """
)


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


async def call_argv(command: list[str]) -> list[str]:
    async with Client(command, connection=StdioOptions(env=env())) as client:
        result = await client.call_tool("argv")
    assert result.structured_content is not None
    return list(result.structured_content["result"])


@pytest.fixture
def aliased() -> object:
    _alias.install()
    yield
    _alias.uninstall()


def test_import_names_are_served_by_the_compat_layer(aliased: object) -> None:
    import mcp.server.stdio  # type: ignore[import-not-found]
    import mcp.types  # type: ignore[import-not-found]
    from fastmcp import FastMCP  # type: ignore[import-not-found]
    from mcp.server.fastmcp import FastMCP as OfficialFastMCP  # type: ignore[import-not-found]

    import mcpkit.compat.fastmcp
    import mcpkit.compat.mcp.server.stdio

    assert mcp.server.stdio is mcpkit.compat.mcp.server.stdio
    assert mcp.types.Tool is not None
    assert FastMCP is mcpkit.compat.fastmcp.FastMCP
    assert OfficialFastMCP.__module__ == "mcpkit.compat.mcp.server.fastmcp.server"
    with pytest.raises(ModuleNotFoundError, match="compat layer does not provide it"):
        import mcp.server.websocket  # type: ignore[import-not-found]


async def test_python_m_mcpkit_compat_runs_a_file_with_its_arguments(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(SERVER)
    argv = await call_argv([sys.executable, "-m", "mcpkit.compat", str(server), "--flag", "x"])
    assert argv == ["--flag", "x"]


async def test_mcpkit_run_compat_runs_a_console_script(tmp_path: Path) -> None:
    package = tmp_path / "argv_echo_server.py"
    package.write_text(SERVER)
    script = tmp_path / "bin" / "argv-echo-server"
    script.parent.mkdir()
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(tmp_path)!r})\n"
        "from argv_echo_server import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    path_env = f"{script.parent}{os.pathsep}{os.environ['PATH']}"
    command = [sys.executable, "-m", "mcpkit", "run", "--compat", "argv-echo-server", "-v"]
    async with Client(command, connection=StdioOptions(env={**env(), "PATH": path_env})) as client:
        result = await client.call_tool("argv")
    assert result.structured_content == {"result": ["-v"]}


async def test_mcpkit_run_compat_runs_a_module(tmp_path: Path) -> None:
    (tmp_path / "echo_module.py").write_text(SERVER)
    command = [sys.executable, "-m", "mcpkit", "run", "--compat", "echo_module", "a"]
    async with Client(
        command,
        connection=StdioOptions(env={**env(), "PYTHONPATH": f"{SRC}{os.pathsep}{tmp_path}"}),
    ) as c:
        result = await c.call_tool("argv")
    assert result.structured_content == {"result": ["a"]}


def test_mcpkit_run_compat_refuses_an_unknown_target() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpkit", "run", "--compat", "no-such-server-anywhere"],
        capture_output=True,
        text=True,
        env=env(),
        timeout=60,
    )
    assert proc.returncode == 2
    assert "neither a Python file, an installed console script nor a module" in proc.stderr
    assert "Traceback" not in proc.stderr


async def test_cli_loads_the_server_object_of_a_file_written_for_the_official_sdk() -> None:
    """``mcpkit inspect/call/dev/install file.py:mcp`` of an unmodified FastMCP file: the
    file's ``import mcp`` gets the compat layer, its object is served by mcpkit."""
    ref = parse_server_ref(f"{SERVERS / 'fastmcp_v1.py'}:mcp")
    assert ref is not None
    try:
        server = load_server(ref)
        async with Client(server) as client:
            result = await client.call_tool("add", {"a": 1, "b": 2})
    finally:
        _alias.uninstall()
    assert result.structured_content == {"result": 3}
