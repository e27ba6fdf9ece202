"""What a server hands the Streamable HTTP app that serves it: :class:`ServedApp`.

The app needs a few facts of the served server (the stateless revisions it speaks, the
``Mcp-Param-*`` headers of its tools) and its request-session maker (sessions made from the
server's prototypes, cheaper than ``session_factory``). The server provides them through this
small interface, so the transport never imports the server package: a session factory that is
a server's own ``session`` method is recognized by :class:`ServedAppSource`, and any other
factory is served through ``session_factory`` alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from mcpkit.http_headers import HeaderParam
    from mcpkit.jsonrpc import JSONObject
    from mcpkit.session import ServerSession
    from mcpkit.transports.base import Transport
    from mcpkit.versions import ProtocolVersion

__all__ = ["ServedApp", "ServedAppSource", "served_by_factory", "served_by_session"]


class ServedApp(Protocol):
    """The facts and the request-session maker of a served server."""

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]:
        """The stateless revisions served (empty: handshake era only)."""
        ...

    def tool_header_params(self, name: object) -> tuple[HeaderParam, ...] | None:
        """The ``x-mcp-header`` parameters of tool ``name`` (None: no such tool)."""
        ...

    def open_session(self, transport: Transport) -> ServerSession:
        """A new 2025-era session on ``transport``, ready to receive (not to be started)."""
        ...

    def stateless_session(self, transport: Transport, version: ProtocolVersion) -> ServerSession:
        """A session answering one stateless 2025-era request of ``version`` (ready)."""
        ...

    def request_session(self, transport: Transport) -> ServerSession:
        """A session answering one 2026-era request (ready)."""
        ...

    def sessionless_context(
        self, rid: Any, method: str, params: Any, version: ProtocolVersion | None = None
    ) -> Any:
        """A request context for a request needing no session of its own (answered by
        ``ctx.session.respond_alone(ctx)``), else None."""
        ...

    def sessionless_response(
        self,
        rid: Any,
        method: str,
        params: Any,
        version: ProtocolVersion | None = None,
        headers_checked: bool = False,
        at_once: bool = False,
    ) -> Awaitable[JSONObject] | None:
        """For a request needing no session of its own, the awaitable of its JSON-RPC
        response (what ``ctx.session.respond_alone(ctx)`` answers for the context of
        :meth:`sessionless_context`; to be awaited at once), else None. A modern call of a
        tool with ``x-mcp-header`` parameters is one only with ``headers_checked`` (its
        ``Mcp-Param-*`` headers were checked); with ``at_once``, only a call answered
        without suspending (no ``def`` tool, no ``async def`` one that can suspend)."""
        ...

    async def finish_request(self, session: ServerSession) -> None:
        """One request's session ended with its transport: wait for what it still runs."""
        ...

    def made_by(self, factory: object) -> bool:
        """Whether ``factory`` is the server's own session maker (its requests may then be
        served by :meth:`open_session` and the others instead)."""
        ...


@runtime_checkable
class ServedAppSource(Protocol):
    """A server whose own session maker may be an app's ``session_factory`` (a bound
    method of the server)."""

    def served_app(self) -> ServedApp:
        """This server's :class:`ServedApp`."""
        ...


def served_by_factory(factory: Callable[[Transport], ServerSession]) -> ServedApp | None:
    """The :class:`ServedApp` of the server whose own ``session`` method ``factory`` is,
    else None (any other factory)."""
    owner = getattr(factory, "__self__", None)
    if not isinstance(owner, ServedAppSource):
        return None
    served = owner.served_app()
    return served if served.made_by(factory) else None


def served_by_session(session: object) -> ServedApp | None:
    """The :class:`ServedApp` of the server ``session`` belongs to, if it says."""
    server = getattr(session, "server", None)
    return server.served_app() if isinstance(server, ServedAppSource) else None
