"""``fastmcp.server`` on mcpkit: :class:`FastMCP`, ``fastmcp.server.context`` and
``fastmcp.server.dependencies``."""

from __future__ import annotations

from mcpkit.compat.fastmcp._server import FastMCP

__all__ = ["FastMCP"]
