"""mcpkit: the Model Context Protocol for Python, server and client.

Names are imported lazily, so ``import mcpkit`` stays cheap and a stdio server starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit._lazy import load_export

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "McpError": "mcpkit.errors",
    "ConnectionClosed": "mcpkit.errors",
    "ProcessExited": "mcpkit.errors",
    "RequestTimeout": "mcpkit.errors",
    "TransportError": "mcpkit.errors",
    "Client": "mcpkit.client",
    "ClientSession": "mcpkit.session",
    "ServerSession": "mcpkit.session",
    "RequestContext": "mcpkit.session",
    "Session": "mcpkit.session",
    "ProtocolVersion": "mcpkit.versions",
    "Server": "mcpkit.server",
    "Context": "mcpkit.server",
    "Image": "mcpkit.server",
    "Audio": "mcpkit.server",
}

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.errors import (
        ConnectionClosed,
        McpError,
        ProcessExited,
        RequestTimeout,
        TransportError,
    )
    from mcpkit.server import Audio, Context, Image, Server
    from mcpkit.session import ClientSession, RequestContext, ServerSession, Session
    from mcpkit.versions import ProtocolVersion

__all__ = [
    "Audio",
    "Client",
    "ClientSession",
    "ConnectionClosed",
    "Context",
    "Image",
    "McpError",
    "ProcessExited",
    "ProtocolVersion",
    "RequestContext",
    "RequestTimeout",
    "Server",
    "ServerSession",
    "Session",
    "TransportError",
    "__version__",
]


def __getattr__(name: str) -> Any:
    return load_export(__name__, name, _EXPORTS, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
