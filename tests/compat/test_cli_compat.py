"""The CLI on a file written for another SDK, named ``file.py:mcp`` (its ``FastMCP`` or
``MCPServer`` object): ``mcpkit inspect`` lists what the official client sees on the SDK
itself, ``call`` calls it, ``run`` serves it, ``install`` writes an entry that starts it,
``dev`` serves its inspector."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpkit import Client
from mcpkit.client import StdioOptions
from tests.compat.driving import warmed
from tests.compat.test_unchanged import SERVERS, drive

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")

#: sdk peer -> a server file of that style, with the name of a tool taking a=, b=.
FILES = {
    "mcp1": SERVERS / "fastmcp_v1.py",
    "mcp2": SERVERS / "official_core.py",
    "fastmcp": SERVERS / "fastmcp_app.py",
}


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


def mcpkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        warmed([sys.executable, "-m", "mcpkit", *args], env()),
        capture_output=True,
        text=True,
        timeout=120,
        input="",
        env=env(),
    )


def shape(tool: dict[str, Any]) -> tuple[str, Any]:
    return tool["name"], tool["inputSchema"]


@pytest.mark.parametrize("sdk", sorted(FILES))
def test_inspect_lists_what_the_sdk_serves(sdk: str, tmp_path: Path) -> None:
    """``mcpkit inspect FILE:mcp --json``: the tools (names, input schemas), resources,
    templates and prompts the official client lists on the SDK the file was written for."""
    path = FILES[sdk]
    from tests.compat.test_unchanged import peer

    theirs = drive([{"op": "list"}], [str(peer(sdk)), str(path)], tmp_path, "theirs")["ops"][0]
    done = mcpkit("inspect", f"{path}:mcp", "--json", "--era", "legacy")
    assert done.returncode == 0, done.stderr
    ours = json.loads(done.stdout)
    assert [shape(t) for t in ours["tools"]] == [shape(t) for t in theirs["tools"]]
    assert [r["uri"] for r in ours["resources"]] == [r["uri"] for r in theirs["resources"]]
    assert [t["uriTemplate"] for t in ours["resourceTemplates"]] == [
        t["uriTemplate"] for t in theirs["templates"]
    ]
    assert [p["name"] for p in ours["prompts"]] == [p["name"] for p in theirs["prompts"]]


@pytest.mark.parametrize("sdk", sorted(FILES))
def test_call_runs_a_tool_of_the_file(sdk: str) -> None:
    done = mcpkit("call", f"{FILES[sdk]}:mcp", "add", "a=1", "b=2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["structuredContent"] == {"result": 3}


async def call_add(command: list[str], warm: bool = True) -> Any:
    """The ``add`` tool called through ``command`` (``warm``: started by a warmed
    interpreter, the same command line)."""
    if warm:
        command = warmed(command, env())
    async with Client(command, connection=StdioOptions(env=env())) as client:
        result = await client.call_tool("add", {"a": 2, "b": 5})
    return result.structured_content


@pytest.mark.parametrize("sdk", sorted(FILES))
async def test_run_serves_the_files_object_over_stdio(sdk: str) -> None:
    command = [sys.executable, "-m", "mcpkit", "run", "--transport", "stdio", f"{FILES[sdk]}:mcp"]
    assert await call_add(command) == {"result": 7}


async def test_install_writes_an_entry_that_starts_the_files_object(tmp_path: Path) -> None:
    config = tmp_path / "cursor.json"
    target = f"{FILES['fastmcp']}:mcp"
    done = mcpkit("install", "cursor", target, "--name", "fast", "--config", str(config))
    assert done.returncode == 0, done.stderr
    entry = json.loads(config.read_text())["mcpServers"]["fast"]
    assert entry["args"][-1] == target
    # The entry's own command line, as the client that reads it starts it.
    assert await call_add([entry["command"], *entry["args"]], warm=False) == {"result": 7}


async def test_dev_serves_the_inspector_for_the_files_object() -> None:
    dev = warmed(
        [sys.executable, "-m", "mcpkit", "dev", f"{FILES['mcp1']}:mcp", "--no-open"], env()
    )
    proc = await asyncio.create_subprocess_exec(
        *dev,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**env(), "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(60):
            line = (await proc.stdout.readline()).decode()
        assert line.startswith("mcpkit dev: inspector at http://127.0.0.1:"), line
        url = line.split(" at ", 1)[1].strip()
        base, token = url.split("/?token=")
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            for _ in range(100):  # the server starts in a subprocess of its own
                state = (await http.get("/api/state", params={"token": token})).json()
                if state.get("server"):
                    break
                await asyncio.sleep(0.2)
        assert state["server"]["name"] == "fastmcp-v1"
    finally:
        proc.send_signal(signal.SIGINT)
        async with asyncio.timeout(60):
            code = await proc.wait()
    assert code == 0
