"""One tool served by ``run(transport="sse")``: ``sse_run.py v2|v1 PORT`` with 2.x's
``MCPServer`` or 1.x's ``FastMCP``."""

import sys

GENERATION, PORT = sys.argv[1], int(sys.argv[2])


def echo(text: str) -> str:
    """Say it back."""
    return text


if GENERATION == "v1":
    from mcp.server.fastmcp import FastMCP

    fast = FastMCP("sse-run", port=PORT)
    fast.tool()(echo)
    fast.run(transport="sse")
else:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sse-run")
    server.tool()(echo)
    server.run(transport="sse", port=PORT)
