"""Resources and a template registered with ``meta=``: text, bytes, JSON. The first argument
picks the SDK: ``mcp1`` (1.x ``FastMCP``) or ``mcp2`` (2.x ``MCPServer``)."""

from __future__ import annotations

import sys

if (sys.argv[1] if len(sys.argv) > 1 else "mcp2") == "mcp1":
    from mcp.server.fastmcp import FastMCP as Server
else:
    from mcp.server.mcpserver import MCPServer as Server

mcp = Server("resource meta")


@mcp.resource("memo://text", meta={"k": 1})
def text() -> str:
    """Text."""
    return "A"


@mcp.resource("memo://bytes", mime_type="application/octet-stream", meta={"k": 2})
def data() -> bytes:
    """Bytes."""
    return b"\x00\x01"


@mcp.resource("memo://json", meta={"k": 3})
def as_json() -> dict[str, int]:
    """JSON."""
    return {"a": 1}


@mcp.resource("memo://item/{name}", meta={"k": 4})
def item(name: str) -> str:
    """A template."""
    return f"item {name}"


if __name__ == "__main__":
    mcp.run()
