"""Response-size limits: a result larger than the server sends is not sent.

The size is that of the result's JSON encoding (the wire's ``result`` member), measured
once per response (the cost of one extra ``orjson.dumps``). A ``tools/call`` result over
the limit becomes a tool error result (``isError: true``, saying how large it was), so the
model calling it can ask for less; any other method is answered -31413
(:class:`~.errors.ResponseTooLarge`, ``data.size`` and ``data.limit`` in bytes).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from mcpkit.server.middleware.base import CallNext, Middleware, MiddlewareContext
from mcpkit.server.middleware.errors import response_too_large
from mcpkit.server.tools import error_result

__all__ = ["ResponseSizeLimit"]


def _human(size: int) -> str:
    if size >= 1 << 20:
        return f"{size / (1 << 20):.1f} MiB"
    if size >= 1 << 10:
        return f"{size / (1 << 10):.1f} KiB"
    return f"{size} bytes"


class ResponseSizeLimit(Middleware):
    """Results of at most ``max_bytes`` (JSON-encoded) leave; ``methods``: only these are
    checked (default every request)."""

    def __init__(self, max_bytes: int, *, methods: Iterable[str] | None = None) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be positive")
        self.max_bytes = max_bytes
        self.methods = frozenset(methods) if methods is not None else None

    def hooks_for(self, method: str, notification: bool) -> list[Any]:
        if notification or (self.methods is not None and method not in self.methods):
            return []
        return [self.on_request]

    async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        result = await call_next(ctx)
        size = len(orjson.dumps(result))
        limit = self.max_bytes
        if size <= limit:
            return result
        if ctx.method == "tools/call":
            return error_result(
                f"The result of tool '{ctx.name}' is {_human(size)}, more than this server "
                f"sends ({_human(limit)}): ask for less"
            )
        raise response_too_large(
            f"The result of {ctx.method} is {_human(size)}, more than this server sends "
            f"({_human(limit)})",
            size,
            limit,
        )
