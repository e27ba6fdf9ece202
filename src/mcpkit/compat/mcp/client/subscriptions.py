"""``mcp.client.subscriptions`` on mcpkit (2.x): ``client.listen(...)`` opens a
``subscriptions/listen`` stream of the 2026-07-28 revision (mcpkit's client listener), whose
notifications come as typed change events (``ToolsListChanged``, ``PromptsListChanged``,
``ResourcesListChanged``, ``ResourceUpdated(uri)``), as on the official client: entering
waits for the acknowledgment; the events waiting to be read are deduplicated; a graceful
close by the server ends the loop, an abrupt drop raises :class:`SubscriptionLost`; no
replay (re-listen and refetch)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

from mcpkit.compat.mcp.shared.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
    event_from_wire,
    event_matches,
)
from mcpkit.errors import ConnectionClosed

__all__ = [
    "ListenNotSupportedError",
    "PromptsListChanged",
    "ResourceUpdated",
    "ResourcesListChanged",
    "ServerEvent",
    "Subscription",
    "SubscriptionLost",
    "ToolsListChanged",
    "listen",
]

_MODERN = ("2026-07-28",)


class ListenNotSupportedError(RuntimeError):
    """``subscriptions/listen`` requires a 2026-07-28 connection."""

    def __init__(self, negotiated_version: str | None) -> None:
        self.negotiated_version = negotiated_version
        super().__init__(
            f"subscriptions/listen is not available at protocol version "
            f"{negotiated_version!r}; it requires 2026-07-28. On earlier versions use "
            "subscribe_resource() and the change notifications delivered through "
            "message_handler."
        )


class SubscriptionLost(RuntimeError):
    """The stream ended without the server's graceful close; re-listen and refetch."""


class Subscription:
    """One open ``subscriptions/listen`` stream: an async iterator of typed events (made by
    ``client.listen(...)``, not constructed directly)."""

    def __init__(self, listener: Any) -> None:
        from mcpkit.compat.mcp.types import SubscriptionFilter

        self._listener = listener
        #: The listen request's JSON-RPC id, stamped into every frame's ``_meta``.
        self.subscription_id: Any = listener.subscription_id
        #: The subset of the requested filter the server agreed to deliver.
        self.honored: Any = SubscriptionFilter.model_validate(listener.acknowledged or {})
        self._uris = frozenset(self.honored.resource_subscriptions or ())
        self._pending: dict[ServerEvent, None] = {}
        self._wake = asyncio.Event()
        self._end: Literal["graceful", "lost"] | None = None
        self._pump = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        """Queue the listener's notifications as events (each at most once while it waits
        to be read), then how the stream ended."""
        async for note in self._listener:
            event = event_from_wire(note.method, note.params)
            if event is None or event in self._pending:
                continue
            if isinstance(event, ResourceUpdated):
                admitted = bool(self._uris)  # a sub-resource of a subscribed URI too
            else:
                admitted = event_matches(self.honored, self._uris, event)
            if admitted:
                self._pending[event] = None
                self._wake.set()
        request = self._listener._request
        failed = (
            request is not None
            and request.done()
            and not request.cancelled()
            and request.exception() is not None
        )
        self._end = "lost" if failed else "graceful"
        self._wake.set()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> ServerEvent:
        """The next change event; the loop ends when the stream does (SubscriptionLost when
        it dropped without the server's graceful close)."""
        while True:
            if self._pending:
                event = next(iter(self._pending))
                del self._pending[event]
                return event
            if self._end == "lost":
                raise SubscriptionLost(
                    f"subscription {self.subscription_id!r} ended without the server's "
                    "graceful close; re-listen and refetch"
                )
            if self._end is not None:
                raise StopAsyncIteration
            self._wake.clear()
            await self._wake.wait()

    async def _close(self) -> None:
        self._pump.cancel()
        with contextlib.suppress(BaseException):
            await self._pump


@contextlib.asynccontextmanager
async def listen(
    client: Any,
    *,
    tools_list_changed: bool = False,
    prompts_list_changed: bool = False,
    resources_list_changed: bool = False,
    resource_subscriptions: Sequence[str] = (),
) -> AsyncIterator[Subscription]:
    """Open one ``subscriptions/listen`` stream on ``client`` (2026-07-28 only): entering
    returns once the server acknowledged it, leaving ends it."""
    if client.protocol_version not in _MODERN:
        raise ListenNotSupportedError(client.protocol_version)
    if isinstance(resource_subscriptions, str):
        raise TypeError("resource_subscriptions takes a sequence of URIs, not a bare string")
    listener = client._client.listen(
        tools=tools_list_changed,
        prompts=prompts_list_changed,
        resource_list=resources_list_changed,
        resources=list(resource_subscriptions),
    )
    try:
        await listener.__aenter__()
    except ConnectionClosed as exc:
        raise SubscriptionLost(f"subscription ended before it was acknowledged: {exc}") from exc
    subscription = Subscription(listener)
    try:
        yield subscription
    finally:
        await subscription._close()
        await listener.aclose()
