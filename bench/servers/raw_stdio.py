"""Baseline: MCP over stdio with nothing but asyncio and orjson (no framework).

Usage: python raw_stdio.py [--tools N]

Newline-delimited JSON-RPC on stdin/stdout, one message handled at a time.
`handle` is shared with raw_http.py.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

import orjson
from payload import LARGE_TEXT, LARGE_TOOL, LARGE_URI

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
TOOLS: list[dict[str, Any]] = [
    {"name": "echo", "description": "Echo the text.", "inputSchema": SCHEMA},
    {"name": LARGE_TOOL, "description": "1 MiB of text.", "inputSchema": {"type": "object"}},
]
RESOURCES = [{"uri": LARGE_URI, "name": "large", "mimeType": "text/plain"}]
TOOL_NAMES = {"echo"}


def add_tools(n: int) -> None:
    for i in range(n):
        TOOLS.append({"name": f"tool_{i}", "description": "Echo the text.", "inputSchema": SCHEMA})
        TOOL_NAMES.add(f"tool_{i}")


def handle(msg: Any) -> dict[str, Any] | None:
    """One parsed message in, the response object out (None for notifications)."""
    if not isinstance(msg, dict) or "id" not in msg:
        return None
    method, rid = msg.get("method"), msg["id"]
    params = msg.get("params") or {}
    if method == "tools/call" and params.get("name") in TOOL_NAMES:
        text = (params.get("arguments") or {}).get("text")
        if isinstance(text, str):
            return {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {"content": [{"type": "text", "text": text}], "isError": False},
            }
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "bad text"}}
    if method == "tools/call" and params.get("name") == LARGE_TOOL:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {"content": [{"type": "text", "text": LARGE_TEXT}], "isError": False},
        }
    if method == "resources/read":
        if params.get("uri") != LARGE_URI:
            return {
                "jsonrpc": "2.0",
                "id": rid,
                "error": {
                    "code": -32002,
                    "message": "Not found",
                    "data": {"uri": params.get("uri")},
                },
            }
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {
                "contents": [{"uri": LARGE_URI, "mimeType": "text/plain", "text": LARGE_TEXT}]
            },
        }
    if method == "resources/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"resources": RESOURCES}}
    if method == "initialize":
        version = params.get("protocolVersion") or "2025-11-25"
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {
                "protocolVersion": version,
                "capabilities": {"tools": {}, "resources": {}},
                "serverInfo": {"name": "raw", "version": "1.0"},
            },
        }
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": rid, "result": {}}
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "unknown method"}}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=0)
    add_tools(parser.parse_args().tools)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = sys.stdout.buffer
    while line := await reader.readline():
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError:
            resp: dict[str, Any] | None = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32700, "message": "parse error"},
            }
        else:
            resp = handle(msg)
        if resp is not None:
            out.write(orjson.dumps(resp) + b"\n")
            out.flush()


if __name__ == "__main__":
    asyncio.run(main())
