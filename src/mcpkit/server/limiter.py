"""A concurrency limit: :class:`ConcurrencyLimiter`, at most N at once, a bounded queue
first come first served, then refusal with :class:`~mcpkit.errors.Overloaded` (-31503). A
waiting caller that is cancelled leaves the queue. Tools use it for their own limits
(``@app.tool(max_concurrency=4)``); :mod:`mcpkit.server.middleware.concurrency` for a whole
server or HTTP app.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from typing import Final

from mcpkit.errors import Overloaded

__all__ = ["DEFAULT_QUEUE_FACTOR", "ConcurrencyLimiter"]

#: ``max_queued`` when not given: this many times the concurrency limit.
DEFAULT_QUEUE_FACTOR: Final = 4


class ConcurrencyLimiter:
    """At most ``limit`` holders at once and ``max_queued`` waiting (default
    :data:`DEFAULT_QUEUE_FACTOR` times ``limit``); ``what`` names it in the refusal."""

    __slots__ = ("_waiters", "limit", "max_queued", "running", "what")

    def __init__(self, limit: int, max_queued: int | None = None, *, what: str = "server") -> None:
        if limit < 1:
            raise ValueError("a concurrency limit must be at least 1")
        if max_queued is None:
            max_queued = DEFAULT_QUEUE_FACTOR * limit
        if max_queued < 0:
            raise ValueError("max_queued must not be negative")
        self.limit = limit
        self.max_queued = max_queued
        self.what = what
        #: Holders now.
        self.running = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        """Callers waiting for a slot now."""
        return len(self._waiters)

    def refusal(self) -> Overloaded:
        """The error a caller beyond the queue gets."""
        return Overloaded(
            f"{self.what[0].upper()}{self.what[1:]} is busy: {self.running} running and "
            f"{len(self._waiters)} waiting (limit {self.limit}, queue {self.max_queued}); "
            "try again later",
            {"limit": self.limit, "maxQueued": self.max_queued},
        )

    async def acquire(self) -> None:
        """Take a slot, waiting in line when all are held; Overloaded when the line is full."""
        if self.running < self.limit and not self._waiters:
            self.running += 1
            return
        if len(self._waiters) >= self.max_queued:
            raise self.refusal()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed a slot just as it was cancelled: pass it on
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        """Give a slot back (to the first waiter, if any)."""
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot passes on: `running` stays
                return
        self.running -= 1

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """``async with limiter.slot():`` around the limited work."""
        await self.acquire()
        try:
            yield
        finally:
            self.release()
