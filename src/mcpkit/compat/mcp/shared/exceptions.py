"""``mcp.shared.exceptions`` on mcpkit."""

from __future__ import annotations

from mcpkit.errors import McpError

MCPError = McpError
"""The official SDK's name for a JSON-RPC error: mcpkit's :class:`~mcpkit.McpError`."""

__all__ = ["MCPError", "McpError"]
