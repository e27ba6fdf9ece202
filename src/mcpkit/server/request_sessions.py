"""Per-request sessions of the stateless (modern) wire, made by copying a prototype.

Streamable HTTP serves every 2026-07-28 request with a fresh
:class:`~mcpkit.server.session.AppSession` that ends with it. Built the ordinary way
(``server.session(transport)`` then ``enter_modern()``) that costs a constructor chain of
three classes, a lifecycle, a handler table copied in, the era switch and a capability
lookup: about a sixth of the whole request. Every such
session of one server starts in the same state, so :func:`modern_request_session` builds
that state once (a *prototype*, never started) and gives each request a copy of it: one
dict copy, a fresh copy of each container the session mutates, a copied lifecycle, and the
few handlers bound to the session rebound to the copy. The engine makes the copies
(:meth:`~mcpkit.session.Session.cloner`, :meth:`~mcpkit.lifecycle.Lifecycle.copy`); this
module decides when a prototype is current.

The copy is exactly what ``server.session(transport, era="modern")`` would make. The
prototype is rebuilt when anything it was made from changes (the server's handler table,
which every registration replaces, its debug flag, server info, instructions, raw
notification handlers, the event loop). A server with middleware (whose notification
wrappers hold their session) is served the ordinary way.

The stateless mode of the handshake era is served the same way
(:func:`legacy_request_session`): one prototype per version it assumes, equal to
``server.session(transport, era="legacy")`` after ``assume_initialized(version)``. So is
every new session of the handshake era's stateful mode (:func:`new_session`: equal to
``server.session(transport)``, before its ``initialize``), where a server opening many
sessions spends most of each one's making.

Most modern requests need no copy at all: a ``tools/call`` of a tool that cannot suspend
and cannot talk back (:func:`sessionless_context`) is served by the prototype itself, with
:meth:`~mcpkit.session.Session.respond_alone`, which registers and writes nothing; its
answer is the one a copy would have written.

This module is part of the host: it sees the server as a :class:`PrototypedServer` and its
sessions as :class:`PrototypeSession` objects (a Server and its AppSessions are), so it
imports neither.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

from mcpkit._loop import _memo, running_loop
from mcpkit.envelope import Envelope, parse_request_envelope
from mcpkit.errors import McpError
from mcpkit.jsonrpc import JSONObject, RequestId
from mcpkit.transports.base import Transport
from mcpkit.versions import Era, ProtocolVersion

if TYPE_CHECKING:
    from mcpkit.bus import BusRelay
    from mcpkit.lifecycle import Lifecycle
    from mcpkit.session import RequestContext

__all__ = [
    "PlainTool",
    "PrototypeSession",
    "PrototypedServer",
    "legacy_request_session",
    "modern_request_session",
    "new_session",
    "sessionless",
    "sessionless_context",
]


class _Function(Protocol):
    @property
    def is_async(self) -> bool: ...

    @property
    def never_suspends(self) -> bool: ...


class PlainTool(Protocol):
    """A tool as :func:`sessionless_context` reads it (a
    :class:`~mcpkit.server.tools.ToolEntry` is one)."""

    @property
    def function(self) -> _Function: ...

    @property
    def limiter(self) -> object | None: ...

    def header_params(self) -> tuple[Any, ...] | None: ...

    # What header_params() keeps once found (the hot path reads them without its call).
    @property
    def _header_params(self) -> tuple[Any, ...] | None: ...

    @property
    def _header_params_found(self) -> bool: ...


C_co = TypeVar("C_co", bound="RequestContext", covariant=True)


class PrototypeSession(Protocol[C_co]):
    """A server session as it is made a prototype and copied (an
    :class:`~mcpkit.server.session.AppSession` is one, its request contexts ``C_co``)."""

    @property
    def lifecycle(self) -> Lifecycle: ...

    @property
    def modern_versions(self) -> tuple[ProtocolVersion, ...]: ...

    def assume_initialized(self, version: ProtocolVersion) -> None: ...

    def share_handlers(self) -> None: ...

    def cloner(self) -> Callable[[Transport], Self]: ...

    def plain_tool(self, params: JSONObject) -> PlainTool | None: ...

    def respond_tool(self, ctx: Any, entry: Any) -> Awaitable[JSONObject]:
        """The response to ``ctx``'s ``tools/call`` of the plain tool ``entry``."""
        ...

    def respond_plain(
        self, request_id: RequestId, params: JSONObject, entry: Any, envelope: Any
    ) -> Awaitable[JSONObject]:
        """The response to a ``tools/call`` of the plain tool ``entry`` (an ``async def``
        one), what :meth:`respond_tool` answers, with no context made for it."""
        ...

    def build_context(
        self, request_id: RequestId, method: str, params: JSONObject | None
    ) -> C_co: ...


