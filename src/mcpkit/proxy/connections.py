"""The upstream connections of one :class:`~mcpkit.proxy.server.ProxyServer`.

:class:`Upstreams` holds them and decides which one serves a request:

- the shared connection (:attr:`Upstreams.main`), opened when the proxy starts and opened
  again when the upstream closes it;
- each handshake-era client's own upstream session (:meth:`Upstreams.open_for`), at most
  ``max_upstreams`` at once: the least recently used idle one is reclaimed for a new one
  (idle ones are also closed in the background), :class:`~mcpkit.errors.Overloaded`
  when none is idle; the two ends of such a session close together;
- the pool leased to 2026-07-28 calls of a handshake-era upstream
  (:meth:`Upstreams.lease`, :meth:`Upstreams.give_back`), at most ``pool_size`` at once.

What a connection is made of (its :class:`~mcpkit.proxy.upstream.Link`, its client) and
what the proxy learns from the shared one are the proxy's: it passes them in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from mcpkit.errors import ConnectionClosed, McpError, Overloaded, TransportError
from mcpkit.jsonrpc import INTERNAL_ERROR
from mcpkit.proxy.upstream import Link

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.client.client import Era
    from mcpkit.server.session import AppSession, ServerRequestContext

__all__ = ["Pair", "Upstreams"]

logger = logging.getLogger("mcpkit.proxy")

#: An upstream connection and what ties it to the clients it serves.
Pair = tuple["Client", Link]
#: ``link(session, shared)``: the Link of a new connection.
LinkMaker = Callable[["AppSession | None", bool], Link]
#: ``client(link, capabilities, era)``: a new (unconnected) upstream client.
ClientMaker = Callable[[Link, "Mapping[str, Any] | None", "Era | None"], "Client"]


class Upstreams:
    """The upstream connections of one proxy; see the module docstring. ``connected`` is
    awaited with the shared connection each time it opens (what the proxy learns of the
    upstream)."""

    def __init__(
        self,
        *,
        link: LinkMaker,
        client: ClientMaker,
        connected: Callable[[Client], Awaitable[None]],
        pool_size: int,
        max_upstreams: int,
        idle_timeout: float,
    ) -> None:
        self._make_link = link
        self._make_client = client
        self._connected = connected
        self.pool_size = pool_size
        self.max_upstreams = max_upstreams
        self.idle_timeout = idle_timeout
        #: The shared connection (None while the proxy is not running).
        self.main: Client | None = None
        self.main_link: Link | None = None
        #: Whether the proxy runs (requests may be forwarded).
        self.open = False
        #: One client only (stdio): the shared connection is that client's own.
        self.single = False
        #: Each handshake-era client's own upstream connection.
        self.owned: dict[AppSession, Pair] = {}
        #: The log level each handshake-era client set.
        self.levels: dict[AppSession, str] = {}
        self._main_claimed = False
        self._main_lock: asyncio.Lock | None = None
        #: When each client's own upstream connection last forwarded a request.
        self._used: dict[AppSession, float] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._idle: list[Pair] = []
        self._leased = 0
        self._pool_waiters: list[asyncio.Future[None]] = []
        self._background: set[asyncio.Task[Any]] = set()
        self._watchers: set[asyncio.Task[Any]] = set()

    # -- background work ------------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background; :meth:`close` waits for it."""
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def watch(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` until it ends or :meth:`close` cancels it."""
        watcher = asyncio.get_running_loop().create_task(coro)
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    # -- the shared connection ------------------------------------------------------------------

    async def connect(self) -> None:
        """Open the shared connection (the proxy starts)."""
        link = self._make_link(None, True)
        client = self._make_client(link, None, None)
        await client.connect()
        self.main, self.main_link, self._main_claimed = client, link, False
        await self._connected(client)
        if not client.modern:
            # The first connection leased to a 2026-07-28 call (a stdio upstream's state,
            # such as the tools it registered, is that process's own).
            self._idle.append((client, link))
        if not client.modern and client.supports("logging"):
            # The shared connection hears everything; each client's own level filters.
            with contextlib.suppress(McpError):
                await client.set_logging_level("debug")

    async def _reconnect(self, lost: Client) -> None:
        """Open the shared connection again after the upstream closed it (a server that
        exited or restarted); -32603 for the request when that fails too."""
        if self._main_lock is None:
            self._main_lock = asyncio.Lock()
        async with self._main_lock:
            if self.main is not lost:
                return  # someone else reconnected
            self._idle[:] = [pair for pair in self._idle if pair[0] is not lost]
            self.spawn(lost.close())
            logger.warning("The upstream server closed the shared connection: reconnecting")
            try:
                await self.connect()
            except (TransportError, McpError, OSError) as exc:
                raise McpError(
                    INTERNAL_ERROR, f"Could not reconnect to the upstream server: {exc}"
                ) from None

    async def close(self) -> None:
        """Close every upstream connection (the proxy stops)."""
        self.open = False
        reaper, self._reaper = self._reaper, None
        if reaper is not None:
            reaper.cancel()
        self._used.clear()
        clients: list[Client] = [c for c, _ in self.owned.values()]
        clients += [c for c, _ in self._idle]
        if self.main is not None:
            clients.append(self.main)
        clients = list({id(c): c for c in clients}.values())
        self.owned.clear()
        self._idle.clear()
        self.main = self.main_link = None
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        # Closings under way (sessions that just ended) finish; watchers of sessions still
        # open are cancelled, their upstreams closed above.
        for task in list(self._watchers):
            task.cancel()
        if self._background:
            await asyncio.wait(list(self._background), timeout=10)

    async def of(self, rctx: ServerRequestContext) -> Pair:
        """The connection serving a request of a handshake-era client: its own, else the
        shared one (opened again if the upstream closed it)."""
        session = rctx.session
        owned = self.owned.get(session)
        if owned is not None:
            self._used[session] = asyncio.get_running_loop().time()
            return owned
        main, link = self.main, self.main_link
        if main is None or link is None or not self.open:
            raise McpError(INTERNAL_ERROR, "The proxy is not connected to its upstream server")
        if not main.connected and not link.session:
            await self._reconnect(main)
            main, link = self.main, self.main_link
            assert main is not None and link is not None
        return main, link

    # -- each handshake-era client's own --------------------------------------------------------

    async def open_for(self, session: AppSession) -> Pair:
        """The handshake-era upstream session of a handshake-era client (its capabilities)."""
        if self.single and not self._main_claimed and self.main is not None:
            assert self.main_link is not None
            self._main_claimed = True
            self.main_link.session = session
            pair = (self.main, self.main_link)
            if pair in self._idle:
                self._idle.remove(pair)
            self.watch(self._close_with(session, self.main))
            if "roots" in session.client_capabilities:
                with contextlib.suppress(McpError, ConnectionClosed):
                    await self.main.session.notify("notifications/roots/list_changed")
        else:
            await self._make_room()
            link = self._make_link(session, False)
            client = self._make_client(link, session.client_capabilities, "legacy")
            try:
                await client.connect()
            except (TransportError, McpError, OSError) as exc:
                raise McpError(
                    INTERNAL_ERROR, f"Could not connect to the upstream server: {exc}"
                ) from None
            pair = (client, link)
            self.watch(self._close_with(session, client))
        self.owned[session] = pair
        self._used[session] = asyncio.get_running_loop().time()
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap())
        return pair

    def own_count(self) -> int:
        """How many upstream connections clients hold of their own."""
        return sum(1 for client, _ in self.owned.values() if client is not self.main)

    async def _make_room(self) -> None:
        """Room for one more upstream connection of a client's own: the least recently
        used idle one is reclaimed when all are taken; Overloaded when none is idle."""
        if self.own_count() < self.max_upstreams:
            return
        now = asyncio.get_running_loop().time()
        idle = [(used, s) for s, used in self._used.items() if self._idle_since(s, used, now)]
        if idle:
            await self._reclaim(min(idle, key=lambda pair: pair[0])[1])
            return
        raise Overloaded(
            f"Server overloaded: all {self.max_upstreams} upstream connections of this proxy "
            "are in use by other clients; try again later",
            {"retryAfterMs": int(min(self.idle_timeout, 30.0) * 1000)},
        )

    def _idle_since(self, session: AppSession, used: float, now: float) -> bool:
        """Whether ``session``'s own upstream is reclaimable: unused for ``idle_timeout``
        and no request of the client is being served."""
        return now - used >= self.idle_timeout and session in self.owned and not session._in_flight

    def _forget(self, session: AppSession) -> Pair | None:
        self._used.pop(session, None)
        self.levels.pop(session, None)
        return self.owned.pop(session, None)

    async def _reclaim(self, session: AppSession) -> None:
        """Close an idle client's session and with it its upstream connection."""
        pair = self._forget(session)
        logger.info("Closing an upstream connection idle for %gs", self.idle_timeout)
        if pair is not None and pair[0] is not self.main:
            self.spawn(pair[0].close())
        if not session.closed:
            await session.close()

    async def _reap(self) -> None:
        """Close the clients' own upstream connections idle for ``idle_timeout``."""
        loop = asyncio.get_running_loop()
        while self.owned:
            await asyncio.sleep(self.idle_timeout / 2)
            now = loop.time()
            for session, used in list(self._used.items()):
                if self._idle_since(session, used, now):
                    with contextlib.suppress(Exception):
                        await self._reclaim(session)

    async def _close_with(self, session: AppSession, client: Client) -> None:
        """The two ends of a client's own upstream session end together: the client gone,
        its upstream session closes; the upstream gone (a server that exited), the
        client's session closes (its state is gone with it)."""
        ends = [
            asyncio.ensure_future(session.wait_closed()),
            asyncio.ensure_future(client.session.wait_closed()),
        ]
        try:
            await asyncio.wait(ends, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for end in ends:
                end.cancel()
        self._forget(session)
        self.spawn(client.close())
        if not session.closed:
            logger.warning("The upstream session of a client ended: closing that client's")
            self.spawn(session.close())

    # -- the pool of 2026-07-28 calls -----------------------------------------------------------

    async def lease(self) -> Pair:
        """An upstream connection of the pool for one 2026-07-28 call (waits while
        ``pool_size`` are leased)."""
        while not self._idle and self._leased >= self.pool_size:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._pool_waiters.append(waiter)
            await waiter
        self._leased += 1
        while self._idle:
            client, link = self._idle.pop()
            if client.connected:
                return client, link
            self.spawn(client.close())
        link = self._make_link(None, False)
        client = self._make_client(link, None, "legacy")
        try:
            await client.connect()
        except BaseException:
            self.give_back(None)
            raise
        return client, link

    def give_back(self, pair: Pair | None) -> None:
        """The end of a lease (None: the connection could not be opened)."""
        self._leased -= 1
        if pair is not None:
            pair[1].call = None
            if self.open and pair[0].connected:
                self._idle.append(pair)
            else:
                self.spawn(pair[0].close())
        while self._pool_waiters:
            waiter = self._pool_waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)
                break
