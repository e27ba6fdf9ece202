"""A client that pipelines the handshake (initialize, initialized and a request written at
once, without waiting for the answer) is served as if it had waited, as real clients expect."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import orjson

SERVER = r"""
import asyncio
from mcpkit.session import ServerSession
from mcpkit.transports import StdioServerTransport

async def tools_list(params, ctx):
    return {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}

async def main():
    session = ServerSession(
        StdioServerTransport(),
        server_info={"name": "pipelined", "version": "1"},
        capabilities=lambda version: {"tools": {}},  # chosen once the version is known
    )
    session.set_request_handler("tools/list", tools_list)
    await session.start()
    await session.wait_closed()

asyncio.run(main())
"""

HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
]


async def _exchange(script: Path, data: bytes, count: int) -> list[Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(data)
        await proc.stdin.drain()
        out = []
        for _ in range(count):
            line = await asyncio.wait_for(proc.stdout.readline(), 10)
            out.append(orjson.loads(line))
        return out
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 10)


async def test_pipelined_handshake_is_answered(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    lines = [orjson.dumps(m) + b"\n" for m in HANDSHAKE]
    replies = await _exchange(script, b"".join(lines), 3)
    by_id = {r["id"]: r for r in replies}
    assert "error" not in by_id[1], by_id[1]
    assert by_id[1]["result"]["protocolVersion"] == "2025-06-18"
    assert by_id[1]["result"]["capabilities"] == {"tools": {}}
    for rid in (2, 3):
        assert "error" not in by_id[rid], by_id[rid]
        assert by_id[rid]["result"]["tools"][0]["name"] == "echo"
    assert [r["id"] for r in replies] == [1, 2, 3]  # initialize is answered first
