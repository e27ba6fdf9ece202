"""The 1.x low-level server of ``lowlevel_v1.py`` served over HTTP+SSE as published servers
wire it (``--transport sse``): ``SseServerTransport("/messages/")``, ``connect_sse`` in the
GET endpoint with ``server.run(...)`` inside, ``handle_post_message`` mounted at the
messages path of a Starlette app under ``/api``, run by uvicorn on the port given last. Runs
unchanged on ``mcp`` 1.x and on mcpkit (``python -m mcpkit.compat``)."""

import sys
from pathlib import Path

import uvicorn
from mcp.server import NotificationOptions
from mcp.server.sse import SseServerTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lowlevel_v1 import server

sse = SseServerTransport("/messages/")


async def handle_sse(request: Request) -> Response:
    async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
        await server.run(
            streams[0],
            streams[1],
            server.create_initialization_options(NotificationOptions(resources_changed=True)),
        )
    return Response()


api = Starlette(
    routes=[
        Route("/sse", endpoint=handle_sse, methods=["GET"]),
        Mount("/messages/", app=sse.handle_post_message),
    ]
)
app = Starlette(routes=[Mount("/api", app=api)])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[-1]), log_level="warning")
