"""Errors raised by server features."""

from __future__ import annotations

from mcpkit.errors import RequestRefused
from mcpkit.jsonrpc import METHOD_NOT_FOUND

__all__ = ["ClientCapabilityError"]


class ClientCapabilityError(RequestRefused):
    """The client did not declare the capability a server-to-client request needs.

    Inside a tool it becomes a tool error result (``isError: true``) with this message.
    """

    def __init__(self, message: str) -> None:
        super().__init__(METHOD_NOT_FOUND, message)
