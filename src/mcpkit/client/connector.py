"""The connection under a :class:`~mcpkit.Client`: its target opened as a transport, the
session on it, and (in memory) the server it runs.

:class:`Connector` turns the client's target into a connection
(:func:`~mcpkit.client.targets.open_target`: a stdio process, an HTTP endpoint, an
in-memory server) with the client's connection
options, makes the :class:`~mcpkit.session.ClientSession` on it, starts both (an in-memory
server's lifespan spans the connection) and closes them again. Choosing the era and the
first exchange are :mod:`mcpkit.client.opening`'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from mcpkit.client._util import http_transport
from mcpkit.client.era import http_target
from mcpkit.errors import ConnectionClosed
from mcpkit.session import ClientSession

if TYPE_CHECKING:
    from mcpkit.transports.base import Transport

__all__ = ["Connector", "OpenedTarget"]


class OpenedTarget(Protocol):
    """A target made a connection (:class:`mcpkit.client.targets.Connection`)."""

    transport: Transport
    server: Any  # an in-memory mcpkit Server, else None
    server_session: Any  # its session on the other end, else None

    @property
    def server_url(self) -> str | None: ...

    def explain_failure(self, exc: BaseException) -> BaseException | None: ...


class Connector:
    """The connection of ``target``, made by ``opener`` (the target's
    :func:`~mcpkit.client.targets.open_target` with the client's connection options)."""

    def __init__(self, target: Any, opener: Callable[[], OpenedTarget]) -> None:
        self.target = target
        self._opener = opener
        #: The open connection (None before the first connect).
        self.conn: OpenedTarget | None = None
        #: The session on it (None while not connected).
        self.session: ClientSession | None = None
        self._stack = contextlib.AsyncExitStack()

    def new_session(
        self, install: Callable[[ClientSession], None], **options: Any
    ) -> ClientSession:
        """Open the target's connection (not started) and a session on it (``options``: of
        :class:`~mcpkit.session.ClientSession`), with ``install`` run on the session before
        anything is read."""
        conn = self.conn = self._opener()
        session = self.session = ClientSession(conn.transport, **options)
        install(session)
        return session

    async def start(self) -> None:
        """Start the in-memory server (its lifespan first), then the session's transport."""
        conn, session = self.conn, self.session
        assert conn is not None and session is not None
        if conn.server is not None:  # an mcpkit Server: its lifespan spans the connection
            await self._stack.enter_async_context(conn.server.running())
        if conn.server_session is not None:
            await conn.server_session.start()
        try:
            await session.start()
        except OSError as exc:
            raise ConnectionClosed(f"Could not connect to the server: {exc}") from exc

    def explain(self, exc: BaseException) -> BaseException | None:
        """A clearer error for a failure to connect (a stdio server that exited, ...)."""
        return self.conn.explain_failure(exc) if self.conn is not None else None

    async def close(self) -> None:
        """Close the session, the in-memory server's session and its lifespan."""
        session, self.session = self.session, None
        if session is not None:
            await session.close()
        conn = self.conn
        if conn is not None and conn.server_session is not None:
            await conn.server_session.close()
        stack, self._stack = self._stack, contextlib.AsyncExitStack()
        await stack.aclose()

    @property
    def server_url(self) -> str | None:
        """The server's URL when it is remote (HTTP), else None."""
        return self.conn.server_url if self.conn is not None else None

    def http(self) -> Any:
        """The HTTP client transport (None on stdio and in memory)."""
        return http_transport(self.conn.transport if self.conn is not None else None)

    def unread_input(self) -> Any:
        """What a stdio transport read before the session did (its probe answer)."""
        return getattr(self.conn.transport, "unread_input", None) if self.conn else None

    def memo_key(self) -> str | None:
        """The target as :data:`~mcpkit.client.opening.ERA_MEMO` knows it: the origin of an
        HTTP server, a stdio server's command line; None for other targets."""
        url = self.server_url
        if url is not None:
            return http_target(url)
        if isinstance(self.target, str):
            return self.target
        if isinstance(self.target, list | tuple):
            return " ".join(str(part) for part in self.target)
        return None
