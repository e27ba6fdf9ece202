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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpkit.client._util import http_transport
from mcpkit.client.era import http_target
from mcpkit.client.options import StdioOptions
from mcpkit.client.targets import Connection, Target, open_target
from mcpkit.errors import ConnectionClosed
from mcpkit.session import ClientSession

if TYPE_CHECKING:
    import httpx

__all__ = ["Connector"]


class Connector:
    """Opens ``target`` with ``stdio`` (a stdio server's options), ``headers``/``auth``/
    ``http_options`` (an HTTP server's)."""

    def __init__(
        self,
        target: Target,
        *,
        stdio: StdioOptions,
        headers: Mapping[str, str] | None,
        auth: httpx.Auth | None,
        http_options: Mapping[str, Any] | None,
    ) -> None:
        self.target = target
        self.stdio = stdio
        self.headers = headers
        self.auth = auth
        self.http_options = http_options
        #: The open connection (None before the first connect).
        self.conn: Connection | None = None
        #: The session on it (None while not connected).
        self.session: ClientSession | None = None
        self._stack = contextlib.AsyncExitStack()

    def new_session(
        self, install: Callable[[ClientSession], None], **options: Any
    ) -> ClientSession:
        """Open the target's connection (not started) and a session on it (``options``: of
        :class:`~mcpkit.session.ClientSession`), with ``install`` run on the session before
        anything is read."""
        stdio = self.stdio
        conn = self.conn = open_target(
            self.target,
            env=stdio.env,
            cwd=stdio.cwd,
            headers=self.headers,
            auth=self.auth,
            stderr=stdio.stderr,
            on_stderr=stdio.on_stderr,
            http_options=self.http_options,
        )
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
