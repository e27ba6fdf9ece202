"""Concurrency limits: :class:`ConcurrencyLimiter` (at most N at once, a bounded queue, then
refusal), per tool (``@app.tool(max_concurrency=4)``, ``Server(max_tool_concurrency=)``)
and for a whole server or HTTP app (:class:`InFlightLimit`, ``http_app(max_in_flight=)``).

A caller beyond the limit waits, first come first served, while fewer than ``max_queued``
others wait; beyond that it is refused at once with :class:`~.errors.Overloaded` (-31503).
A waiting request that is cancelled leaves the queue.
"""

from __future__ import annotations

from typing import Any

from mcpkit.server.limiter import DEFAULT_QUEUE_FACTOR, ConcurrencyLimiter
from mcpkit.server.middleware.base import CallNext, Middleware, MiddlewareContext, http_origin

__all__ = ["DEFAULT_QUEUE_FACTOR", "ConcurrencyLimiter", "InFlightLimit"]


class InFlightLimit(Middleware):
    """At most ``max_in_flight`` requests handled at once by the server (every session and
    transport), up to ``max_queued`` more waiting; the rest are refused with -31503.
    ``subscriptions/listen`` streams are not counted (they last as long as the client
    listens). ``http_app(max_in_flight=)`` is this limit for the requests of one HTTP app.
    """

    def __init__(self, max_in_flight: int, max_queued: int | None = None) -> None:
        self.limiter = ConcurrencyLimiter(max_in_flight, max_queued, what="the server")

    def hooks_for(self, method: str, notification: bool) -> list[Any]:
        if notification or method == "subscriptions/listen":
            return []
        return [self.on_request]

    async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        limiter = self.limiter
        await limiter.acquire()
        try:
            return await call_next(ctx)
        finally:
            limiter.release()


async def http_gate(ctx: MiddlewareContext, call_next: CallNext) -> Any:
    """The hook behind ``http_app(max_in_flight=)``: the in-flight limit of the HTTP app the
    request came through (none for other transports)."""
    origin = http_origin.get()
    gate = None if origin is None else origin.gate
    if gate is None or ctx.request is None or ctx.method == "subscriptions/listen":
        return await call_next(ctx)
    return await gate.on_request(ctx, call_next)
