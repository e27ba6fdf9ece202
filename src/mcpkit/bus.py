"""The notification bus: list changes and resource updates, fanned out to every listener.

A server publishes :class:`BusEvent` values (tools/prompts/resources list changed, one
resource updated); legacy sessions and modern ``subscriptions/listen`` streams subscribe
with a filter and receive them. :class:`NotificationBus` is the interface (a Redis
implementation publishes :meth:`BusEvent.to_json` on a channel and feeds local
subscriptions from it); :class:`MemoryBus` is the in-process one.

Slow subscribers: events are invalidations, so a subscription's queue coalesces them (an
event already waiting is not queued twice), which bounds it by the number of distinct
events. When more than ``max_pending`` distinct events wait, the subscriber is dropped:
its iteration ends and :attr:`Subscription.overflowed` is True; a listen stream then
ends, and the client re-listens and re-fetches.

The rest are pure helpers for ``subscriptions/listen`` frames: :func:`parse_listen_params`
(the ``notifications`` filter), :func:`honoured_filter` (what the server agrees to send),
:func:`acknowledgment` (always the first frame), :func:`event_notification` (every frame
tagged with ``io.modelcontextprotocol/subscriptionId``, the listen request's id) and
:func:`listen_closed_result` (the graceful end).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

import orjson

from mcpkit.envelope import SUBSCRIPTION_ID_KEY, result_meta
from mcpkit.errors import McpError

__all__ = [
    "LISTEN_METHOD",
    "BusEvent",
    "EventKind",
    "ListenFilter",
    "ListenStream",
    "MemoryBus",
    "NotificationBus",
    "Subscription",
    "acknowledgment",
    "event_notification",
    "honoured_filter",
    "listen_closed_result",
    "open_listen",
    "parse_listen_params",
]

LISTEN_METHOD: Final = "subscriptions/listen"
EventKind = Literal["tools", "prompts", "resources", "resource_updated"]
_METHODS: Final[Mapping[str, str]] = {
    "tools": "notifications/tools/list_changed",
    "prompts": "notifications/prompts/list_changed",
    "resources": "notifications/resources/list_changed",
    "resource_updated": "notifications/resources/updated",
}
_FILTER_FLAGS: Final[Mapping[str, str]] = {
    "tools": "toolsListChanged",
    "prompts": "promptsListChanged",
    "resources": "resourcesListChanged",
}
DEFAULT_MAX_PENDING: Final = 1000


@dataclass(frozen=True, slots=True)
class BusEvent:
    """One change: a list changed (``kind`` tools/prompts/resources), or the resource at
    ``uri`` was updated (``kind`` resource_updated)."""

    kind: EventKind
    uri: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in _METHODS:
            raise ValueError(f"unknown event kind {self.kind!r}")
        if (self.kind == "resource_updated") != (self.uri is not None):
            raise ValueError("a uri is given exactly for resource_updated events")

    @classmethod
    def list_changed(cls, kind: Literal["tools", "prompts", "resources"]) -> BusEvent:
        """The tools, prompts or resources list changed."""
        return cls(kind)

    @classmethod
    def resource_updated(cls, uri: str) -> BusEvent:
        """The resource at ``uri`` changed."""
        return cls("resource_updated", uri)

    @property
    def method(self) -> str:
        """The notification method announcing this event."""
        return _METHODS[self.kind]

    def to_json(self) -> bytes:
        """The event as JSON bytes (for a shared bus)."""
        return orjson.dumps({"kind": self.kind, "uri": self.uri})

    @classmethod
    def from_json(cls, data: bytes | str) -> BusEvent:
        """The inverse of :meth:`to_json`; ValueError for anything else."""
        try:
            obj = orjson.loads(data)
            return cls(obj["kind"], obj.get("uri"))
        except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"not a bus event: {exc}") from None


def _covers(subscribed: str, uri: str) -> bool:
    if uri == subscribed:
        return True
    base = subscribed.rstrip("/")
    return bool(base) and uri.startswith(base + "/")


@dataclass(frozen=True, slots=True)
class ListenFilter:
    """The ``notifications`` filter of a ``subscriptions/listen`` request (all opt-in).

    A ``resource_updated`` event matches an exact subscribed URI, or a URI below one
    (``file:///dir`` covers ``file:///dir/a.txt``: the spec lets an update name a
    sub-resource of the subscribed one)."""

    tools: bool = False
    prompts: bool = False
    resources: bool = False
    resource_uris: tuple[str, ...] = ()
    _uris: frozenset[str] = field(default=frozenset(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_uris", frozenset(self.resource_uris))

    def matches(self, event: BusEvent) -> bool:
        """Whether a stream with this filter receives ``event``."""
        if event.kind == "resource_updated":
            uri = event.uri or ""
            return uri in self._uris or any(_covers(s, uri) for s in self.resource_uris)
        return bool(getattr(self, event.kind))

    def to_wire(self) -> dict[str, Any]:
        """The ``SubscriptionFilter`` object (only the members opted in to)."""
        out: dict[str, Any] = {
            _FILTER_FLAGS[k]: True for k in ("tools", "prompts", "resources") if getattr(self, k)
        }
        if self.resource_uris:
            out["resourceSubscriptions"] = list(self.resource_uris)
        return out


def parse_listen_params(params: Any) -> ListenFilter:
    """The filter of ``subscriptions/listen`` params; -32602 when ``notifications`` is
    missing or malformed. Unknown filter members are ignored."""
    notifications = params.get("notifications") if isinstance(params, Mapping) else None
    if not isinstance(notifications, Mapping):
        raise McpError(-32602, "subscriptions/listen needs a 'notifications' object")
    flags: dict[str, bool] = {}
    for kind, name in _FILTER_FLAGS.items():
        value = notifications.get(name, False)
        if not isinstance(value, bool):
            raise McpError(-32602, f"notifications.{name} must be a boolean")
        flags[kind] = value
    uris = notifications.get("resourceSubscriptions", [])
    if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
        raise McpError(-32602, "notifications.resourceSubscriptions must be a list of strings")
    return ListenFilter(**flags, resource_uris=tuple(dict.fromkeys(uris)))


def honoured_filter(requested: ListenFilter, capabilities: Mapping[str, Any]) -> ListenFilter:
    """The part of ``requested`` the server sends, from its capabilities: list changes of
    a feature that declares ``listChanged: true``, resource updates when ``resources``
    declares ``subscribe: true``."""

    def flag(feature: str, name: str) -> bool:
        value = capabilities.get(feature)
        return isinstance(value, Mapping) and value.get(name) is True

    return ListenFilter(
        tools=requested.tools and flag("tools", "listChanged"),
        prompts=requested.prompts and flag("prompts", "listChanged"),
        resources=requested.resources and flag("resources", "listChanged"),
        resource_uris=requested.resource_uris if flag("resources", "subscribe") else (),
    )


def acknowledgment(subscription_id: str | int, honoured: ListenFilter) -> dict[str, Any]:
    """The first frame of a listen stream: ``notifications/subscriptions/acknowledged``."""
    return {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {
            "_meta": {SUBSCRIPTION_ID_KEY: subscription_id},
            "notifications": honoured.to_wire(),
        },
    }


def event_notification(subscription_id: str | int, event: BusEvent) -> dict[str, Any]:
    """The notification announcing ``event`` on the listen stream ``subscription_id``."""
    params: dict[str, Any] = {"_meta": {SUBSCRIPTION_ID_KEY: subscription_id}}
    if event.uri is not None:
        params["uri"] = event.uri
    return {"jsonrpc": "2.0", "method": event.method, "params": params}


def listen_closed_result(
    subscription_id: str | int, server_info: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The result ending a listen stream gracefully (the response to the listen request,
    whose id is ``subscription_id``)."""
    meta: dict[str, Any] = result_meta(server_info) if server_info is not None else {}
    meta[SUBSCRIPTION_ID_KEY] = subscription_id
    return {"resultType": "complete", "_meta": meta}


