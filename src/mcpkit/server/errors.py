"""Errors raised by server features."""

from __future__ import annotations

from typing import Protocol

from mcpkit.errors import McpError, McpkitError, RequestRefused
from mcpkit.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND

__all__ = ["ClientCapabilityError", "ToolError", "failure"]


class ToolError(McpkitError):
    """Raised on purpose by a tool (or a resource or prompt) with a message meant for the
    client: a tool call answers a tool error result (``isError: true``) with the text
    ``Error executing tool '<name>': <message>``, a resource read or prompt the -32603 error
    with it. Unlike any other exception, its message is never masked (see
    :mod:`mcpkit.server.masking`)."""


class ClientCapabilityError(RequestRefused):
    """The client did not declare the capability a server-to-client request needs.

    Inside a tool it becomes a tool error result (``isError: true``) with this message.
    """

    def __init__(self, message: str) -> None:
        super().__init__(METHOD_NOT_FOUND, message)


class _Masking(Protocol):
    @property
    def mask_errors(self) -> bool: ...


class _Request(Protocol):
    @property
    def server(self) -> _Masking: ...


def failure(request: _Request, what: str, exc: Exception) -> McpError:
    """The -32603 error answering ``exc``, raised by user code while doing ``what`` (e.g.
    "Error reading resource file:///x"): its text only when ``exc`` is a
    :class:`ToolError` or the server does not mask errors; else an error id, logged with
    the exception."""
    if isinstance(exc, ToolError) or not request.server.mask_errors:
        return McpError(INTERNAL_ERROR, f"{what}: {exc}")
    from mcpkit.server.masking import report

    return McpError(INTERNAL_ERROR, f"{what} (error id {report(what, exc)})")
