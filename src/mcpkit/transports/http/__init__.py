"""Streamable HTTP (and the legacy 2024-11-05 HTTP+SSE) transport: server and client.

Needs the ``http`` extra (httpx, uvicorn, starlette)::

    from mcpkit.transports.http import StreamableHTTPApp, serve, StreamableHTTPClientTransport

    asgi = StreamableHTTPApp(app.session, path="/mcp")     # a plain ASGI app
    await serve(asgi, host="127.0.0.1", port=8000)         # uvicorn
"""

from mcpkit.transports.http.client import (
    HTTP_ERROR,
    HttpStatusError,
    StreamableHTTPClientTransport,
)
from mcpkit.transports.http.event_store import EventStore, MemoryEventStore, SQLiteEventStore
from mcpkit.transports.http.legacy import LegacySessionTransport, LegacySSEClient, LegacySSEServer
from mcpkit.transports.http.serve import run, running, serve
from mcpkit.transports.http.server import SESSION_NOT_FOUND, SessionFactory, StreamableHTTPApp
from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection

__all__ = [
    "HTTP_ERROR",
    "SESSION_NOT_FOUND",
    "EventStore",
    "HttpSessionTransport",
    "HttpStatusError",
    "LegacySSEClient",
    "LegacySSEServer",
    "LegacySessionTransport",
    "MemoryEventStore",
    "SQLiteEventStore",
    "SSEConnection",
    "SessionFactory",
    "StreamableHTTPApp",
    "StreamableHTTPClientTransport",
    "run",
    "running",
    "serve",
]
