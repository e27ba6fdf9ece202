"""Client-side exceptions. All derive from :class:`~mcpkit.errors.McpError`, so one
``except McpError`` around a call catches every protocol-level failure of that call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit.errors import McpError, RequestRefused
from mcpkit.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND

if TYPE_CHECKING:
    from mcpkit.types import CallToolResult, ElicitRequestURLParams

__all__ = [
    "URL_ELICITATION_REQUIRED",
    "InvalidServerResponse",
    "OutputSchemaError",
    "TaskNotSupported",
    "ToolError",
    "URLElicitationRequired",
]

#: Error code of ``URLElicitationRequiredError`` (the server needs a URL elicitation first).
URL_ELICITATION_REQUIRED = -32042


class InvalidServerResponse(McpError, ValueError):
    """The server answered a request with a result that does not match the protocol.

    Only the affected call fails; the session goes on. ``method`` names the request and
    ``data["errors"]`` lists what was wrong.
    """

    def __init__(self, method: str, message: str, errors: list[str] | None = None) -> None:
        super().__init__(
            INTERNAL_ERROR,
            f"Invalid {method!r} result from the server: {message}",
            {"method": method, "errors": errors or []},
        )
        self.method = method
        self.errors = errors or []


class OutputSchemaError(InvalidServerResponse):
    """A tool's ``structuredContent`` does not match its declared ``outputSchema`` (or the
    schema itself cannot be used, e.g. an unsupported ``$schema`` dialect)."""

    def __init__(self, tool: str, message: str, errors: list[str] | None = None) -> None:
        super().__init__("tools/call", f"tool {tool!r}: {message}", errors)
        self.tool = tool


class TaskNotSupported(RequestRefused):
    """A task call the peer did not allow, refused before anything is sent: the server did
    not declare the ``tasks`` capability it needs, or the tool's ``execution.taskSupport``
    forbids (or requires) running it as a task. Code -32601, as the server would answer."""

    def __init__(self, message: str) -> None:
        super().__init__(METHOD_NOT_FOUND, message)


class ToolError(McpError):
    """Raised by ``call_tool(..., raise_on_error=True)`` when the result has ``isError: true``.

    ``result`` is the full :class:`~mcpkit.types.CallToolResult`.
    """

    def __init__(self, tool: str, message: str, result: CallToolResult) -> None:
        super().__init__(INTERNAL_ERROR, f"Tool {tool!r} failed: {message}")
        self.tool = tool
        self.result = result


class URLElicitationRequired(McpError):
    """The server answered -32042: the request can be retried once the user has completed
    the URL elicitations in ``elicitations`` (typed :class:`ElicitRequestURLParams`)."""

    def __init__(self, message: str, data: Any, elicitations: list[ElicitRequestURLParams]) -> None:
        super().__init__(URL_ELICITATION_REQUIRED, message, data)
        self.elicitations = elicitations
