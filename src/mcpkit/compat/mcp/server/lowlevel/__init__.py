"""``mcp.server.lowlevel`` on mcpkit: the low-level :class:`Server` (1.x decorators and 2.x
``on_*`` handlers) and :class:`NotificationOptions`."""

from __future__ import annotations

from mcpkit.compat.mcp.server.lowlevel.server import NotificationOptions, Server

__all__ = ["NotificationOptions", "Server"]