S = TypeVar("S", bound="PrototypeSession[Any]")
S_co = TypeVar("S_co", bound="PrototypeSession[Any]", covariant=True)
C = TypeVar("C", bound="RequestContext")


class PrototypedServer(Protocol[S_co]):
    """What the per-request sessions need of the server they copy: its session maker (of
    ``S_co`` sessions), its handler table and the facts a prototype is kept current with
    (a :class:`~mcpkit.server.app.Server` is one, of AppSessions)."""

    @property
    def debug(self) -> bool: ...

    @property
    def server_info(self) -> JSONObject: ...

    @property
    def instructions(self) -> str | None: ...

    @property
    def log_bridge(self) -> bool: ...

    @property
    def relay(self) -> BusRelay: ...

    @property
    def session_prototypes(self) -> dict[str, Any]:
        """Where the prototypes are kept, by kind ("modern", "new", "legacy <version>")."""

    @property
    def wraps_handlers(self) -> bool:
        """True when middleware wraps the handlers (sessions are then made, not copied)."""

    @property
    def notification_handler_count(self) -> int: ...

    # What wraps_handlers and notification_handler_count read (the hot path reads them
    # without the properties' calls).
    @property
    def _http_gates(self) -> bool: ...

    @property
    def middleware(self) -> Sequence[Any]: ...

    @property
    def _raw_notifications(self) -> Mapping[str, Any]: ...

    @property
    def _table(self) -> Mapping[str, Any] | None: ...

    def handler_table(self) -> Mapping[str, Any]: ...

    def session(
        self, transport: Transport, *, era: Era | None = None, **session_kwargs: Any
    ) -> S_co: ...


class _Prototype(Generic[S]):
    """A session of one server, never started, and the function copying it."""

    __slots__ = (
        "clone",
        "debug",
        "envelope_read",
        "info",
        "instructions",
        "loop",
        "notifications",
        "quick_calls",
        "session",
        "table",
    )

    def __init__(
        self,
        server: PrototypedServer[S],
        table: Mapping[str, Any],
        loop: Any,
        version: ProtocolVersion | None = None,
        *,
        stateful: bool = False,
    ) -> None:
        if stateful:  # a new session of the stateful mode: its initialize fixes the rest
            session = server.session(Transport())
        elif version is None:
            session = server.session(Transport(), era="modern")
        else:  # a stateless 2025-era session, its handshake assumed for ``version``
            session = server.session(Transport(), era="legacy")
            session.assume_initialized(version)
        if version is None and not stateful:
            # A modern request has no handshake and no notifications reach its session: the
            # copies share one handler table, without the handlers bound to this prototype
            # (initialize and the notifications of the handshake era).
            session.share_handlers()
        self.session: S = session
        #: Whether its session dispatches a ``tools/call`` at once (the capability declared,
        #: the lifecycle past any handshake): what :func:`sessionless_context` needs, fixed
        #: for the prototype's life (it is remade when the table changes).
        self.quick_calls = (
            session.lifecycle.own_capability_error("tools/call") is None
            if version is None and not stateful
            else session.lifecycle.check_incoming_request("tools/call") is None
        )
        self.table = table
        self.loop = loop
        self.debug = server.debug
        self.info = server.server_info
        self.instructions = server.instructions
        self.notifications = server.notification_handler_count
        #: ``clone(transport)``: a copy of the session on ``transport`` (Session.cloner).
        self.clone: Callable[[Transport], S] = session.cloner()
        #: The last ``_meta`` :func:`sessionless` read whole and the envelope it found (a
        #: client sends the same one again and again), or None.
        self.envelope_read: tuple[dict[str, Any], Envelope] | None = None


