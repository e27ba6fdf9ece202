"""What a :class:`~mcpkit.server.app.Server` hands the Streamable HTTP app serving it: the
:class:`~mcpkit.transports.http.served.ServedApp` of the server (its stateless revisions,
its tools' header parameters, and sessions copied from its prototypes by
:mod:`mcpkit.server.request_sessions`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from mcpkit.server import request_sessions as sessions
from mcpkit.server.request_sessions import PrototypedServer

if TYPE_CHECKING:
    from mcpkit.http_headers import HeaderParam
    from mcpkit.server.session import AppSession
    from mcpkit.server.tools import ToolRegistry
    from mcpkit.transports.base import Transport
    from mcpkit.versions import ProtocolVersion

__all__ = ["ServedServer", "ServerServedApp"]


class ServedServer(PrototypedServer["AppSession"], Protocol):
    """What :class:`ServerServedApp` reads of the server it serves (a
    :class:`~mcpkit.server.core.ServerCore` is one)."""

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]: ...

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def sessions(self) -> set[AppSession]: ...


class ServerServedApp:
    """The :class:`~mcpkit.transports.http.served.ServedApp` of ``server``."""

    __slots__ = ("_own_session", "server", "sessionless_context", "sessionless_response")

    def __init__(self, server: ServedServer, own_session: Callable[..., Any]) -> None:
        """``own_session``: the server class's ``session`` function (a session factory that
        is it, bound to ``server``, makes the sessions this app copies)."""
        self.server = server
        self._own_session = own_session
        #: ``sessionless_context(rid, method, params, version=None)``: bound once, so the
        #: quick path of a stateless request takes no extra frame.
        self.sessionless_context: Callable[..., Any] = functools.partial(
            sessions.sessionless_context, server
        )
        #: ``sessionless_response(rid, method, params, version=None)``, bound the same way.
        self.sessionless_response: Callable[..., Any] = functools.partial(
            sessions.sessionless, server, True
        )

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]:
        return self.server.modern_versions

    def made_by(self, factory: object) -> bool:
        return (
            getattr(factory, "__func__", None) is self._own_session
            and getattr(factory, "__self__", None) is self.server
        )

    def tool_header_params(self, name: object) -> tuple[HeaderParam, ...] | None:
        if type(name) is not str:
            return None
        entry = self.server.tools.tools.get(name)
        if entry is None:
            return None
        found: tuple[HeaderParam, ...] | None = entry.header_params()
        return found

    def open_session(self, transport: Transport) -> AppSession:
        # A copy of the prototype of new sessions, started in place (what AppSession.start
        # does: its handler table was checked as it was copied).
        session = sessions.new_session(self.server, transport)
        self.server.sessions.add(session)
        return session

    def stateless_session(self, transport: Transport, version: ProtocolVersion) -> AppSession:
        session = sessions.legacy_request_session(self.server, transport, version)
        self.server.sessions.add(session)
        return session

    def request_session(self, transport: Transport) -> AppSession:
        session = sessions.modern_request_session(self.server, transport)
        self.server.sessions.add(session)
        return session

    async def finish_request(self, session: Any) -> None:
        if session._background:
            await session.close()
