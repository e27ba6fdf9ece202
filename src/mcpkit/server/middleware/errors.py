"""The errors the built-in middleware answer with (defined in :mod:`mcpkit.errors`, so a
client receiving one raises the same class).

Their codes lie outside the JSON-RPC range reserved for implementations and MCP
(-32768 to -32000): the 2026-07-28 revision asks new application codes to be allocated
there, and these are not protocol errors but a server's policy. Each keeps the HTTP status
it mirrors in its last three digits, and its ``data`` says what to do about it.
"""

from __future__ import annotations

from typing import Any, Final

from mcpkit.errors import Overloaded, RateLimited, ResponseTooLarge

__all__ = [
    "OVERLOADED",
    "RATE_LIMITED",
    "RESPONSE_TOO_LARGE",
    "Overloaded",
    "RateLimited",
    "ResponseTooLarge",
    "rate_limited",
    "response_too_large",
]

#: The client sent more requests than its rate allows (``data.retryAfterMs``).
RATE_LIMITED: Final = RateLimited.CODE
#: The server (or a tool) is at its concurrency limit and its queue is full.
OVERLOADED: Final = Overloaded.CODE
#: A result is larger than the server sends (``data.size``, ``data.limit``, bytes).
RESPONSE_TOO_LARGE: Final = ResponseTooLarge.CODE


def rate_limited(
    message: str, retry_after: float, data: dict[str, Any] | None = None
) -> RateLimited:
    """A :class:`RateLimited` saying to retry in ``retry_after`` seconds."""
    return RateLimited(message, {**(data or {}), "retryAfterMs": max(1, round(retry_after * 1000))})


def response_too_large(message: str, size: int, limit: int) -> ResponseTooLarge:
    """A :class:`ResponseTooLarge` carrying the result's size and the limit, in bytes."""
    return ResponseTooLarge(message, {"size": size, "limit": limit})
