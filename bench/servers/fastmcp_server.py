"""`fastmcp` (4.x): FastMCP with @tool.

Usage: python fastmcp_server.py stdio [--tools N]
       python fastmcp_server.py http --port P [--stateless] [--json-response] [--tools N]
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import FastMCP  # after the setting above
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

    mcp = FastMCP("bench", version="1.0")

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
        mcp.run("stdio", show_banner=False, log_level="WARNING")
    else:
        # WARNING keeps uvicorn's per-request access log off (it would be measured too).
        mcp.run(
            "http",
            show_banner=False,
            log_level="WARNING",
            host="127.0.0.1",
            port=args.port,
            path="/mcp",
            stateless_http=args.stateless,
            json_response=args.json_response,
        )


if __name__ == "__main__":
    main()
