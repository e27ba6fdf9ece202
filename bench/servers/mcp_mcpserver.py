"""The official `mcp` SDK (2.x), high-level `MCPServer` (formerly FastMCP) with @tool().

Usage: python mcp_mcpserver.py stdio [--tools N]
       python mcp_mcpserver.py http --port P [--stateless] [--json-response] [--tools N]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from payload import LARGE_TEXT, LARGE_TOOL, LARGE_URI


def make_echo() -> Callable[[str], str]:
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return echo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--stateless", action="store_true")
    parser.add_argument("--json-response", action="store_true")
    parser.add_argument("--tools", type=int, default=0)
    args = parser.parse_args()

    # WARNING keeps uvicorn's per-request access log off (it would be measured too).
    mcp: MCPServer[Any] = MCPServer("bench", version="1.0", log_level="WARNING")

    @mcp.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    @mcp.tool(name=LARGE_TOOL)
    def large() -> str:
        """1 MiB of text."""
        return LARGE_TEXT

    @mcp.resource(LARGE_URI, name="large", mime_type="text/plain")
    def large_resource() -> str:
        """1 MiB of text."""
        return LARGE_TEXT

    for i in range(args.tools):
        mcp.tool(name=f"tool_{i}")(make_echo())

    if args.transport == "stdio":
        mcp.run()
    else:
        mcp.run(
            "streamable-http",
            host="127.0.0.1",
            port=args.port,
            stateless_http=args.stateless,
            json_response=args.json_response,
        )


if __name__ == "__main__":
    main()