def _current(
    proto: _Prototype[Any] | None, server: PrototypedServer[Any], table: Any, loop: Any
) -> bool:
    return (
        proto is not None
        and proto.table is table
        and proto.loop is loop
        and proto.debug == server.debug
        and proto.info is server.server_info
        and proto.instructions == server.instructions
        and proto.notifications == server.notification_handler_count
    )


def legacy_request_session(
    server: PrototypedServer[S], transport: Transport, version: ProtocolVersion
) -> S:
    """A session of ``server`` for one request of the 2025-era stateless mode on
    ``transport`` (not started): equal to ``server.session(transport, era="legacy")`` with
    its handshake assumed for ``version``, copied from the server's prototype for that
    version (built and kept as the modern one is)."""
    if server.wraps_handlers:
        session = server.session(transport, era="legacy")
        session.assume_initialized(version)
        return session
    proto = _legacy_prototype(server, version)
    server.relay.start()
    return proto.clone(transport)


#: The key of each revision's 2025-era stateless prototype, by revision name.
_LEGACY_KEYS: dict[str, str] = {}


def _legacy_key(name: str) -> str:
    key = _LEGACY_KEYS[name] = f"legacy {name}"
    return key


def _legacy_prototype(server: PrototypedServer[S], version: ProtocolVersion) -> _Prototype[S]:
    """The server's current prototype of 2025-era stateless sessions of ``version``."""
    table = server.handler_table()
    loop = running_loop()
    protos = server.session_prototypes
    key = _LEGACY_KEYS.get(version.name) or _legacy_key(version.name)
    proto: _Prototype[S] | None = protos.get(key)
    if proto is None or not _current(proto, server, table, loop):
        proto = protos[key] = _Prototype(server, table, loop, version)
    return proto


def new_session(server: PrototypedServer[S], transport: Transport) -> S:
    """A new session of ``server`` on ``transport`` for the handshake era's stateful mode
    (not started): equal to ``server.session(transport)``, copied from the server's
    prototype of new sessions (built and kept as the others are)."""
    if server.wraps_handlers:
        return server.session(transport)
    table = server.handler_table()
    loop = running_loop()
    proto: _Prototype[S] | None = server.session_prototypes.get("new")
    if proto is None or not _current(proto, server, table, loop):
        proto = server.session_prototypes["new"] = _Prototype(server, table, loop, stateful=True)
    server.relay.start()
    return proto.clone(transport)


def _modern_prototype(server: PrototypedServer[S]) -> _Prototype[S]:
    """The server's current prototype of modern request sessions (remade when stale)."""
    table = server.handler_table()
    loop = running_loop()
    proto: _Prototype[S] | None = server.session_prototypes.get("modern")
    if (
        proto is None
        or proto.table is not table
        or proto.loop is not loop
        or proto.debug != server.debug
        or proto.info is not server.server_info
        or proto.instructions != server.instructions
        or proto.notifications != server.notification_handler_count
    ):
        proto = server.session_prototypes["modern"] = _Prototype(server, table, loop)
    return proto


def modern_request_session(server: PrototypedServer[S], transport: Transport) -> S:
    """A session of ``server`` in the modern era on ``transport`` for one request (not
    started): equal to ``server.session(transport, era="modern")``, copied from the
    server's prototype (see the module docstring)."""
    if server.wraps_handlers:
        return server.session(transport, era="modern")
    proto = _modern_prototype(server)
    server.relay.start()
    return proto.clone(transport)


