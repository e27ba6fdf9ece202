"""The notification bus on Redis pub/sub: every replica hears every event once.

:meth:`RedisBus.publish` appends the event to the bus log (the stream ``P:bus:log``,
trimmed to ``bus_log_maxlen`` entries, expiring ``session_ttl`` after the newest) and sends
``<entry id> <BusEvent.to_json()>`` on the bus channel, in one script; this process's one
pub/sub connection (the backend's router) receives every event (its own included) and
offers it to the local subscriptions, exactly as :class:`~mcpkit.bus.MemoryBus` does in
one process. A server's :class:`~mcpkit.bus.BusRelay` holds one such subscription per
process and fans it out to the process's 2025 sessions and 2026 ``subscriptions/listen``
streams.

The log is what a 2025 session with no GET stream open catches up from: each session
records the last log entry accounted for (``bp`` in its hash), and the replica where its
GET stream next opens reads the entries after it (:meth:`RedisBus.since`), coalesced per
kind and URI (see :mod:`mcpkit.redis.sessions`). On a Redis Cluster the log is one key
(one slot) and the channel is classic pub/sub: a ``PUBLISH`` reaches every node.

Events published while Redis is unreachable fail with
:class:`~mcpkit.redis.backend.StoreUnavailable`; events on the channel while this process's
pub/sub connection is down are not received (pub/sub keeps nothing): listeners treat
events as invalidations, and the relay's clients re-fetch when they re-listen.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mcpkit.bus import DEFAULT_MAX_PENDING, BusEvent, EventFilter, MemoryBus, Subscription
from mcpkit.redis.backend import unavailable

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = ["RedisBus", "stream_id"]

logger = logging.getLogger("mcpkit.redis")

#: KEYS: bus log. ARGV: maxlen, channel, event JSON, ttl ms. -> the entry id.
_PUBLISH = """
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PUBLISH', ARGV[2], id .. ' ' .. ARGV[3])
return id
"""


def stream_id(value: Any) -> tuple[int, int]:
    """A Redis stream entry id (``"<ms>-<seq>"``, str or bytes) as a comparable pair."""
    text = value.decode() if isinstance(value, bytes) else str(value)
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisBus:
    """A :class:`~mcpkit.bus.NotificationBus` shared by every replica on one Redis."""

    def __init__(self, backend: RedisBackend) -> None:
        self.backend = backend
        self.channel = backend.keys.bus_channel
        self.log = backend.keys.bus_log
        self._local = MemoryBus()
        #: Events received from the channel (for tests and metrics).
        self.received = 0
        #: The log id of the newest event received here (None: none yet).
        self.last_id: str | None = None
        self._last = (0, 0)
        backend.router.fixed[self.channel] = self._on_message

    def _on_message(self, data: bytes) -> None:
        entry: str | None = None
        if data[:1] != b"{":
            head, _, data = data.partition(b" ")
            entry = head.decode("ascii", "replace")
        try:
            event = BusEvent.from_json(data)
            position = stream_id(entry) if entry is not None else None
            if entry is not None:
                event = BusEvent(event.kind, event.uri, event.audience, entry)
        except Exception:
            logger.warning("Malformed event on the notification bus dropped")
            return
        self.received += 1
        if position is not None and position > self._last:
            self._last, self.last_id = position, entry
        self._local.publish_nowait(event)

    async def publish(self, event: BusEvent) -> None:
        """Deliver ``event`` to every matching subscription of every replica (and append it
        to the bus log)."""
        try:
            await self.backend.client.eval(
                _PUBLISH,
                1,
                self.log,
                self.backend.bus_log_maxlen,
                self.channel,
                event.to_json(),
                int(self.backend.session_ttl * 1000),
            )
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None

    async def position(self) -> str:
        """The log id every event published so far is at or before: the newest received
        here, else the log's newest entry (``"0-0"`` when it is empty)."""
        if self.last_id is not None:
            return self.last_id
        try:
            newest = await self.backend.client.xrevrange(self.log, "+", "-", count=1)
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None
        return _text(newest[0][0]) if newest else "0-0"

    async def since(self, after: str) -> tuple[list[tuple[str, BusEvent]], bool]:
        """The logged events after entry ``after`` (oldest first, with their ids), and
        whether some of them may have been trimmed away meanwhile (then the list may be
        incomplete; said conservatively: also when only ``after`` itself is gone)."""
        try:
            pipe = self.backend.client.pipeline(transaction=False)
            pipe.xrange(self.log, f"({after}", "+")  # the log is bounded: read it all
            pipe.xinfo_stream(self.log)
            raw, info = await pipe.execute(raise_on_error=False)
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None
        if isinstance(raw, Exception):
            raise unavailable(raw, self.backend.url)
        if isinstance(info, Exception):  # no log (nothing published, or it expired)
            info = {}
        events: list[tuple[str, BusEvent]] = []
        for entry_id, fields in raw:
            try:
                events.append((_text(entry_id), BusEvent.from_json(fields[b"e"])))
            except Exception:
                logger.warning("Malformed entry %s of the bus log skipped", _text(entry_id))
        fields = {_text(k): v for k, v in dict(info).items()}
        first: Any = fields.get("first-entry")
        if after == "0-0":  # from the log's start: was anything ever trimmed from it?
            added = fields.get("entries-added")
            trimmed = added is not None and int(added) > int(fields.get("length", 0))
        else:  # the oldest entry kept is newer than ``after``: what followed it may be gone
            trimmed = bool(first) and stream_id(first[0]) > stream_id(after)
        return events, trimmed

    def subscribe(
        self,
        accept: EventFilter = None,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        coalesce: bool = True,
    ) -> Subscription:
        """A new subscription (see :meth:`MemoryBus.subscribe`); starts this process's
        pub/sub connection when needed."""
        self.backend.start()
        return self._local.subscribe(accept, max_pending=max_pending, coalesce=coalesce)

    async def aclose(self) -> None:
        """Close every local subscription."""
        await self._local.aclose()
