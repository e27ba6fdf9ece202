"""``lowlevel_v1_sse.py`` with DNS-rebinding protection on the transport
(``SseServerTransport("/messages/", security_settings=TransportSecuritySettings(...))``):
only ``127.0.0.1`` on any port as ``Host`` and its ``http`` origin as ``Origin``. Runs
unchanged on ``mcp`` 1.x and on mcpkit (``python -m mcpkit.compat``)."""

import sys
from pathlib import Path

import uvicorn
from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lowlevel_v1 import server

sse = SseServerTransport(
    "/messages/",
    security_settings=TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*"],
        allowed_origins=["http://127.0.0.1:*"],
    ),
)


async def handle_sse(request: Request) -> Response:
    try:
        async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
            await server.run(streams[0], streams[1], server.create_initialization_options())
    except ValueError:
        pass  # refused: the transport answered already
    return Response()


app = Starlette(
    routes=[
        Route("/sse", endpoint=handle_sse, methods=["GET"]),
        Mount("/messages/", app=sse.handle_post_message),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[-1]), log_level="warning")