def sessionless_context(
    server: PrototypedServer[PrototypeSession[C]],
    request_id: RequestId,
    method: str,
    params: Any,
    version: ProtocolVersion | None = None,
) -> C | None:
    """The context to serve a stateless request with no session of its own, or None when
    it needs one (it is then served by a :func:`modern_request_session`, or with
    ``version``, the revision a 2025-era stateless request assumes, by a
    :func:`legacy_request_session`).

    A request needs none when nothing it does can reach a session: a ``tools/call`` of a
    tool that takes no Context and is no task (``AppSession.plain_tool``), either an
    ``async def`` one the session would serve inline (it cannot suspend:
    ``AppSession.serves_inline``) or a ``def`` one (it waits only on the worker pool,
    and a cancelled request drops its result), with no concurrency limit, no timeout, no
    middleware and no logging bridge (nothing then sends a notification or a request),
    that the session would dispatch at once (a valid envelope on the modern wire, the
    capability declared: any error of those is answered by the session path), and on the
    modern wire with no ``x-mcp-header`` parameter (those are asked for again once their
    ``Mcp-Param-*`` headers are checked: see :func:`sessionless`). Its context belongs to the
    prototype (never started, shared, left unchanged:
    :meth:`~mcpkit.session.Session.respond_alone` registers and writes nothing), so the
    answer is the one a copy would have written."""
    found: C | None = sessionless(server, False, request_id, method, params, version)
    return found


def sessionless(
    server: PrototypedServer[PrototypeSession[C]],
    respond: bool,
    request_id: RequestId,
    method: str,
    params: Any,
    version: ProtocolVersion | None = None,
    headers_checked: bool = False,
    at_once: bool = False,
) -> Any:
    """:func:`sessionless_context`, or with ``respond`` the response to that request (an
    awaitable of the JSON-RPC response, to be awaited at once: what
    ``ctx.session.respond_alone(ctx)`` answers, the tool already found; for an ``async
    def`` tool, made with no context: ``AppSession.respond_plain``), else None.
    ``headers_checked``: the request's ``Mcp-Param-*`` headers were checked against the
    tool's ``x-mcp-header`` parameters (else a tool that has some is left to that check).
    ``at_once``: only a call whose awaitable completes without suspending (an ``async
    def`` tool that cannot suspend; not a ``def`` one, which waits on the worker pool)."""
    if method != "tools/call" or type(params) is not dict or server.log_bridge:
        return None
    if server._http_gates or server.middleware:  # wraps_handlers, inline
        return None
    # The server's current prototype (_modern_prototype or _legacy_prototype, inline).
    table = server._table  # server.handler_table(), inline: its usual case
    if table is None:
        table = server.handler_table()
    loop = _memo.loop  # running_loop(), inline: its usual case
    if loop is None or not loop.is_running():
        loop = running_loop()
    if version is None:
        key = "modern"
    else:
        key = _LEGACY_KEYS.get(version.name) or _legacy_key(version.name)
    protos = server.session_prototypes
    proto: _Prototype[PrototypeSession[C]] | None = protos.get(key)
    if (
        proto is None
        or proto.table is not table
        or proto.loop is not loop
        or proto.debug != server.debug
        or proto.info is not server.server_info
        or proto.instructions != server.instructions
        or proto.notifications != len(server._raw_notifications)  # (the count, inline)
    ):
        proto = protos[key] = _Prototype(server, table, loop, version)
    if not proto.quick_calls:
        return None
    session = proto.session
    entry = session.plain_tool(params)
    if entry is None or entry.limiter is not None:
        return None
    function = entry.function
    if (function.is_async and not function.never_suspends) or (at_once and not function.is_async):
        return None
    envelope = None
    if version is None:
        # (entry.header_params(), its memo read first)
        if not headers_checked and (
            entry._header_params if entry._header_params_found else entry.header_params()
        ):
            return None  # its Mcp-Param-* headers are to be checked first
        meta = params.get("_meta")
        last = proto.envelope_read
        if last is not None and type(meta) is dict and meta == last[0]:
            # The _meta read last time, again (decoded JSON equal to decoded JSON: the same
            # types throughout, so every check passes as it passed then): its envelope,
            # shared. Nothing a request served here runs can reach its params or context
            # (a plain tool takes its arguments only; no middleware), so neither that
            # _meta nor the envelope changes.
            envelope = last[1]
        else:
            try:
                envelope = parse_request_envelope(params, session.modern_versions)
            except McpError:
                return None
            if type(meta) is dict:
                proto.envelope_read = (meta, envelope)
    if respond and function.is_async:
        return session.respond_plain(request_id, params, entry, envelope)
    ctx = session.build_context(request_id, method, params)
    ctx.envelope = envelope
    if respond:
        return session.respond_tool(ctx, entry)
    return ctx
