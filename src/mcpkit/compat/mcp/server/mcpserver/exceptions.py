"""``mcp.server.mcpserver.exceptions`` on mcpkit.

A :class:`ToolError` raised by a tool becomes an error result with the text ``Error
executing tool <name>: <message>`` (any other exception's message is not shown: the text is
``Error executing tool <name>``).
A :class:`ResourceError` raised while reading becomes the JSON-RPC error ``-32603``.
"""

from __future__ import annotations

__all__ = ["MCPServerError", "ResourceError", "ToolError", "ValidationError"]


class MCPServerError(Exception):
    """Base of the high-level server's errors."""


class ValidationError(MCPServerError):
    """Invalid arguments or settings."""


class ResourceError(MCPServerError):
    """A resource could not be read."""


class ToolError(MCPServerError):
    """A tool failed on purpose; its message is shown in the error result's text."""
