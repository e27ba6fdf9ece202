"""Notification streams the client opts in to: ``subscriptions/listen`` (2026-07-28
basic/patterns/subscriptions), and the same interface over a legacy session.

```python
async with client.listen(tools=True, resources=["file:///a"]) as events:
    async for event in events:
        print(event.method, event.params)
```

On the modern wire :meth:`Listener.__aenter__` sends ``subscriptions/listen`` with the
filter and returns once ``notifications/subscriptions/acknowledged`` arrived (its
``notifications`` is :attr:`Listener.acknowledged`). Every notification of the stream
carries the listen request's id in ``_meta`` ``io.modelcontextprotocol/subscriptionId``;
:class:`Subscriptions` hands each to its listener (on stdio all streams share one
channel). Opening is serialized, so the first acknowledgment with an id nobody claimed
belongs to the listener being opened. Leaving the block cancels the request: on HTTP the
stream is closed, on stdio ``notifications/cancelled`` is sent. The iteration ends when the
server ends the subscription (its result to the listen request) or the connection closes.

On a legacy server the listener takes the session's notifications that match the filter,
after ``resources/subscribe`` for each URI of ``resources`` (``resources/unsubscribe`` on
leaving). Either way the client's hooks (``on_list_changed``, ``on_resource_updated``,
``auto_refresh``) see the notifications as they always do.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from mcpkit.envelope import SUBSCRIPTION_ID_KEY
from mcpkit.errors import ConnectionClosed

if TYPE_CHECKING:
    from types import TracebackType

    from mcpkit.jsonrpc import JSONObject

__all__ = ["ACKNOWLEDGED", "ListenEvent", "Listener", "Subscriptions", "listen_filter"]

ACKNOWLEDGED: Final = "notifications/subscriptions/acknowledged"
#: Filter field -> the notification it lets through.
_FILTER_METHODS: Final = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}
_UPDATED: Final = "notifications/resources/updated"
_END: Final[Any] = object()


@dataclass(frozen=True, slots=True)
class ListenEvent:
    """One notification of a listen stream."""

    method: str
    params: JSONObject

    @property
    def uri(self) -> str | None:
        """``params.uri`` of a ``notifications/resources/updated``."""
        uri = self.params.get("uri")
        return uri if isinstance(uri, str) else None


def listen_filter(
    *, tools: bool, prompts: bool, resource_list: bool, resources: Collection[str]
) -> JSONObject:
    """The ``notifications`` filter of a ``subscriptions/listen`` request."""
    out: JSONObject = {}
    if tools:
        out["toolsListChanged"] = True
    if prompts:
        out["promptsListChanged"] = True
    if resource_list:
        out["resourcesListChanged"] = True
    if resources:
        out["resourceSubscriptions"] = [str(uri) for uri in resources]
    return out


def _wanted(notifications: Mapping[str, Any], method: str, params: Mapping[str, Any]) -> bool:
    if method == _UPDATED:
        uris = notifications.get("resourceSubscriptions")
        return isinstance(uris, list) and params.get("uri") in uris
    return any(notifications.get(k) is True and m == method for k, m in _FILTER_METHODS.items())


class Listener:
    """An open notification stream; use as ``async with client.listen(...) as events``."""

    def __init__(
        self,
        subscriptions: Subscriptions,
        notifications: JSONObject,
        *,
        modern: bool,
        open_request: Callable[[JSONObject], Awaitable[Any]],
        subscribe: Callable[[str], Awaitable[None]] | None = None,
        unsubscribe: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self._subs = subscriptions
        #: The filter asked for.
        self.requested = notifications
        #: The filter the server agreed to (the acknowledgment's ``notifications``; on a
        #: legacy server what was asked for).
        self.acknowledged: JSONObject = {}
        #: The subscription id (the listen request's JSON-RPC id; None on a legacy server).
        self.subscription_id: Any = None
        self._modern = modern
        self._open_request = open_request
        self._subscribe = subscribe
        self._unsubscribe = unsubscribe
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._request: asyncio.Task[Any] | None = None
        self._subscribed: list[str] = []
        self._closed = False

    async def __aenter__(self) -> Listener:
        if not self._modern:
            await self._open_legacy()
            return self
        async with self._subs.opening:
            ack: asyncio.Future[tuple[Any, JSONObject]] = asyncio.get_running_loop().create_future()
            self._subs.pending = ack
            self._request = asyncio.ensure_future(
                self._open_request({"notifications": self.requested})
            )
            self._request.add_done_callback(self._ended)
            try:
                await asyncio.wait({ack, self._request}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                self._subs.pending = None
            if not ack.done():
                ack.cancel()
                await self._fail_open()
            self.subscription_id, self.acknowledged = ack.result()
            self._subs.active[self.subscription_id] = self
        return self

    def _ended(self, request: asyncio.Task[Any]) -> None:
        """The listen request finished: the server ended the stream, or the connection
        closed (its error is read here so that it is never reported as unretrieved)."""
        if not request.cancelled():
            request.exception()
        self._queue.put_nowait(_END)

    async def _fail_open(self) -> None:
        request = self._request
        assert request is not None
        error = None if request.cancelled() else request.exception()
        if error is not None:
            raise error
        raise ConnectionClosed("The server ended subscriptions/listen before acknowledging it")

    async def _open_legacy(self) -> None:
        self._subs.legacy.add(self)
        self.acknowledged = dict(self.requested)
        uris = self.requested.get("resourceSubscriptions") or []
        if self._subscribe is not None:
            for uri in uris:
                await self._subscribe(uri)
                self._subscribed.append(uri)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """End the stream (cancel the listen request; on a legacy server unsubscribe)."""
        if self._closed:
            return
        self._closed = True
        self._subs.active.pop(self.subscription_id, None)
        self._subs.legacy.discard(self)
        if self._request is not None and not self._request.done():
            self._request.cancel()
            with contextlib.suppress(BaseException):
                await self._request
        if self._unsubscribe is not None:
            for uri in self._subscribed:
                with contextlib.suppress(Exception):
                    await self._unsubscribe(uri)
        self._queue.put_nowait(_END)

    def deliver(self, method: str, params: JSONObject) -> None:
        """Queue one notification of this stream."""
        if not self._closed:
            self._queue.put_nowait(ListenEvent(method, params))

    def __aiter__(self) -> Listener:
        return self

    async def __anext__(self) -> ListenEvent:
        item = await self._queue.get()
        if item is _END:
            self._queue.put_nowait(_END)  # later calls end too
            raise StopAsyncIteration
        assert isinstance(item, ListenEvent)
        return item


class Subscriptions:
    """The client's open listeners, and the router of incoming notifications to them."""

    def __init__(self) -> None:
        self.active: dict[Any, Listener] = {}
        self.legacy: set[Listener] = set()
        self.opening = asyncio.Lock()
        self.pending: asyncio.Future[tuple[Any, JSONObject]] | None = None

    def route(self, method: str, params: JSONObject | None) -> None:
        """Hand one incoming notification to the listener(s) it belongs to."""
        body = params if isinstance(params, dict) else {}
        meta = body.get("_meta")
        sid = meta.get(SUBSCRIPTION_ID_KEY) if isinstance(meta, dict) else None
        if method == ACKNOWLEDGED:
            pending = self.pending
            if (
                sid is not None
                and sid not in self.active
                and pending is not None
                and not pending.done()
            ):
                granted = body.get("notifications")
                pending.set_result((sid, granted if isinstance(granted, dict) else {}))
            return
        if sid is not None and sid in self.active:
            self.active[sid].deliver(method, body)
            return
        for listener in (*self.active.values(), *self.legacy):
            if sid is None and _wanted(listener.acknowledged, method, body):
                listener.deliver(method, body)

    def close_all(self) -> None:
        """The connection ended: end every stream."""
        for listener in (*self.active.values(), *self.legacy):
            listener._queue.put_nowait(_END)
