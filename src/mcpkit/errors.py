"""The exceptions mcpkit raises: one for protocol errors, a few for transport failures."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConnectionClosed",
    "McpError",
    "ProcessExited",
    "RequestTimeout",
    "TransportError",
]


class McpError(Exception):
    """A JSON-RPC error: raised by handlers to answer with an error, and raised to callers
    when the peer answered with one.

    ``code`` is the JSON-RPC error code, ``message`` a short human-readable text, ``data`` any
    JSON value with details (for example ``{"uri": ...}`` for -32002).
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self) -> dict[str, Any]:
        """The wire form of the ``error`` member."""
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err

    @classmethod
    def from_error(cls, error: Any) -> McpError:
        """Build from a received ``error`` member, tolerating malformed ones."""
        if isinstance(error, dict):
            code = error.get("code")
            message = error.get("message")
            return cls(
                code if isinstance(code, int) and not isinstance(code, bool) else -32603,
                message if isinstance(message, str) else "Malformed error from peer",
                error.get("data"),
            )
        return cls(-32603, "Malformed error from peer", error)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}, {self.message!r})"

    def __str__(self) -> str:
        return f"{self.message} (code {self.code})"


class RequestTimeout(McpError, TimeoutError):
    """A request got no response in time; mcpkit has sent ``notifications/cancelled`` for it."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(-32001, f"Request {method!r} timed out after {timeout:g}s")
        self.method = method
        self.timeout = timeout


class TransportError(Exception):
    """The connection to the peer failed."""


class ConnectionClosed(TransportError):
    """The connection closed while a request was waiting for its response (or before sending)."""

    def __init__(self, message: str = "Connection closed") -> None:
        super().__init__(message)
        self.message = message


class ProcessExited(ConnectionClosed):
    """The server process of a stdio connection exited; carries its exit code and stderr tail."""

    def __init__(self, returncode: int | None, stderr_tail: str = "") -> None:
        msg = f"Server process exited with code {returncode}"
        if stderr_tail:
            msg += f"; last stderr output:\n{stderr_tail.rstrip()}"
        super().__init__(msg)
        self.returncode = returncode
        self.stderr_tail = stderr_tail
