"""One tool served over Streamable HTTP in the flavour given first, on the port given last:
``mcpserver`` (2.x's ``MCPServer.run``), ``fastmcp1`` (1.x's ``FastMCP.run``), ``lowlevel2``
(2.x's low-level ``Server(on_list_tools=...).streamable_http_app()``), ``lowlevel1`` (1.x's
decorated low-level server in a ``StreamableHTTPSessionManager``) or ``fastmcp`` (fastmcp's
``FastMCP.run("http")``), each served by uvicorn or the server's own ``run``."""

import contextlib
import sys
from collections.abc import AsyncIterator

FLAVOUR, PORT = sys.argv[1], int(sys.argv[-1])


def echo(text: str) -> str:
    """Say it back."""
    return text


if FLAVOUR == "mcpserver":
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("gone")
    server.tool()(echo)
    server.run(transport="streamable-http", port=PORT)
elif FLAVOUR == "fastmcp1":
    from mcp.server.fastmcp import FastMCP

    fast = FastMCP("gone", port=PORT)
    fast.tool()(echo)
    fast.run(transport="streamable-http")
elif FLAVOUR == "fastmcp":
    from fastmcp import FastMCP as FastMCP4

    fast4 = FastMCP4("gone")
    fast4.tool(echo)
    fast4.run(transport="http", port=PORT, show_banner=False)
elif FLAVOUR == "lowlevel2":
    import uvicorn
    from mcp.server import Server
    from mcp.types import ListToolsResult, Tool

    async def list_tools(ctx, params):  # type: ignore[no-untyped-def]
        return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])

    low = Server("gone", on_list_tools=list_tools)
    uvicorn.run(low.streamable_http_app(), host="127.0.0.1", port=PORT, log_level="warning")
else:
    import mcp.types as types
    import uvicorn
    from mcp.server.lowlevel import Server as Server1
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    low1 = Server1("gone")

    @low1.list_tools()
    async def tools() -> list[types.Tool]:
        return [types.Tool(name="echo", inputSchema={"type": "object"})]

    manager = StreamableHTTPSessionManager(app=low1)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    app = Starlette(routes=[Mount("/mcp", app=manager.handle_request)], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
