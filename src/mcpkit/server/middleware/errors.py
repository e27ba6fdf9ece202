"""The errors the built-in middleware answer with.

Their codes lie outside the JSON-RPC range reserved for implementations and MCP
(-32768 to -32000): the 2026-07-28 revision asks new application codes to be allocated
there, and these are not protocol errors but a server's policy. Each keeps the HTTP status
it mirrors in its last three digits, and its ``data`` says what to do about it.
"""

from __future__ import annotations

from typing import Any, Final

from mcpkit.errors import McpError

__all__ = [
    "OVERLOADED",
    "RATE_LIMITED",
    "RESPONSE_TOO_LARGE",
    "Overloaded",
    "RateLimited",
    "ResponseTooLarge",
]

#: The client sent more requests than its rate allows (``data.retryAfterMs``).
RATE_LIMITED: Final = -31429
#: The server (or a tool) is at its concurrency limit and its queue is full.
OVERLOADED: Final = -31503
#: A result is larger than the server sends (``data.size``, ``data.limit``, bytes).
RESPONSE_TOO_LARGE: Final = -31413


class RateLimited(McpError):
    """-31429: too many requests from this client; ``data`` has ``retryAfterMs``."""

    def __init__(
        self, message: str, retry_after: float, data: dict[str, Any] | None = None
    ) -> None:
        super().__init__(
            RATE_LIMITED,
            message,
            {**(data or {}), "retryAfterMs": max(1, round(retry_after * 1000))},
        )
        #: Seconds until a request would be accepted.
        self.retry_after = retry_after


class Overloaded(McpError):
    """-31503: a concurrency limit is reached and no more callers may wait."""

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(OVERLOADED, message, data)


class ResponseTooLarge(McpError):
    """-31413: the result exceeds the server's response-size limit."""

    def __init__(self, message: str, size: int, limit: int) -> None:
        super().__init__(RESPONSE_TOO_LARGE, message, {"size": size, "limit": limit})
