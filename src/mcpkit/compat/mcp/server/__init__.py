"""``mcp.server`` on mcpkit: the low-level :class:`Server` (with
:class:`NotificationOptions` and :class:`InitializationOptions`) and the high-level
:class:`MCPServer`."""

from __future__ import annotations

from mcpkit.compat.mcp.server.caching import CacheHint
from mcpkit.compat.mcp.server.context import ServerRequestContext
from mcpkit.compat.mcp.server.lowlevel import NotificationOptions, Server
from mcpkit.compat.mcp.server.mcpserver import MCPServer
from mcpkit.compat.mcp.server.models import InitializationOptions

__all__ = [
    "CacheHint",
    "InitializationOptions",
    "MCPServer",
    "NotificationOptions",
    "Server",
    "ServerRequestContext",
]
