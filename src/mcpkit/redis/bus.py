"""The notification bus on Redis pub/sub: every replica hears every event once.

:meth:`RedisBus.publish` sends :meth:`BusEvent.to_json` on the bus channel; this process's
one pub/sub connection (the backend's router) receives every event (its own included) and
offers it to the local subscriptions, exactly as :class:`~mcpkit.bus.MemoryBus` does in one
process. A server's :class:`~mcpkit.bus.BusRelay` holds one such subscription per process
and fans it out to the process's 2025 sessions and 2026 ``subscriptions/listen`` streams.

Events published while Redis is unreachable fail with
:class:`~mcpkit.redis.backend.StoreUnavailable`; events on the channel while this process's
pub/sub connection is down are not received (pub/sub keeps nothing): listeners treat
events as invalidations, and the relay's clients re-fetch when they re-listen.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from mcpkit.bus import DEFAULT_MAX_PENDING, BusEvent, EventFilter, MemoryBus, Subscription
from mcpkit.redis.backend import unavailable

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = ["RedisBus"]

logger = logging.getLogger("mcpkit.redis")


class RedisBus:
    """A :class:`~mcpkit.bus.NotificationBus` shared by every replica on one Redis."""

    def __init__(self, backend: RedisBackend) -> None:
        self.backend = backend
        self.channel = backend.keys.bus_channel
        self._local = MemoryBus()
        #: Events received from the channel (for tests and metrics).
        self.received = 0
        backend.router.fixed[self.channel] = self._on_message

    def _on_message(self, data: bytes) -> None:
        try:
            event = BusEvent.from_json(data)
        except Exception:
            logger.warning("Malformed event on the notification bus dropped")
            return
        self.received += 1
        self._local.publish_nowait(event)

    async def publish(self, event: BusEvent) -> None:
        """Deliver ``event`` to every matching subscription of every replica."""
        try:
            await self.backend.client.publish(self.channel, event.to_json())
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None

    def subscribe(
        self, accept: EventFilter = None, *, max_pending: int = DEFAULT_MAX_PENDING
    ) -> Subscription:
        """A new subscription (see :meth:`MemoryBus.subscribe`); starts this process's
        pub/sub connection when needed."""
        self.backend.start()
        return self._local.subscribe(accept, max_pending=max_pending)

    async def aclose(self) -> None:
        """Close every local subscription."""
        await self._local.aclose()
