"""The session host of the Streamable HTTP app: what keeps 2025-era sessions alive between
requests.

A :class:`SessionHost` holds the sessions a process serves by id (get, register, forget,
iterate) and ends those left idle (reap). :class:`MemorySessionHost` is the table of one
process, with its reaper and the per-client session counts of ``max_sessions_per_client``;
the Redis shared session table (:class:`mcpkit.redis.SharedSessions`) implements the same
interface over this process's views of sessions that live in Redis.

Why this module sits in ``transports/http`` although the layer list of the design puts the
host above the engine: the Streamable HTTP app *is* the host over the HTTP transport (it
makes the sessions, keeps them and ends them), and its table holds the HTTP session
transports. Filed beside the app, the app imports nothing from a package above its own, and
the table depends only on the transport below it; the Redis table (a store's view of the
same host) imports it from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from typing import Protocol

from mcpkit.session import ServerSession
from mcpkit.transports.http.session_transport import HttpSessionTransport

__all__ = ["MemorySessionHost", "SessionHost", "end_session"]

logger = logging.getLogger("mcpkit.http")


class SessionHost(Protocol):
    """Where the sessions of a Streamable HTTP app are kept between requests."""

    def get(self, session_id: str, /) -> HttpSessionTransport | None:
        """The session with this id held here, or None."""
        ...

    def register(self, transport: HttpSessionTransport) -> None:
        """Hold ``transport``'s session under its id (idle ones are reaped from now on)."""
        ...

    def forget(self, transport: HttpSessionTransport) -> None:
        """Stop holding ``transport``'s session (it ended)."""
        ...

    def iterate(self) -> Iterator[HttpSessionTransport]:
        """Every session held here (a snapshot: ending sessions meanwhile is safe)."""
        ...

    async def reap(self) -> None:
        """End the sessions idle past their timeout."""
        ...


async def end_session(transport: HttpSessionTransport) -> None:
    """End a session: its server session closes (and with it the transport), else the
    transport alone."""
    sink = transport.sink
    if isinstance(sink, ServerSession):
        await sink.close()
    else:
        await transport.close()


class MemorySessionHost:
    """The sessions of one process, by id, with the reaper that ends idle ones.

    ``idle_timeout``: seconds a session may stay unused (None: forever);
    ``initialize_timeout``: seconds a session may stay with nothing after its
    ``initialize`` (None: only ``idle_timeout``).
    """

    #: The session with this id, or None (the table's own ``dict.get``: no call in between).
    get: Callable[[str], HttpSessionTransport | None]

    def __init__(
        self, *, idle_timeout: float | None = 1800.0, initialize_timeout: float | None = 45.0
    ) -> None:
        self.idle_timeout = idle_timeout
        self.initialize_timeout = initialize_timeout
        #: Open sessions by id.
        self.sessions: dict[str, HttpSessionTransport] = {}
        self.get = self.sessions.get
        #: Open sessions by client (principal, else remote address): ``max_sessions_per_client``.
        self.clients: dict[str, int] = {}
        self._reaper: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self.sessions)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self.sessions

    def register(self, transport: HttpSessionTransport) -> None:
        sid = transport.session_id
        if sid is None:
            raise ValueError("only a session with an id is held")
        self.sessions[sid] = transport
        self._ensure_reaper()

    def forget(self, transport: HttpSessionTransport) -> None:
        sid = transport.session_id
        if sid is not None and self.sessions.get(sid) is transport:
            del self.sessions[sid]
            client = transport.client_key
            if client is not None:
                self.release_client(client)

    def iterate(self) -> Iterator[HttpSessionTransport]:
        return iter(list(self.sessions.values()))

    # -- per-client counts ---------------------------------------------------------------------

    def client_count(self, client: str) -> int:
        """How many sessions ``client`` holds (or has begun to open)."""
        return self.clients.get(client, 0)

    def take_client(self, client: str) -> None:
        """Count one more session of ``client`` (given back by :meth:`release_client`)."""
        self.clients[client] = self.clients.get(client, 0) + 1

    def release_client(self, client: str) -> None:
        left = self.clients.get(client, 1) - 1
        if left > 0:
            self.clients[client] = left
        else:
            self.clients.pop(client, None)

    # -- reaping -------------------------------------------------------------------------------

    def _ensure_reaper(self) -> None:
        if self.idle_timeout is None and self.initialize_timeout is None:
            return
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap_loop())

    async def _reap_loop(self) -> None:
        timeouts = [t for t in (self.idle_timeout, self.initialize_timeout) if t]
        interval = min(max(min(timeouts, default=120.0) / 4, 0.05), 30.0)
        while self.sessions:
            await asyncio.sleep(interval)
            await self.reap()

    async def reap(self) -> None:
        timeout = self.idle_timeout
        pending = self.initialize_timeout
        if timeout is None and pending is None:
            return
        now = time.monotonic()
        cutoff = -1.0 if timeout is None else now - timeout
        # A session nothing followed its initialize (not even notifications/initialized)
        # ends soon: a flood of bare initializes does not hold the session table.
        pending_cutoff = cutoff if pending is None else max(cutoff, now - pending)
        for transport in list(self.sessions.values()):
            limit = cutoff if transport.established else pending_cutoff
            if transport.last_active < limit and transport.idle():
                logger.info(
                    "Session expired after %gs idle%s",
                    now - transport.last_active,
                    "" if transport.established else " (never used after initialize)",
                )
                await end_session(transport)

    async def aclose(self) -> None:
        """Stop reaping and end every session."""
        if self._reaper is not None:
            self._reaper.cancel()
            self._reaper = None
        for transport in list(self.sessions.values()):
            with contextlib.suppress(Exception):
                await end_session(transport)
