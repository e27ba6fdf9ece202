"""An official-SDK server mounted in a Starlette application over Streamable HTTP, the
session manager run by the host's lifespan. Usage: ``python official_mount.py PORT``."""

import contextlib
import sys
from collections.abc import AsyncIterator

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

mcp = MCPServer("mounted", instructions="Mounted under /api.")


@mcp.tool()
async def echo(text: str, ctx: Context) -> str:
    """Echo the text."""
    await ctx.report_progress(1, 1, "echoing")
    await ctx.info(f"echo {text}")
    return text


@mcp.resource("mounted://{name}")
def hello(name: str) -> str:
    """A greeting."""
    return f"hello {name}"


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with mcp.session_manager.run():
        yield


app = Starlette(
    routes=[
        Route("/health", lambda request: PlainTextResponse("ok")),
        Mount("/api", app=mcp.streamable_http_app()),
    ],
    lifespan=lifespan,
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
