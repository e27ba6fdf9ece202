"""What the parts of the Streamable HTTP app read of the app they serve for: the POST path
(:mod:`~mcpkit.transports.http.post`), GET and DELETE (:mod:`.get_delete`), a 2025 session's
opening (:mod:`.session_open`), the stateless 2025 modes (:mod:`.stateless`), the modern wire
(:mod:`.modern_server`) and the 2024-11-05 HTTP+SSE transport (:mod:`.sse_2024_server`).

They are handed the app as an :class:`HttpApp` (a
:class:`~mcpkit.transports.http.server.StreamableHTTPApp` is one), so that none of them
imports the app, which imports them all.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mcpkit.asgi_types import Receive, Send
    from mcpkit.jsonrpc import RequestId
    from mcpkit.session import ServerSession
    from mcpkit.transports.base import Transport
    from mcpkit.transports.http.event_store import EventStore
    from mcpkit.transports.http.host import MemorySessionHost, SessionHost
    from mcpkit.transports.http.modern_server import DisconnectWatch, ModernRequestTransport
    from mcpkit.transports.http.options import HttpServerOptions
    from mcpkit.transports.http.served import ServedApp
    from mcpkit.transports.http.session_transport import HttpSessionTransport, SSEConnection
    from mcpkit.versions import ProtocolVersion

__all__ = ["HttpApp"]


class HttpApp(Protocol):
    """The Streamable HTTP app as its parts see it (see the module)."""

    @property
    def options(self) -> HttpServerOptions:
        """The settings the app serves with."""

    @property
    def session_factory(self) -> Callable[[Transport], ServerSession]: ...

    def served_app(self) -> ServedApp | None:
        """What the server serving the app handed it (None: a plain session factory)."""

    @property
    def served(self) -> ServedApp | None:
        """:meth:`served_app`, as an attribute (read on every stateless request)."""

    @property
    def shared(self) -> Any:
        """Where 2025 sessions are shared between replicas (None: in this process)."""

    @property
    def table(self) -> MemorySessionHost:
        """The sessions of this process."""

    @property
    def host(self) -> SessionHost:
        """Where sessions are held: :attr:`table`, or the shared table over it."""

    @property
    def event_store(self) -> EventStore | None: ...

    @property
    def supported_names(self) -> dict[str, ProtocolVersion]:
        """The revisions of the handshake era served, by name."""

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]: ...

    #: What :attr:`modern_versions` found (None: not looked up yet; read without the call).
    _modern_versions: tuple[ProtocolVersion, ...] | None

    @property
    def stateless(self) -> bool: ...

    @property
    def json_response(self) -> bool: ...
    @property
    def sdk_streams(self) -> bool: ...

    @property
    def modern_streams(self) -> set[ModernRequestTransport]: ...

    @property
    def disconnect_watch(self) -> DisconnectWatch: ...

    @property
    def shutting_down(self) -> bool: ...

    def close_streams(self) -> None:
        """End every open stream (at shutdown; new ones then end at once)."""

    def session_here(self, sid: str, posting: bool) -> HttpSessionTransport | None: ...

    async def session_of(
        self, sid: str, send: Send, rid: RequestId | None, posting: bool
    ) -> HttpSessionTransport | None: ...

    async def serve_requests(
        self,
        transport: HttpSessionTransport,
        msg: Any,
        ids: list[RequestId],
        receive: Receive,
        send: Send,
        extra_headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None: ...

    async def not_found(self, send: Send, rid: Any) -> None: ...

    def stream_sse(
        self,
        transport: HttpSessionTransport,
        conn: SSEConnection,
        headers: list[tuple[bytes, bytes]],
        receive: Receive,
        send: Send,
        watch: bool = False,
        hold: float = 0.0,
    ) -> Coroutine[Any, Any, None]: ...
