"""A 1.x low-level server with a lifespan, served over HTTP+SSE as published servers serve
it (``SseServerTransport`` with ``server.run(...)`` in the GET endpoint, uvicorn on the port
given last): each entry of the lifespan is numbered, and the ``which`` tool says which
entry its request sees and how many are open."""

import contextlib
import sys
from collections.abc import AsyncIterator

import mcp.types as types
import uvicorn
from mcp.server import Server
from mcp.server.sse import SseServerTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

entered = 0
open_now = 0


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[dict[str, int]]:
    global entered, open_now
    entered += 1
    open_now += 1
    try:
        yield {"entry": entered}
    finally:
        open_now -= 1


server = Server("sse-lifespan", lifespan=lifespan)


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [types.Tool(name="which", inputSchema={"type": "object"})]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    state = server.request_context.lifespan_context
    return [types.TextContent(type="text", text=f"entry {state['entry']} of {open_now} open")]


sse = SseServerTransport("/messages/")


async def handle_sse(request: Request) -> Response:
    async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
        await server.run(streams[0], streams[1], server.create_initialization_options())
    return Response()


app = Starlette(
    routes=[
        Route("/sse", endpoint=handle_sse, methods=["GET"]),
        Mount("/messages/", app=sse.handle_post_message),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[-1]), log_level="warning")
