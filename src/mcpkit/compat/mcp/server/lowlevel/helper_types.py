"""``mcp.server.lowlevel.helper_types`` on mcpkit: what a 1.x ``read_resource`` handler
returns."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.context import ReadResourceContents

__all__ = ["ReadResourceContents"]
