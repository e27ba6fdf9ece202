"""``mcp.server.mcpserver.exceptions`` on mcpkit.

A :class:`ToolError` raised by a tool becomes an error result with the text ``Error
executing tool <name>: <message>`` (any other exception's message is not shown: the text is
``Error executing tool <name>``).
A :class:`ResourceError` raised while reading becomes the JSON-RPC error ``-32603`` with its
message (a :class:`ResourceNotFoundError`: ``-32602``), the URI as data.
"""

from __future__ import annotations

__all__ = [
    "MCPServerError",
    "ResourceError",
    "ResourceNotFoundError",
    "ToolError",
    "UnexpectedResourceError",
    "ValidationError",
]


class MCPServerError(Exception):
    """Base of the high-level server's errors."""


class ValidationError(MCPServerError):
    """Invalid arguments or settings."""


class ResourceError(MCPServerError):
    """A resource could not be read."""


class ResourceNotFoundError(ResourceError):
    """Nothing at the URI: the client gets ``-32602``."""


class UnexpectedResourceError(ResourceError):
    """A read that failed with another exception (its cause); the client sees the URI only."""


class ToolError(MCPServerError):
    """A tool failed on purpose; its message is shown in the error result's text."""
