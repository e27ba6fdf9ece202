"""``fastmcp.exceptions`` on mcpkit: a :class:`ToolError` raised by a tool becomes an error
result whose text is its message (any other exception reads ``Error calling tool '<name>':
<message>``)."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.exceptions import MCPServerError as FastMCPError
from mcpkit.compat.mcp.server.mcpserver.exceptions import ResourceError, ToolError, ValidationError

__all__ = ["FastMCPError", "NotFoundError", "ResourceError", "ToolError", "ValidationError"]


class NotFoundError(FastMCPError):
    """A component that does not exist (``Unknown tool: <name>``)."""
