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