EventFilter = ListenFilter | Callable[[BusEvent], bool] | None


class Subscription:
    """The events of one subscriber, in order, coalesced; iterate with ``async for``."""

    def __init__(
        self,
        accept: Callable[[BusEvent], bool],
        max_pending: int,
        on_close: Callable[[Subscription], None],
    ) -> None:
        self._accept = accept
        self._max = max_pending
        self._pending: OrderedDict[BusEvent, None] = OrderedDict()
        self._wake = asyncio.Event()
        self._closed = False
        self._on_close = on_close
        #: True when the subscriber fell too far behind and was dropped.
        self.overflowed = False

    @property
    def closed(self) -> bool:
        """True once closed (by the subscriber, the bus, or an overflow)."""
        return self._closed

    def _offer(self, event: BusEvent) -> None:
        if self._closed or not self._accept(event) or event in self._pending:
            return
        if len(self._pending) >= self._max:
            self.overflowed = True
            self.close()
            return
        self._pending[event] = None
        self._wake.set()

    def close(self) -> None:
        """Stop receiving; a waiting iteration ends after the events already queued (none
        after an overflow)."""
        if self._closed:
            return
        self._closed = True
        if self.overflowed:
            self._pending.clear()
        self._wake.set()
        self._on_close(self)

    def __aiter__(self) -> AsyncIterator[BusEvent]:
        return self

    async def __anext__(self) -> BusEvent:
        while not self._pending:
            if self._closed:
                raise StopAsyncIteration
            self._wake.clear()
            await self._wake.wait()
        event, _ = self._pending.popitem(last=False)
        return event


