"""Rate limiting: a token bucket per client.

Each client (:attr:`~.base.MiddlewareContext.client_id`: the authenticated principal, else
the HTTP session, else the remote address, else the connection) has a bucket of ``burst``
tokens refilled at ``rate`` per second; a request takes one. A request that finds the
bucket empty is refused with :class:`~.errors.RateLimited` (-31429, ``data.retryAfterMs``:
when one token will be back) and does not run; the session goes on. Notifications are
never limited (they cannot be refused).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from mcpkit.server.middleware.base import CallNext, Middleware, MiddlewareContext
from mcpkit.server.middleware.errors import rate_limited

__all__ = ["RateLimit", "TokenBucket"]


class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second."""

    __slots__ = ("capacity", "rate", "stamp", "tokens")

    def __init__(self, rate: float, capacity: float, now: float) -> None:
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.stamp = now

    def take(self, now: float) -> float:
        """Take a token: 0.0 when taken, else the seconds until one is back."""
        tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if tokens >= 1.0:
            self.tokens = tokens - 1.0
            return 0.0
        self.tokens = tokens
        return (1.0 - tokens) / self.rate


class RateLimit(Middleware):
    """At most ``rate`` requests per second per client, with bursts of up to ``burst``
    (default: ``max(1, rate)``).

    ``methods``: only these methods count (default: every request); ``exempt``: methods
    that never count (default ``ping``). ``identity``: a function of the
    :class:`~.base.MiddlewareContext` naming the client (default its ``client_id``). At
    most ``max_clients`` buckets are kept (the least recently seen goes first)."""

    def __init__(
        self,
        rate: float,
        burst: int | None = None,
        *,
        methods: Iterable[str] | None = None,
        exempt: Iterable[str] = ("ping",),
        identity: Callable[[MiddlewareContext], str] | None = None,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate <= 0:
            raise ValueError("rate must be positive (requests per second)")
        capacity = float(burst) if burst is not None else max(1.0, rate)
        if capacity < 1:
            raise ValueError("burst must be at least 1")
        self.rate = rate
        self.burst = capacity
        self.methods = frozenset(methods) if methods is not None else None
        self.exempt = frozenset(exempt)
        self.identity = identity
        self.max_clients = max_clients
        self.clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def hooks_for(self, method: str, notification: bool) -> list[Any]:
        if notification or method in self.exempt:
            return []
        if self.methods is not None and method not in self.methods:
            return []
        return [self.on_request]

    async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        who = self.identity(ctx) if self.identity is not None else ctx.client_id
        now = self.clock()
        buckets = self._buckets
        bucket = buckets.get(who)
        if bucket is None:
            bucket = buckets[who] = TokenBucket(self.rate, self.burst, now)
            if len(buckets) > self.max_clients:
                buckets.popitem(last=False)
        else:
            buckets.move_to_end(who)
        wait = bucket.take(now)
        if wait:
            raise rate_limited(
                f"Rate limit exceeded: at most {self.rate:g} requests per second "
                f"(bursts of {self.burst:g}) per client; retry in {wait:.2f} s",
                wait,
                {"rate": self.rate, "burst": self.burst},
            )
        return await call_next(ctx)
