"""``mcp.server`` on mcpkit: the high-level :class:`MCPServer`."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver import MCPServer

__all__ = ["MCPServer"]
