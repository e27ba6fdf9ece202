"""``mcp.server.subscriptions`` on mcpkit (2.x): the bus a low-level server publishes its
change events on, and the ``ListenHandler`` that serves them to ``subscriptions/listen``.

mcpkit serves ``subscriptions/listen`` itself (the acknowledgment first, each frame tagged
with the subscription's id, each stream's filter, over stdio and Streamable HTTP): a
:class:`ListenHandler` given to ``Server(on_subscriptions_listen=...)`` (or a bus given to
``MCPServer(subscriptions=...)``) connects its bus to the server, so each event published
reaches the streams that asked for it, as on the official SDK.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from mcpkit.compat.mcp.shared.subscriptions import (
    SUBSCRIPTION_ID_META_KEY,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
)

__all__ = [
    "SUBSCRIPTION_ID_META_KEY",
    "InMemorySubscriptionBus",
    "ListenHandler",
    "PromptsListChanged",
    "ResourceUpdated",
    "ResourcesListChanged",
    "ServerEvent",
    "SubscriptionBus",
    "ToolsListChanged",
    "connect_bus",
    "honour_every_kind",
    "publish_to_listeners",
]

logger = logging.getLogger(__name__)


class SubscriptionBus(Protocol):
    """Carries events from their publishers to the servers' listen streams: ``publish``
    (async) and ``subscribe(listener)`` (sync; returns the unsubscribe callable)."""

    async def publish(self, event: ServerEvent) -> None:
        """Hand ``event`` to every listener."""
        ...

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Add ``listener``; the callable returned removes it (more than once is harmless)."""
        ...


class InMemorySubscriptionBus:
    """A bus within this process: each event to every listener, in the order they
    subscribed; a listener that raises is logged and the others still get the event."""

    def __init__(self) -> None:
        self._listeners: dict[object, Callable[[ServerEvent], None]] = {}

    async def publish(self, event: ServerEvent) -> None:
        """Hand ``event`` to every listener."""
        import asyncio

        for listener in list(self._listeners.values()):
            try:
                listener(event)
            except Exception:
                logger.exception("a subscription listener failed")
        await asyncio.sleep(0)  # let the streams write between events of a burst

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Add ``listener``; the callable returned removes it."""
        token = object()
        self._listeners[token] = listener

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe


class ListenHandler:
    """What serves ``subscriptions/listen`` from ``bus`` (``Server(on_subscriptions_listen=
    ListenHandler(bus))``). ``max_subscriptions`` and ``max_buffered_events`` are accepted;
    mcpkit's own limits on listen streams apply."""

    def __init__(
        self,
        bus: SubscriptionBus,
        *,
        max_subscriptions: int = 1024,
        max_buffered_events: int = 1024,
    ) -> None:
        self.bus = bus
        self.max_subscriptions = max_subscriptions
        self.max_buffered_events = max_buffered_events

    async def __call__(self, ctx: Any, params: Any) -> Any:
        """Not called on mcpkit: the server it is given to serves the streams itself."""
        raise NotImplementedError(
            "mcpkit serves subscriptions/listen itself: give the ListenHandler to "
            "Server(on_subscriptions_listen=...)"
        )

    def close(self) -> None:
        """End every open listen stream of the server this handler serves gracefully (each
        answers its closing result); it does not wait for them."""
        native = getattr(self, "_native", None)
        if native is not None:
            native.relay.end_listens()

    def serve(self, native: Any) -> None:
        """Connect :attr:`bus` to the mcpkit server ``native`` (see :func:`connect_bus`)."""
        self._native = native
        honour_every_kind(native)
        connect_bus(self.bus, native)


def connect_bus(bus: SubscriptionBus, native: Any) -> Callable[[], None]:
    """Deliver each event published on ``bus`` through the mcpkit server ``native`` to the
    listen streams (and the 2025 sessions' subscriptions) it reaches."""

    def deliver(event: ServerEvent) -> None:
        if isinstance(event, ResourceUpdated):
            publish_to_listeners(native, "resource_updated", event.uri)
        elif isinstance(event, ToolsListChanged):
            publish_to_listeners(native, "tools")
        elif isinstance(event, PromptsListChanged):
            publish_to_listeners(native, "prompts")
        elif isinstance(event, ResourcesListChanged):
            publish_to_listeners(native, "resources")

    return bus.subscribe(deliver)


def publish_to_listeners(native: Any, kind: str, uri: str | None = None) -> None:
    """Publish a change through the mcpkit server ``native`` to its ``subscriptions/listen``
    streams alone, as 2.x's bus does: its handshake-era sessions are not told (they are
    through ``ctx.session.send_*``). ``kind``: ``tools``, ``prompts``, ``resources`` or
    ``resource_updated`` (with ``uri``)."""
    from mcpkit.bus import BusEvent

    event = BusEvent(kind, uri)  # type: ignore[arg-type]
    if not native.relay.sinks:  # nothing but the listen streams hears of changes
        native.relay.publish(event)
        return
    skip: Counter[BusEvent] | None = getattr(native, "_listeners_only", None)
    if skip is None:
        skip = native._listeners_only = Counter()
        relay = native.relay
        relay.sinks[:] = [_sessions_spared(sink, skip) for sink in relay.sinks]
    skip[event] += 1
    native.relay.publish(event)


def _sessions_spared(sink: Callable[[Any], None], skip: Counter[Any]) -> Callable[[Any], None]:
    """``sink`` (what tells the handshake-era sessions) but for the events published to
    the listen streams alone (counted in ``skip``; equal events are interchangeable)."""

    def deliver(event: Any) -> None:
        if skip[event] > 0:
            skip[event] -= 1
            return
        sink(event)

    return deliver


#: What a listen stream of an official-SDK server honours: every kind asked for (whether
#: an event ever fires depends on what the server publishes).
_EVERY_KIND: dict[str, Any] = {
    "tools": {"listChanged": True},
    "prompts": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
}


def honour_every_kind(native: Any) -> None:
    """Make the mcpkit server ``native`` honour every kind of change a
    ``subscriptions/listen`` request asks for, as the official SDK's ``ListenHandler``
    does (mcpkit's own servers honour what their capabilities declare)."""
    native.listen_capabilities = lambda version: _EVERY_KIND
