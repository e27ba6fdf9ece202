"""The notification bus: list changes and resource updates, fanned out to every listener.

A server publishes :class:`BusEvent` values (tools/prompts/resources list changed, one
resource updated); legacy sessions and modern ``subscriptions/listen`` streams subscribe
with a filter and receive them. :class:`NotificationBus` is the interface (a Redis
implementation publishes :meth:`BusEvent.to_json` on a channel and feeds local
subscriptions from it); :class:`MemoryBus` is the in-process one.

Slow subscribers: events are invalidations, so a subscription's queue coalesces them by
default (an event already waiting is not queued twice), which bounds it by the number of
distinct events. When more than ``max_pending`` events wait, the subscriber is dropped:
its iteration ends and :attr:`Subscription.overflowed` is True; a listen stream then
ends, and the client re-listens and re-fetches. A relay subscribes with
``coalesce=False``: it hands each event on at once, and a burst that reached it while
its loop was busy is not thinned there (each 2025 session hears every event once).

:class:`BusRelay` is one process's side of a bus: it subscribes to the bus once and fans
each event out locally, to callbacks (a server's handshake-era sessions) and to the
``subscriptions/listen`` streams it opens on its own in-process hub, so a shared bus
(Redis) carries one subscription per process however many listeners there are.

The rest are pure helpers for ``subscriptions/listen`` frames: :func:`parse_listen_params`
(the ``notifications`` filter), :func:`honoured_filter` (what the server agrees to send),
:func:`acknowledgment` (always the first frame), :func:`event_notification` (every frame
tagged with ``io.modelcontextprotocol/subscriptionId``, the listen request's id) and
:func:`listen_closed_result` (the graceful end).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

import orjson

from mcpkit._loop import running_loop
from mcpkit.envelope import SUBSCRIPTION_ID_KEY, result_meta
from mcpkit.errors import McpError

__all__ = [
    "LISTEN_METHOD",
    "BusEvent",
    "BusRelay",
    "EventKind",
    "ListenFilter",
    "ListenStream",
    "MemoryBus",
    "NotificationBus",
    "Subscription",
    "acknowledgment",
    "announcing",
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
#: How many distinct events a relay's own subscription holds before it is dropped (then
#: every local listen stream ends, so its client re-listens and re-fetches).
RELAY_MAX_PENDING: Final = 100_000
#: How many local listen streams a relay hands an event to before it lets the loop run
#: (their frames, held for the end of the loop's turn, go out meanwhile).
FAN_OUT_SLICE: Final = 64

logger = logging.getLogger("mcpkit.bus")

#: The event a :class:`BusRelay` is handing to its sinks (None outside of that): the
#: tasks a sink starts to announce it inherit it, so a transport writing the notification
#: can tell which event (and which bus log entry) it announces.
announcing: contextvars.ContextVar[BusEvent | None] = contextvars.ContextVar(
    "mcpkit_bus_announcing", default=None
)


@dataclass(frozen=True, slots=True)
class BusEvent:
    """One change: a list changed (``kind`` tools/prompts/resources), or the resource at
    ``uri`` was updated (``kind`` resource_updated). ``audience``: the change concerns one
    caller only (a list its own rules changed, ``ctx.enable``/``ctx.disable``): only the
    listen streams opened with that audience receive it; None, every listener."""

    kind: EventKind
    uri: str | None = None
    audience: str | None = None
    #: The id of the log entry a shared bus received this event with (Redis: the bus
    #: stream's), else None; not part of the event's identity nor of its JSON.
    entry: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in _METHODS:
            raise ValueError(f"unknown event kind {self.kind!r}")
        if (self.kind == "resource_updated") != (self.uri is not None):
            raise ValueError("a uri is given exactly for resource_updated events")
        if self.audience is not None and type(self.audience) is not str:
            raise ValueError("an event's audience is a string")

    @classmethod
    def list_changed(
        cls, kind: Literal["tools", "prompts", "resources"], audience: str | None = None
    ) -> BusEvent:
        """The tools, prompts or resources list changed (for ``audience`` only, when
        given)."""
        return cls(kind, None, audience)

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
        if self.audience is None:
            return orjson.dumps({"kind": self.kind, "uri": self.uri})
        return orjson.dumps({"kind": self.kind, "uri": self.uri, "audience": self.audience})

    @classmethod
    def from_json(cls, data: bytes | str) -> BusEvent:
        """The inverse of :meth:`to_json`; ValueError for anything else."""
        try:
            obj = orjson.loads(data)
            return cls(obj["kind"], obj.get("uri"), obj.get("audience"))
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
    """The events of one subscriber, in order (coalesced unless ``coalesce`` is False);
    iterate with ``async for``."""

    def __init__(
        self,
        accept: Callable[[BusEvent], bool],
        max_pending: int,
        on_close: Callable[[Subscription], None],
        *,
        coalesce: bool = True,
    ) -> None:
        self._accept = accept
        self._max = max_pending
        self._pending: deque[BusEvent] = deque()
        #: The events waiting, when coalescing (None: every event is queued).
        self._waiting: set[BusEvent] | None = set() if coalesce else None
        self._wake = asyncio.Event()
        self._closed = False
        self._on_close = on_close
        #: True when the subscriber fell too far behind and was dropped.
        self.overflowed = False
        #: When set, an event arriving while none waits is handed to it at once, on the
        #: publisher's turn, instead of waking the iteration; it returns False to have the
        #: event queued as usual (its subscriber is busy, or cannot take more now).
        self.direct: Callable[[BusEvent], bool] | None = None

    @property
    def closed(self) -> bool:
        """True once closed (by the subscriber, the bus, or an overflow)."""
        return self._closed

    def _offer(self, event: BusEvent) -> None:
        if self._closed or not self._accept(event):
            return
        pending = self._pending
        waiting = self._waiting
        if not pending:
            direct = self.direct
            if direct is not None and direct(event):
                return
        elif waiting is not None and event in waiting:
            return
        if len(pending) >= self._max:
            self.overflowed = True
            self.close()
            return
        pending.append(event)
        if waiting is not None:
            waiting.add(event)
        self._wake.set()

    def close(self) -> None:
        """Stop receiving; a waiting iteration ends after the events already queued (none
        after an overflow)."""
        if self._closed:
            return
        self._closed = True
        if self.overflowed:
            self._pending.clear()
            if self._waiting is not None:
                self._waiting.clear()
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
        event = self._pending.popleft()
        if self._waiting is not None:
            self._waiting.discard(event)
        return event


class NotificationBus(Protocol):
    """What every bus offers."""

    async def publish(self, event: BusEvent) -> None:
        """Deliver ``event`` to every matching subscription (of every replica)."""

    def subscribe(
        self,
        accept: EventFilter = None,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        coalesce: bool = True,
    ) -> Subscription:
        """A new subscription receiving the events ``accept`` matches (None: all),
        coalescing the events still waiting unless ``coalesce`` is False."""

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
        self,
        accept: EventFilter = None,
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        coalesce: bool = True,
    ) -> Subscription:
        """A new subscription; ``accept`` is a :class:`ListenFilter`, a predicate or None
        (see :meth:`NotificationBus.subscribe`)."""
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
        sub = Subscription(predicate, max_pending, self._subs.discard, coalesce=coalesce)
        self._subs.add(sub)
        return sub

    def close_subscriptions(self) -> None:
        """Close every current subscription; the bus stays open."""
        for sub in list(self._subs):
            sub.close()

    async def aclose(self) -> None:
        """Close every subscription; later :meth:`subscribe` calls fail."""
        self._closed = True
        self.close_subscriptions()


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
    audience: str | None = None,
) -> ListenStream:
    """Serve a ``subscriptions/listen`` request with id ``subscription_id``: parse its
    filter (-32602), narrow it to what ``capabilities`` can send, and subscribe at once,
    so no event published after this call is missed. The stream receives the events for
    every listener and those for ``audience`` (its caller), when given."""
    honoured = honoured_filter(parse_listen_params(params), capabilities)
    matches = honoured.matches

    def accept(event: BusEvent) -> bool:
        return (event.audience is None or event.audience == audience) and matches(event)

    return ListenStream(subscription_id, honoured, bus.subscribe(accept, max_pending=max_pending))


Sink = Callable[[BusEvent], None]


class BusRelay:
    """This process's subscription to ``bus``, fanned out locally.

    :meth:`publish` puts an event on the bus (from any thread); the relay's one
    subscription receives every event (this process's and, on a shared bus, the other
    processes') and hands each to the ``sinks`` (plain callbacks, run on the relay's loop)
    and to the listen streams of :meth:`open_listen`. The relay runs on one event loop at a
    time: :meth:`start` (idempotent) binds it to the running loop, again on a new loop once
    the old one is gone; :meth:`stop` ends it.
    """

    def __init__(
        self,
        bus: NotificationBus,
        sinks: tuple[Sink, ...] = (),
        *,
        max_pending: int = RELAY_MAX_PENDING,
    ) -> None:
        self.bus = bus
        self.sinks = list(sinks)
        #: The in-process hub the local listen streams subscribe to.
        self.local = MemoryBus()
        self._max = max_pending
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sub: Subscription | None = None
        self._task: asyncio.Task[None] | None = None
        self._publishing: set[asyncio.Task[None]] = set()

    @property
    def running(self) -> bool:
        """True while the relay's subscription is being read on a live loop."""
        task = self._task
        return task is not None and not task.done()

    def start(self) -> None:
        """Subscribe (once) and fan out on the running loop; a no-op when already so."""
        loop = running_loop()
        if self._loop is loop and self.running:
            return
        self.stop()
        self._loop = loop
        try:
            self._sub = self.bus.subscribe(max_pending=self._max, coalesce=False)
        except RuntimeError as exc:  # the bus was closed: nothing will come
            logger.warning("Not relaying notifications: %s", exc)
            return
        self._task = loop.create_task(self._pump(), name="mcpkit-bus-relay")

    def stop(self) -> None:
        """End the subscription and every local listen stream (they end gracefully)."""
        task, sub = self._task, self._sub
        self._task = self._sub = None
        if sub is not None:
            with contextlib.suppress(RuntimeError):  # its loop may be gone
                sub.close()
        if task is not None and not task.done():
            with contextlib.suppress(RuntimeError):
                task.cancel()
        self.end_listens()

    def end_listens(self) -> None:
        """End every local listen stream (server shutdown): each ends gracefully."""
        with contextlib.suppress(RuntimeError):
            self.local.close_subscriptions()

    def open_listen(
        self,
        subscription_id: str | int,
        params: Any,
        capabilities: Mapping[str, Any],
        *,
        max_pending: int = DEFAULT_MAX_PENDING,
        audience: str | None = None,
    ) -> ListenStream:
        """A listen stream fed by this relay (see :func:`open_listen`); starts the relay."""
        self.start()
        return open_listen(
            self.local,
            subscription_id,
            params,
            capabilities,
            max_pending=max_pending,
            audience=audience,
        )

    def publish(self, event: BusEvent) -> None:
        """Put ``event`` on the bus, from the relay's loop or any other thread. With no
        loop to publish from (nothing served yet, outside any loop) it is dropped: no one
        in this process listens then."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        loop = self._loop
        if running is not None and (loop is None or loop is running or loop.is_closed()):
            self._publish_here(event, running)
        elif loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._publish_here, event, loop)
        elif isinstance(self.bus, MemoryBus):
            self.bus.publish_nowait(event)
        else:
            logger.debug("Not publishing %s: no event loop serves this process", event)

    def _publish_here(self, event: BusEvent, loop: asyncio.AbstractEventLoop) -> None:
        bus = self.bus
        if isinstance(bus, MemoryBus):
            bus.publish_nowait(event)
            return
        task = loop.create_task(bus.publish(event))
        self._publishing.add(task)
        task.add_done_callback(self._published)

    def _published(self, task: asyncio.Task[None]) -> None:
        self._publishing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("Publishing on the notification bus failed", exc_info=task.exception())

    async def _fan_out(self, event: BusEvent) -> None:
        # In slices: the writes of a slice go out while the next is handed its frames, so
        # the first listeners need not wait for the last, and the loop serves the rest of
        # the process between slices. Order per stream holds: the next event is taken only
        # once this one has reached every stream (one stream opened meanwhile misses it, as
        # if it had opened a moment later).
        subs = list(self.local._subs)
        for start in range(0, len(subs), FAN_OUT_SLICE):
            if start:
                await asyncio.sleep(0)
            for sub in subs[start : start + FAN_OUT_SLICE]:
                sub._offer(event)

    async def _pump(self) -> None:
        while (sub := self._sub) is not None:
            async for event in sub:
                token = announcing.set(event)
                try:
                    for sink in self.sinks:
                        try:
                            sink(event)
                        except Exception:
                            logger.exception("Notification sink failed on %s", event)
                finally:
                    announcing.reset(token)
                await self._fan_out(event)
            if not sub.overflowed or self._sub is not sub:
                break  # stopped, or the bus was closed
            logger.warning(
                "The notification relay fell more than %d events behind: listen streams "
                "end (their clients re-listen) and it subscribes again",
                self._max,
            )
            self.end_listens()
            try:
                self._sub = self.bus.subscribe(max_pending=self._max, coalesce=False)
            except RuntimeError:
                self._sub = None
        if self._sub is not None and self._sub.closed:
            self.end_listens()  # the bus closed under us: nothing more will come
