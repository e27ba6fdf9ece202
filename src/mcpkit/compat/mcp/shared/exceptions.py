"""``mcp.shared.exceptions`` on mcpkit: the JSON-RPC error a handler raises to answer with
an error, under both of the official SDK's spellings (1.x ``McpError(ErrorData(...))``,
2.x ``MCPError(code, message, data)``), :class:`UrlElicitationRequiredError` and
:class:`NoBackChannelError`."""

from __future__ import annotations

from typing import Any

from mcpkit.errors import McpError as _NativeMcpError

__all__ = ["MCPError", "McpError", "NoBackChannelError", "UrlElicitationRequiredError"]

URL_ELICITATION_REQUIRED = -32042


class McpError(_NativeMcpError):
    """A JSON-RPC error: ``McpError(ErrorData(code=..., message=...))`` or
    ``McpError(code, message, data)``; ``.error`` is its ``ErrorData``."""

    def __init__(
        self,
        error: Any = None,
        message: str | None = None,
        data: Any = None,
        *,
        code: int | None = None,
    ) -> None:
        if code is not None:  # MCPError(code=..., message=..., data=...)
            error = code
        if isinstance(error, int) and not isinstance(error, bool):
            super().__init__(error, message or "", data)
        else:
            super().__init__(error.code, error.message, getattr(error, "data", None))

    @property
    def error(self) -> Any:
        """The error as an ``ErrorData`` model."""
        from mcpkit.types import Error

        if self.data is None:
            return Error(code=self.code, message=self.message)
        return Error(code=self.code, message=self.message, data=self.data)

    def __str__(self) -> str:
        return self.message


MCPError = McpError


class UrlElicitationRequiredError(McpError):
    """Answer -32042: the client must complete these URL elicitations first."""

    def __init__(self, elicitations: list[Any], message: str | None = None) -> None:
        if message is None:
            message = f"URL elicitation{'s' if len(elicitations) > 1 else ''} required"
        self._elicitations = elicitations
        data = {
            "elicitations": [
                e.model_dump(by_alias=True, exclude_none=True) if hasattr(e, "model_dump") else e
                for e in elicitations
            ]
        }
        super().__init__(URL_ELICITATION_REQUIRED, message, data)

    @property
    def elicitations(self) -> list[Any]:
        """The URL elicitations required."""
        return self._elicitations


class NoBackChannelError(McpError):
    """A server-initiated request with no channel to deliver it (2.x): answered as an
    invalid request naming ``method``."""

    def __init__(self, method: str) -> None:
        from mcpkit.jsonrpc import INVALID_REQUEST

        super().__init__(
            INVALID_REQUEST,
            f"Cannot send {method!r}: this transport context has no back-channel for "
            "server-initiated requests.",
        )
        self.method = method
