"""``mcp.server.fastmcp.exceptions`` on mcpkit."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.exceptions import MCPServerError as FastMCPError
from mcpkit.compat.mcp.server.mcpserver.exceptions import (
    ResourceError,
    ToolError,
    ValidationError,
)

__all__ = ["FastMCPError", "ResourceError", "ToolError", "ValidationError"]
