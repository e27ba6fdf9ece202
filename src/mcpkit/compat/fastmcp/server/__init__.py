"""``fastmcp.server`` on mcpkit: :class:`FastMCP`, :func:`create_proxy`,
``fastmcp.server.context`` and ``fastmcp.server.dependencies``."""

from __future__ import annotations

from mcpkit.compat.fastmcp._proxy import create_proxy
from mcpkit.compat.fastmcp._server import FastMCP

__all__ = ["FastMCP", "create_proxy"]