class NotificationBus(Protocol):
    """What every bus offers."""

    async def publish(self, event: BusEvent) -> None:
        """Deliver ``event`` to every matching subscription (of every replica)."""

    def subscribe(
        self, accept: EventFilter = None, *, max_pending: int = DEFAULT_MAX_PENDING
    ) -> Subscription:
        """A new subscription receiving the events ``accept`` matches (None: all)."""

    async def aclose(self) -> None:
        """Close every subscription and release the bus."""


class MemoryBus:
    """The in-process :class:`NotificationBus`."""

    def __init__(self) -> None:
        self._subs: set[Subscription] = set()
        self._closed = False

    def __len__(self) -> int:
        return len(self._subs)

    def publish_nowait(self, event: BusEvent) -> None:
        """:meth:`publish` from synchronous code."""
        for sub in list(self._subs):
            sub._offer(event)

    async def publish(self, event: BusEvent) -> None:
        """Deliver ``event`` to every matching subscription."""
        self.publish_nowait(event)

    def subscribe(
        self, accept: EventFilter = None, *, max_pending: int = DEFAULT_MAX_PENDING
    ) -> Subscription:
        """A new subscription; ``accept`` is a :class:`ListenFilter`, a predicate or None."""
        if self._closed:
            raise RuntimeError("the bus is closed")
        if max_pending < 1:
            raise ValueError("max_pending must be at least 1")
        if accept is None:
            predicate: Callable[[BusEvent], bool] = lambda _e: True  # noqa: E731
        elif isinstance(accept, ListenFilter):
            predicate = accept.matches
        else:
            predicate = accept
        sub = Subscription(predicate, max_pending, self._subs.discard)
        self._subs.add(sub)
        return sub

    async def aclose(self) -> None:
        """Close every subscription; later :meth:`subscribe` calls fail."""
        self._closed = True
        for sub in list(self._subs):
            sub.close()


class ListenStream:
    """One ``subscriptions/listen`` stream: iterate for its frames, acknowledgment first,
    then one notification per event; the iteration ends when the stream is closed (by
    :meth:`close`, the bus, or an overflow: then :attr:`overflowed` is True)."""

    def __init__(
        self, subscription_id: str | int, honoured: ListenFilter, subscription: Subscription
    ) -> None:
        self.subscription_id = subscription_id
        self.honoured = honoured
        self.subscription = subscription
        self._acknowledged = False

    @property
    def overflowed(self) -> bool:
        """True when the stream ended because its listener fell too far behind."""
        return self.subscription.overflowed

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self

    async def __anext__(self) -> dict[str, Any]:
        if not self._acknowledged:
            self._acknowledged = True
            return acknowledgment(self.subscription_id, self.honoured)
        event = await self.subscription.__anext__()
        return event_notification(self.subscription_id, event)

    def close(self) -> None:
        """End the stream (the client went away, or the server shuts down)."""
        self.subscription.close()

    def closed_result(self, server_info: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The result that ends the stream gracefully (see :func:`listen_closed_result`)."""
        return listen_closed_result(self.subscription_id, server_info)


def open_listen(
    bus: NotificationBus,
    subscription_id: str | int,
    params: Any,
    capabilities: Mapping[str, Any],
    *,
    max_pending: int = DEFAULT_MAX_PENDING,
) -> ListenStream:
    """Serve a ``subscriptions/listen`` request with id ``subscription_id``: parse its
    filter (-32602), narrow it to what ``capabilities`` can send, and subscribe at once,
    so no event published after this call is missed."""
    honoured = honoured_filter(parse_listen_params(params), capabilities)
    return ListenStream(subscription_id, honoured, bus.subscribe(honoured, max_pending=max_pending))
