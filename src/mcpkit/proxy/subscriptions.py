"""Resource subscriptions a proxy holds on its shared upstream connection, counted.

The clients without an upstream session of their own (2026-07-28 clients' listen streams,
handshake-era clients sharing the connection, a parent server of a mounted proxy) all
subscribe through the shared connection: :class:`SharedSubscriptions` subscribes upstream
for the first holder of a URI and unsubscribes after the last one; the updates reach the
proxy's bus.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Collection, Container, Iterable
from typing import Any, Protocol

from mcpkit.bus import BusEvent
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject

__all__ = ["SharedSubscriptions", "Subscriber", "deliver", "uri_param"]


class Subscriber(Protocol):
    """What the subscriptions need of the shared connection (a :class:`~mcpkit.client.Client`)."""

    @property
    def connected(self) -> bool: ...

    @property
    def modern(self) -> bool: ...

    def supports(self, *path: str) -> bool: ...

    async def subscribe_resource(self, uri: str) -> None: ...

    async def unsubscribe_resource(self, uri: str) -> None: ...


class SharedSubscriptions:
    """Counted subscriptions on the connection ``main()`` returns (None: not connected)."""

    def __init__(self, main: Callable[[], Subscriber | None]) -> None:
        self._main = main
        self._held: dict[str, int] = {}

    async def retain(self, uri: str) -> None:
        """One more holder of ``uri``: subscribed upstream for the first."""
        count = self._held.get(uri, 0)
        self._held[uri] = count + 1
        if count == 0:
            main = self._main()
            if main is None:
                self._held.pop(uri, None)
                raise ConnectionClosed("The proxy is not running (use `async with app.running():`)")
            if main.supports("resources", "subscribe") or main.modern:
                try:
                    await main.subscribe_resource(uri)
                except McpError:
                    self._held.pop(uri, None)
                    raise

    async def release(self, uri: str) -> None:
        """One holder of ``uri`` fewer: unsubscribed upstream after the last."""
        count = self._held.get(uri, 0) - 1
        if count > 0:
            self._held[uri] = count
            return
        self._held.pop(uri, None)
        main = self._main()
        if main is not None and main.connected:
            with contextlib.suppress(McpError, ConnectionClosed):
                await main.unsubscribe_resource(uri)

    @contextlib.asynccontextmanager
    async def hold(self, uris: Collection[str]) -> AsyncIterator[None]:
        """Hold ``uris`` for the duration of the block."""
        retained: list[str] = []
        try:
            for uri in uris:
                await self.retain(uri)
                retained.append(uri)
            yield
        finally:
            for uri in retained:
                await self.release(uri)


def uri_param(params: JSONObject | None) -> str:
    """The ``uri`` of a ``resources/subscribe`` or ``resources/unsubscribe``."""
    uri = (params or {}).get("uri")
    if not isinstance(uri, str):
        raise McpError(INVALID_PARAMS, "'uri' must be a string")
    return uri


def deliver(event: BusEvent, sessions: Iterable[Any], owned: Container[Any]) -> None:
    """A change the shared connection heard, to the handshake-era ``sessions`` that have no
    upstream of their own (not in ``owned``): a resource update to its subscribers, a list
    change to every operating one."""
    for session in list(sessions):
        if session.era == "modern" or session in owned:
            continue
        if event.uri is not None:
            if event.uri in session.subscriptions:
                params: JSONObject = {"uri": event.uri}
                session.call_soon(lambda s=session, p=params: s.send_quietly(event.method, p))
        elif session.operating:
            session.call_soon(lambda s=session: s.send_quietly(event.method))
