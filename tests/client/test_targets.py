"""Turning targets into transports: command lines, argv lists, URLs, servers, config entries."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import Client, StdioOptions
from mcpkit.client.targets import config_entry, open_target
from mcpkit.transports import MemoryTransport, StdioClientTransport
from tests.client import app_server
from tests.conftest import ROOT, server_env


def test_command_line_and_argv() -> None:
    conn = open_target("uvx some-server --port '8 000'", env={"A": "1"}, cwd="/tmp")
    t = conn.transport
    assert isinstance(t, StdioClientTransport)
    assert (t.command, t.args) == ("uvx", ["some-server", "--port", "8 000"])
    assert t.env == {"A": "1"} and t.cwd == "/tmp" and conn.server_url is None
    t2 = open_target(["node", Path("server.js")]).transport
    assert isinstance(t2, StdioClientTransport) and t2.args == ["server.js"]
    with pytest.raises(TypeError):
        open_target(["node", 3])
    with pytest.raises(ValueError):
        open_target("   ")
    with pytest.raises(TypeError):
        open_target(42)


def test_python_file_runs_with_this_interpreter(tmp_path: Path) -> None:
    script = tmp_path / "srv.py"
    script.write_text("")
    t = open_target(str(script)).transport
    assert isinstance(t, StdioClientTransport)
    assert t.command == sys.executable and t.args == [str(script)]


async def test_url_server_and_transport_targets() -> None:
    conn = open_target("https://mcp.example.com/mcp", headers={"X-Key": "k"})
    assert conn.server_url == "https://mcp.example.com/mcp"
    assert type(conn.transport).__name__ == "StreamableHTTPClientTransport"
    conn = open_target(app_server.app)
    assert isinstance(conn.transport, MemoryTransport) and conn.server is app_server.app
    a, _ = MemoryTransport.pair()
    assert open_target(a).transport is a


CONFIG = {
    "mcpServers": {
        "local": {"command": "python", "args": ["-m", "x"], "env": {"K": "v"}, "cwd": "/srv"},
        "remote": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer t"}},
        "typed": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
        "windsurf": {"serverUrl": "https://w.example/mcp", "headers": {"X-Key": "k"}},
        "broken": {"args": []},
        "badurl": {"type": "sse", "url": "ftp://x"},
    }
}


def test_config_entries(tmp_path: Path) -> None:
    assert config_entry(CONFIG, "local")["command"] == "python"
    assert config_entry(CONFIG["mcpServers"], "remote")["url"].startswith("https://")
    assert config_entry({"servers": CONFIG["mcpServers"]}, "typed")["type"] == "http"
    assert config_entry(json.dumps(CONFIG), "local")["args"] == ["-m", "x"]
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(CONFIG))
    assert config_entry(path, "remote")["headers"] == {"Authorization": "Bearer t"}
    assert config_entry(str(path), "local")["cwd"] == "/srv"
    with pytest.raises(KeyError, match="known: badurl, broken, local, remote, typed, windsurf"):
        config_entry(CONFIG, "nope")

    t = open_target(config_entry(CONFIG, "local"), env={"EXTRA": "1"}).transport
    assert isinstance(t, StdioClientTransport)
    assert (t.command, t.args, t.cwd) == ("python", ["-m", "x"], "/srv")
    assert t.env == {"K": "v", "EXTRA": "1"}
    conn = open_target(config_entry(CONFIG, "remote"))
    assert conn.server_url == "https://h.example/mcp"
    conn = open_target(config_entry(CONFIG, "windsurf"))  # serverUrl works as url does
    assert conn.server_url == "https://w.example/mcp"
    assert type(conn.transport).__name__ == "StreamableHTTPClientTransport"
    with pytest.raises(ValueError, match="serverUrl"):
        open_target({"serverUrl": "ftp://x"})
    with pytest.raises(ValueError, match="command"):
        open_target(config_entry(CONFIG, "broken"))
    with pytest.raises(ValueError, match="url"):
        open_target(config_entry(CONFIG, "badurl"))


async def test_from_config_and_command_line_connect(wire: Any) -> None:
    env = server_env()
    cfg = {
        "mcpServers": {
            "app": {
                "command": sys.executable,
                "args": ["-m", "tests.client.app_server"],
                "env": {"PYTHONPATH": env["PYTHONPATH"]},
                "cwd": str(ROOT),
            }
        }
    }
    async with Client.from_config(cfg, "app", tracer=wire()) as c:
        assert c.server_info.name == "client-test-app"
    line = shlex.join([sys.executable, "-m", "tests.client.app_server"])
    async with Client(line, connection=StdioOptions(env=env, cwd=str(ROOT)), tracer=wire()) as c:
        assert (await c.call_tool("add", {"a": 1, "b": 1})).structured_content == {"result": 2}
    assert not c.connected
    assert "not connected" in repr(c)


async def test_fetch_icon_uses_the_server_origin(wire: Any) -> None:
    from mcpkit.client.icons import IconError

    async with Client(app_server.app, tracer=wire()) as c:
        assert c.server_url is None
        with pytest.raises(IconError, match="scheme"):
            await c.fetch_icon("http://example.com/x.png")
