"""The official SDK's ``mcp`` package on mcpkit, for what a high-level server uses.

Rewrite ``mcp.`` to ``mcpkit.compat.mcp.`` in a server's imports and it runs on mcpkit::

    from mcpkit.compat.mcp.server.mcpserver import Context, MCPServer
    from mcpkit.compat.mcp.types import CallToolResult, TextContent

See docs/migration.md for what is covered and how to move on to the native API.
"""

from __future__ import annotations

from mcpkit.compat.mcp import types as types
from mcpkit.errors import McpError

MCPError = McpError
"""The official SDK's name for a JSON-RPC error: mcpkit's :class:`~mcpkit.McpError`."""

__all__ = ["MCPError", "McpError", "types"]
