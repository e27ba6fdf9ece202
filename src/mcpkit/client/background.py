"""A :class:`~mcpkit.Client`'s own listen stream on the 2026-07-28 wire.

The stateless wire has no ``resources/subscribe`` and sends list changes only on a
``subscriptions/listen`` stream. So the client keeps one stream of its own in the
background: for the resource URIs subscribed with ``subscribe_resource``, and for the lists
whose changes its hooks (``on_list_changed``) or ``auto_refresh`` wait for. Every change of
either reopens it with the new filter; what it carries reaches the client's hooks, as a
handshake-era session's notifications do.

:class:`Subscribing` is the part of :class:`~mcpkit.Client` that offers notifications on
demand: :meth:`~Subscribing.listen` streams and ``subscribe_resource`` /
``unsubscribe_resource``, on either era.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from typing import TYPE_CHECKING, Any

from mcpkit.client.listen import Listener, Subscriptions, listen_filter
from mcpkit.client.state import ConnectionState
from mcpkit.errors import McpError
from mcpkit.jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.client.calls import Calls
    from mcpkit.client.modern import ModernWire
    from mcpkit.session import ClientSession

__all__ = ["BackgroundListen", "Subscribing", "open_listener"]

logger = logging.getLogger("mcpkit.client")

#: Opens a listener: (tools, prompts, resource_list, resources) -> Listener.
OpenListener = Callable[[bool, bool, bool, Collection[str]], Listener]


class BackgroundListen:
    """The background listen stream of one client; ``open_listener`` makes a
    :class:`~mcpkit.client.listen.Listener`, ``spawn`` runs a coroutine in the client's
    background."""

    def __init__(
        self, open_listener: OpenListener, spawn: Callable[[Awaitable[Any]], None]
    ) -> None:
        self._open = open_listener
        self._spawn = spawn
        self.listener: Listener | None = None
        #: The resource URIs subscribed.
        self.uris: list[str] = []
        #: The lists whose changes are listened for (``tools``, ``prompts``, ``resources``).
        self.lists: frozenset[str] = frozenset()

    def clear(self) -> None:
        """Forget the stream (the connection closed)."""
        self.listener = None
        self.uris = []
        self.lists = frozenset()

    async def subscribe(self, uri: str) -> None:
        """Listen for the updates of ``uri`` too."""
        if uri not in self.uris:
            await self.relisten([*self.uris, uri])

    async def unsubscribe(self, uri: str) -> None:
        """Stop listening for the updates of ``uri``."""
        await self.relisten([u for u in self.uris if u != uri])

    async def relisten(self, uris: list[str]) -> None:
        """(Re)open the stream: for ``uris``, and the lists listened for."""
        old, self.listener = self.listener, None
        if old is not None:
            await old.aclose()
        self.uris = uris
        lists = self.lists
        if uris or lists:
            listener = self._open("tools" in lists, "prompts" in lists, "resources" in lists, uris)
            await listener.__aenter__()
            self.listener = listener
            self._spawn(_drain(listener))

    async def listen_for_hooks(self, server_capabilities: JSONObject) -> None:
        """Open the stream for the lists the server announces changes of (the hooks or
        ``auto_refresh`` want them); a server that refuses is logged, not raised."""
        caps = server_capabilities
        self.lists = frozenset(
            kind
            for kind in ("tools", "prompts", "resources")
            if isinstance(caps.get(kind), dict) and caps[kind].get("listChanged") is True
        )
        if not self.lists:
            return
        try:
            await self.relisten([])
        except McpError as exc:
            logger.warning("Could not listen for list changes: %s", exc)


class Subscribing(ConnectionState):
    """Listen streams and resource subscriptions of :class:`~mcpkit.Client` (a base of the
    client): ``resources/subscribe`` on a handshake-era session, the client's background
    listen stream on the 2026-07-28 wire."""

    _subscriptions: Subscriptions
    _background: BackgroundListen
    _calls: Calls

    async def subscribe_resource(self, uri: str) -> None:
        """Ask for ``notifications/resources/updated`` when ``uri`` changes (they reach
        ``on_resource_updated``). On the modern wire this (re)opens a background
        ``subscriptions/listen`` for every subscribed URI."""
        if self._wire is None:
            await self._calls.empty("resources/subscribe", {"uri": str(uri)})
        else:
            await self._background.subscribe(str(uri))

    async def unsubscribe_resource(self, uri: str) -> None:
        """Stop the updates for ``uri``."""
        if self._wire is None:
            await self._calls.empty("resources/unsubscribe", {"uri": str(uri)})
        else:
            await self._background.unsubscribe(str(uri))

    def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resource_list: bool = False,
        resources: Collection[str] = (),
    ) -> Listener:
        """A notification stream: ``async with c.listen(tools=True) as events: async for ev
        in events: ...`` (see :mod:`mcpkit.client.listen`).

        ``tools``/``prompts``/``resource_list``: the list-changed notifications of that list;
        ``resources``: ``notifications/resources/updated`` of these URIs. On the modern wire
        a ``subscriptions/listen`` request (entering waits for its acknowledgment); on a
        legacy server the session's notifications (and ``resources/subscribe``)."""
        return self._open_listener(tools, prompts, resource_list, resources)

    def _open_listener(
        self, tools: bool, prompts: bool, resource_list: bool, resources: Collection[str]
    ) -> Listener:
        can_subscribe = (
            bool(resources) and self._wire is None and self.supports("resources", "subscribe")
        )
        return open_listener(
            self._subscriptions,
            self.session,
            self._wire,
            listen_filter(
                tools=tools, prompts=prompts, resource_list=resource_list, resources=resources
            ),
            subscribe=self.subscribe_resource if can_subscribe else None,
            unsubscribe=self.unsubscribe_resource if can_subscribe else None,
        )


async def _drain(listener: Listener) -> None:
    """Consume a background listener (its notifications reach the hooks anyway)."""
    async for _ in listener:
        pass


def open_listener(
    subscriptions: Subscriptions,
    session: ClientSession,
    wire: ModernWire | None,
    notifications: JSONObject,
    *,
    subscribe: Callable[[str], Awaitable[None]] | None = None,
    unsubscribe: Callable[[str], Awaitable[None]] | None = None,
) -> Listener:
    """A listener of ``notifications`` (a :func:`~mcpkit.client.listen.listen_filter`) on
    ``session``: a ``subscriptions/listen`` request on the 2026-07-28 ``wire``, else the
    session's notifications (``subscribe``/``unsubscribe`` for its resource URIs)."""
    if wire is None:
        return Listener(
            subscriptions,
            notifications,
            modern=False,
            open_request=_never_sent,
            subscribe=subscribe,
            unsubscribe=unsubscribe,
        )

    async def open_request(params: JSONObject) -> Any:
        return await session.request("subscriptions/listen", wire.wrap(params), timeout=None)

    return Listener(subscriptions, notifications, modern=True, open_request=open_request)


async def _never_sent(params: JSONObject) -> Any:
    raise AssertionError("a legacy listener sends no subscriptions/listen")
