"""fastmcp serves no ``subscriptions/listen`` on 2026-07-28 (its ``server/discover``
declares ``listChanged`` and ``subscribe`` false): the same fastmcp server file, run by
fastmcp 4.x and unchanged on mcpkit over stdio, answers each ``subscriptions/listen`` as
fastmcp's SDK does: params its model refuses (no ``notifications``, a filter of the wrong
type) -32602 ``Invalid request parameters`` (data ``""``), any other -32601 ``Method not
found`` naming the method; the connection serves on (``tools/list`` after them)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_declared_and_prompt_errors import MODERN_META, exchange
from tests.compat.test_unchanged import peer

SERVER = """\
from fastmcp import FastMCP

mcp = FastMCP("Quiet")


@mcp.tool()
def hello() -> str:
    return "ok"


@mcp.resource("note://first")
def first() -> str:
    return "first"


if __name__ == "__main__":
    mcp.run(show_banner=False)
"""

META = {k: v for k, v in MODERN_META.items() if k != "io.modelcontextprotocol/logLevel"}

PARAMS: list[dict[str, Any]] = [
    {"notifications": {"toolsListChanged": True}},
    {"notifications": {"resourceSubscriptions": ["note://first"], "promptsListChanged": True}},
    {"notifications": {}},
    {"notifications": {"toolsListChanged": "not a flag"}},
    {"notifications": "everything"},
    {},
]


def _messages() -> list[dict[str, Any]]:
    M = META
    listens = [
        {"jsonrpc": "2.0", "id": i, "method": "subscriptions/listen", "params": {**p, "_meta": M}}
        for i, p in enumerate(PARAMS, 1)
    ]
    last = {"jsonrpc": "2.0", "id": 99, "method": "tools/list", "params": {"_meta": META}}
    return [*listens, last]


def test_listen_answered_as_fastmcp(tmp_path: Path) -> None:
    server = tmp_path / "server.py"
    server.write_text(SERVER)
    frames = {
        side: exchange(command, _messages())
        for side, command in {
            "theirs": [str(peer("fastmcp")), str(server)],
            "ours": [sys.executable, "-m", "mcpkit.compat", str(server)],
        }.items()
    }
    answers = {
        side: [f.get("error") for f in got if f.get("id") != 99] for side, got in frames.items()
    }
    assert answers["ours"] == answers["theirs"]
    not_found = {"code": -32601, "message": "Method not found", "data": "subscriptions/listen"}
    invalid = {"code": -32602, "message": "Invalid request parameters", "data": ""}
    assert answers["ours"] == [not_found] * 3 + [invalid] * 3
    tools = [f["result"]["tools"] for f in frames["ours"] if f.get("id") == 99]
    assert [t["name"] for t in tools[0]] == ["hello"]


#: A server of each 2.x-era flavour and of 1.x, with its peer.
FLAVOURS = {
    "fastmcp": ("fastmcp", SERVER),
    "mcp2": (
        "mcp2",
        SERVER.replace("from fastmcp import FastMCP", "from mcp.server.mcpserver import MCPServer")
        .replace('FastMCP("Quiet")', 'MCPServer("Quiet")')
        .replace("show_banner=False", ""),
    ),
    "mcp1": (
        "mcp1",
        SERVER.replace("from fastmcp import", "from mcp.server.fastmcp import").replace(
            "show_banner=False", ""
        ),
    ),
}


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_modern_methods_on_the_handshake_era_as_the_sdk(flavour: str, tmp_path: Path) -> None:
    """On the handshake era ``subscriptions/listen`` and ``server/discover`` are methods
    the SDK does not serve, answered as any other: 2.x and fastmcp -32601 ``Method not
    found`` naming the method, 1.x -32602 ``Invalid request parameters`` (a request it
    cannot parse), where mcpkit's own server names the revision that has them."""
    name, source = FLAVOURS[flavour]
    server = tmp_path / "server.py"
    server.write_text(source)
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    }
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": PARAMS[0]},
        {"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {}},
        {"jsonrpc": "2.0", "id": 4, "method": "nothing/here", "params": {}},
    ]
    answers = {
        side: [f.get("error") for f in exchange(command, messages)[1:]]
        for side, command in {
            "theirs": [str(peer(name)), str(server)],
            "ours": [sys.executable, "-m", "mcpkit.compat", str(server)],
        }.items()
    }
    assert answers["ours"] == answers["theirs"]
    if flavour == "mcp1":
        assert (
            answers["ours"]
            == [{"code": -32602, "message": "Invalid request parameters", "data": ""}] * 3
        )
    else:
        assert [a["data"] for a in answers["ours"]] == [
            "subscriptions/listen",
            "server/discover",
            "nothing/here",
        ]
