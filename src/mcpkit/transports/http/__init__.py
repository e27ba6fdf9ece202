"""Streamable HTTP (and the 2024-11-05 HTTP+SSE) transport: server and client.

Needs the ``http`` extra (httpx, uvicorn, starlette)::

    from mcpkit.transports.http import HttpServerOptions, StreamableHTTPApp, serve

    asgi = StreamableHTTPApp(app.session, "/mcp", HttpServerOptions(stateless=True))
    await serve(asgi, host="127.0.0.1", port=8000)         # uvicorn

:class:`StreamableHTTPClientTransport` is the client side.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from mcpkit._lazy import load_export
from mcpkit.transports.http.extra import missing_extra

# ``serve`` is also the name of a submodule: bind the function eagerly (the module is light).
from mcpkit.transports.http.serve import run, running, serve

# Other names load on first use: a server does not pay for the client (httpx) and vice versa.
_EXPORTS = {
    "HTTP_ERROR": "client",
    "HttpStatusError": "client",
    "StreamableHTTPClientTransport": "client",
    "EventStore": "event_store",
    "MemoryEventStore": "event_store",
    "SQLiteEventStore": "event_store",
    "HttpSseClient": "sse_2024_client",
    "HttpSseServer": "sse_2024_server",
    "HttpSseTransport": "sse_2024_server",
    "HttpServerOptions": "options",
    "ServedApp": "served",
    "SESSION_NOT_FOUND": "server",
    "SessionFactory": "server",
    "StreamableHTTPApp": "server",
    "HttpSessionTransport": "session_transport",
    "SSEConnection": "session_transport",
}

if TYPE_CHECKING:
    from mcpkit.transports.http.client import (
        HTTP_ERROR,
        HttpStatusError,
        StreamableHTTPClientTransport,
    )
    from mcpkit.transports.http.event_store import (
        EventStore,
        MemoryEventStore,
        SQLiteEventStore,
    )
    from mcpkit.transports.http.options import HttpServerOptions
    from mcpkit.transports.http.served import ServedApp
    from mcpkit.transports.http.server import (
        SESSION_NOT_FOUND,
        SessionFactory,
        StreamableHTTPApp,
    )
    from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection
    from mcpkit.transports.http.sse_2024_client import HttpSseClient
    from mcpkit.transports.http.sse_2024_server import HttpSseServer, HttpSseTransport

__all__ = [
    "HTTP_ERROR",
    "SESSION_NOT_FOUND",
    "EventStore",
    "HttpServerOptions",
    "HttpSessionTransport",
    "HttpSseClient",
    "HttpSseServer",
    "HttpSseTransport",
    "HttpStatusError",
    "MemoryEventStore",
    "SQLiteEventStore",
    "SSEConnection",
    "ServedApp",
    "SessionFactory",
    "StreamableHTTPApp",
    "StreamableHTTPClientTransport",
    "run",
    "running",
    "serve",
]


#: Former names of the 2024-11-05 HTTP+SSE classes ("legacy" names the handshake era).
_RENAMED = {
    "LegacySSEClient": "HttpSseClient",
    "LegacySSEServer": "HttpSseServer",
    "LegacySessionTransport": "HttpSseTransport",
}


def __getattr__(name: str) -> Any:
    new = _RENAMED.get(name)
    if new is not None:
        warnings.warn(
            f"mcpkit.transports.http.{name} is deprecated: use {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return __getattr__(new)
    try:
        return load_export(__name__, name, _EXPORTS, globals(), "mcpkit.transports.http.")
    except ModuleNotFoundError as exc:
        error = missing_extra(exc, f"mcpkit.transports.http.{name}")
        if error is None:
            raise
        raise error from None


def __dir__() -> list[str]:
    return sorted(__all__)
