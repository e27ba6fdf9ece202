"""The MCP lifecycle as a sans-I/O state machine: phases, version negotiation, capabilities.

Nothing here does I/O. What may be exchanged when is plain data: :data:`RULES` maps
(direction, role, phase, message kind) to, per method, ``None`` (allowed) or the
:class:`Refusal` to answer with (for a notification or a response: the reason it is
dropped); :data:`TRANSITIONS` maps (role, phase, event) to the next phase. The pure
functions :func:`verdict` and :func:`next_phase` read them, and :class:`Lifecycle` (one per
connection) applies them, plus the capability tables, for the session engine.

The ``initialize`` request moves a server from NEW to INITIALIZING the moment it is
accepted, before anything after it on the wire is looked at: a client that pipelines
``initialize``, ``notifications/initialized`` and a request without waiting is served as if
it had waited.

This covers the legacy (handshake) era; a modern (2026-07-28) request carries its version
and capabilities itself and is served outside this state machine. Which era a connection
speaks is decided by its first request (:data:`ERA_OF_FIRST_REQUEST`,
:func:`era_of_first_request`); the methods an era does not have answer -32601
(:data:`ERA_REMOVED_METHODS`, :func:`era_refusal`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from mcpkit import versions
from mcpkit.envelope import has_request_meta
from mcpkit.errors import McpError, RequestRefused, UnsupportedProtocolVersion
from mcpkit.jsonrpc import (
    CONNECTION_CLOSED,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    JSONObject,
)
from mcpkit.versions import Era, ProtocolVersion

__all__ = [
    "ANY",
    "CLIENT_CAPABILITY_FOR",
    "ERA_OF_FIRST_REQUEST",
    "ERA_REMOVED_METHODS",
    "OWN_CAPABILITY_FOR_NOTIFICATION",
    "RULES",
    "SERVER_CAPABILITY_FOR",
    "TRANSITIONS",
    "Direction",
    "Event",
    "Kind",
    "Lifecycle",
    "Phase",
    "Refusal",
    "Role",
    "era_of_first_request",
    "era_refusal",
    "has_capability",
    "next_phase",
    "offered",
    "verdict",
]


class Role(Enum):
    """Which end of the connection this side is."""

    # Members are singletons compared by identity: hash them so too, in C (Enum's own
    # __hash__ is Python code, run for every rule-table lookup).
    __hash__ = object.__hash__

    CLIENT = "client"
    SERVER = "server"


class Phase(Enum):
    """Where a connection is in its life."""

    __hash__ = object.__hash__  # as Role's

    NEW = "new"  # nothing exchanged yet
    INITIALIZING = "initializing"  # initialize accepted, `initialized` not yet seen/sent
    OPERATING = "operating"
    CLOSED = "closed"


class Direction(Enum):
    """Whether a message arrives from the peer or is about to be sent to it."""

    __hash__ = object.__hash__  # as Role's

    INCOMING = "incoming"
    OUTGOING = "outgoing"


class Kind(Enum):
    """The kind of JSON-RPC message a rule is about."""

    __hash__ = object.__hash__  # as Role's

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESPONSE = "response"


class Event(Enum):
    """What moves a connection from one phase to the next."""

    __hash__ = object.__hash__  # as Role's

    #: Server: a well-formed ``initialize`` arrived (its answer is on its way).
    INITIALIZE_ACCEPTED = "initialize accepted"
    #: Server: ``notifications/initialized`` arrived.
    INITIALIZED_RECEIVED = "initialized received"
    #: Client: the server answered ``initialize`` with a version the client speaks.
    INITIALIZE_ANSWERED = "initialize answered"
    #: Either side: the handshake is skipped (stateless HTTP: every request stands alone).
    ASSUMED = "assumed"
    #: Either side: the connection ended.
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a message is not allowed now: the JSON-RPC error answered to a request (or the
    reason a notification or response is dropped). ``{method}`` in ``message`` is filled in."""

    code: int
    message: str

    def error(self, method: str, cls: type[McpError] = McpError) -> McpError:
        """The error for ``method`` (``cls`` :class:`RequestRefused` for an outgoing one)."""
        return cls(self.code, self.message.format(method=repr(method)))


#: The key of a rule that applies to every method not named in its cell.
ANY: Final = "*"

_ALREADY = Refusal(INVALID_REQUEST, "Session is already initialized")
_CLOSED = Refusal(CONNECTION_CLOSED, "Connection closed")
_SERVER_NOT_READY = Refusal(
    INVALID_REQUEST, "Session not initialized: send 'initialize' before {method}"
)
_CLIENT_NOT_READY = Refusal(
    INVALID_REQUEST, "Request {method} received before initialization finished"
)
_SEND_BEFORE_INIT = Refusal(
    INVALID_REQUEST,
    "Cannot send {method} before initialization: only 'ping' may precede the server's "
    "answer to 'initialize'",
)
_SEND_BEFORE_CLIENT_INIT = Refusal(
    INVALID_REQUEST, "Cannot send {method} before the client has initialized"
)
_EARLY_INITIALIZED = Refusal(INVALID_REQUEST, "'initialized' before 'initialize'")
_ALLOW_ALL: dict[str, Refusal | None] = {ANY: None}

_IN, _OUT = Direction.INCOMING, Direction.OUTGOING
_C, _S = Role.CLIENT, Role.SERVER
_NEW, _INIT, _OP, _END = Phase.NEW, Phase.INITIALIZING, Phase.OPERATING, Phase.CLOSED
_REQ, _NOTE, _RESP = Kind.REQUEST, Kind.NOTIFICATION, Kind.RESPONSE

#: (direction, role, phase, kind) -> {method or ANY: None (allowed) or the refusal}.
#: Capabilities are checked after these rules, in the INITIALIZING and OPERATING phases.
RULES: dict[tuple[Direction, Role, Phase, Kind], dict[str, Refusal | None]] = {
    # -- a server receiving --
    (_IN, _S, _NEW, _REQ): {"initialize": None, "ping": None, ANY: _SERVER_NOT_READY},
    (_IN, _S, _INIT, _REQ): {"initialize": _ALREADY, ANY: None},
    (_IN, _S, _OP, _REQ): {"initialize": _ALREADY, ANY: None},
    (_IN, _S, _END, _REQ): {ANY: _CLOSED},
    (_IN, _S, _NEW, _NOTE): {"notifications/initialized": _EARLY_INITIALIZED, ANY: None},
    (_IN, _S, _INIT, _NOTE): _ALLOW_ALL,
    (_IN, _S, _OP, _NOTE): {"notifications/initialized": _ALREADY, ANY: None},
    (_IN, _S, _END, _NOTE): {ANY: _CLOSED},
    (_IN, _S, _NEW, _RESP): _ALLOW_ALL,
    (_IN, _S, _INIT, _RESP): _ALLOW_ALL,
    (_IN, _S, _OP, _RESP): _ALLOW_ALL,
    (_IN, _S, _END, _RESP): {ANY: _CLOSED},
    # -- a client receiving --
    (_IN, _C, _NEW, _REQ): {"ping": None, ANY: _CLIENT_NOT_READY},
    (_IN, _C, _INIT, _REQ): _ALLOW_ALL,
    (_IN, _C, _OP, _REQ): _ALLOW_ALL,
    (_IN, _C, _END, _REQ): {ANY: _CLOSED},
    (_IN, _C, _NEW, _NOTE): _ALLOW_ALL,
    (_IN, _C, _INIT, _NOTE): _ALLOW_ALL,
    (_IN, _C, _OP, _NOTE): _ALLOW_ALL,
    (_IN, _C, _END, _NOTE): {ANY: _CLOSED},
    (_IN, _C, _NEW, _RESP): _ALLOW_ALL,
    (_IN, _C, _INIT, _RESP): _ALLOW_ALL,
    (_IN, _C, _OP, _RESP): _ALLOW_ALL,
    (_IN, _C, _END, _RESP): {ANY: _CLOSED},
    # -- a client sending (CLOSED: allowed here, the session reports the closed connection) --
    (_OUT, _C, _NEW, _REQ): {"initialize": None, "ping": None, ANY: _SEND_BEFORE_INIT},
    (_OUT, _C, _INIT, _REQ): _ALLOW_ALL,
    (_OUT, _C, _OP, _REQ): _ALLOW_ALL,
    (_OUT, _C, _END, _REQ): _ALLOW_ALL,
    # -- a server sending --
    (_OUT, _S, _NEW, _REQ): {"ping": None, ANY: _SEND_BEFORE_CLIENT_INIT},
    (_OUT, _S, _INIT, _REQ): _ALLOW_ALL,
    (_OUT, _S, _OP, _REQ): _ALLOW_ALL,
    (_OUT, _S, _END, _REQ): _ALLOW_ALL,
    # Notifications and responses may leave in any phase (capabilities still apply).
    **{(_OUT, r, p, k): _ALLOW_ALL for r in Role for p in Phase for k in (_NOTE, _RESP)},
}

#: (role, phase, event) -> the next phase; an event missing here leaves the phase as it is.
TRANSITIONS: dict[tuple[Role, Phase, Event], Phase] = {
    (_S, _NEW, Event.INITIALIZE_ACCEPTED): _INIT,
    (_S, _INIT, Event.INITIALIZED_RECEIVED): _OP,
    (_C, _NEW, Event.INITIALIZE_ANSWERED): _OP,
    **{(r, p, Event.ASSUMED): _OP for r in Role for p in (_NEW, _INIT, _OP)},
    **{(r, p, Event.CLOSED): _END for r in Role for p in Phase},
}

# The rules in force per (role, phase), picked once per phase change: (incoming requests,
# incoming notifications, outgoing requests). Enum members used at run time are module
# names: looked up on their class each costs about 0.4 µs on CPython 3.11.
_CELLS: dict[tuple[Role, Phase], tuple[dict[str, Refusal | None], ...]] = {
    (r, p): (RULES[(_IN, r, p, _REQ)], RULES[(_IN, r, p, _NOTE)], RULES[(_OUT, r, p, _REQ)])
    for r in Role
    for p in Phase
}
_ACCEPTED, _INITIALIZED = Event.INITIALIZE_ACCEPTED, Event.INITIALIZED_RECEIVED

#: What a server offers a handshake, by its tuple of supported versions (kept with it):
#: its legacy versions by name and the latest one (None: it speaks no legacy revision).
_Offer = tuple[tuple[ProtocolVersion, ...], dict[str, ProtocolVersion], ProtocolVersion | None]
_offers: dict[int, _Offer] = {}


def _offer(supported: tuple[ProtocolVersion, ...]) -> _Offer:
    legacy = [v for v in supported if v.era == "legacy"]
    by_name: dict[str, ProtocolVersion] = {}
    for v in legacy:
        by_name.setdefault(v.name, v)  # the first of a name, as negotiate() finds it
    offer: _Offer = (supported, by_name, legacy[0] if legacy else None)
    if len(_offers) >= 64:  # a few tuples in practice; never grows without bound
        _offers.clear()
    _offers[id(supported)] = offer
    return offer


_ANSWERED, _ASSUMED, _CLOSED_EVENT = Event.INITIALIZE_ANSWERED, Event.ASSUMED, Event.CLOSED
_new = object.__new__


def verdict(
    direction: Direction, role: Role, phase: Phase, kind: Kind, method: str
) -> Refusal | None:
    """None when ``method`` may be exchanged now, else why not (pure: reads :data:`RULES`)."""
    cell = RULES[(direction, role, phase, kind)]
    return cell.get(method, cell[ANY])


def next_phase(role: Role, phase: Phase, event: Event) -> Phase:
    """The phase after ``event`` (pure: reads :data:`TRANSITIONS`)."""
    return TRANSITIONS.get((role, phase, event), phase)


#: (method is ``initialize``, params carry the modern ``_meta`` envelope) -> the era the
#: first request gives a connection (stdio, in memory); None leaves it undecided (a ``ping``
#: or a request without the envelope before ``initialize``: the legacy rules answer it).
ERA_OF_FIRST_REQUEST: dict[tuple[bool, bool], Era | None] = {
    (True, False): "legacy",
    (True, True): "legacy",  # initialize is a legacy request whatever its _meta says
    (False, True): "modern",
    (False, False): None,
}

#: Methods an era does not have: a request for one answers -32601 whatever is registered.
ERA_REMOVED_METHODS: dict[Era, frozenset[str]] = {
    "modern": frozenset(
        {
            "initialize",
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "resources/unsubscribe",
        }
    ),
    "legacy": frozenset({"server/discover", "subscriptions/listen"}),
}


def era_of_first_request(method: str, params: Any) -> Era | None:
    """The era a connection speaks when ``method`` with ``params`` is its first request
    (pure: reads :data:`ERA_OF_FIRST_REQUEST`)."""
    return ERA_OF_FIRST_REQUEST[(method == "initialize", has_request_meta(params))]


def era_refusal(era: Era, method: str) -> McpError | None:
    """-32601 when ``era`` has no ``method`` (see :data:`ERA_REMOVED_METHODS`), else None."""
    if method in ERA_REMOVED_METHODS[era]:
        revision = "2026-07-28" if era == "modern" else "the handshake (2025-11-25 and earlier)"
        return McpError(
            METHOD_NOT_FOUND, f"Method not found: {method!r} does not exist in {revision}"
        )
    return None


_OFFERED: Final = {
    ("resources", "subscribe"): "resource subscriptions",
    ("tasks", "list"): "task listing",
    ("tasks", "cancel"): "task cancellation",
    ("roots",): "roots",
    ("sampling",): "sampling",
    ("elicitation",): "elicitation",
}


def offered(path: tuple[str, ...]) -> str:
    """What a capability path offers, in words ("prompts", "resource subscriptions")."""
    return _OFFERED.get(path) or " ".join(path)


#: Requests a client sends, and the server capability each needs (a path into the dict).
SERVER_CAPABILITY_FOR: dict[str, tuple[str, ...]] = {
    "tools/list": ("tools",),
    "tools/call": ("tools",),
    "resources/list": ("resources",),
    "resources/templates/list": ("resources",),
    "resources/read": ("resources",),
    "resources/subscribe": ("resources", "subscribe"),
    "resources/unsubscribe": ("resources", "subscribe"),
    "prompts/list": ("prompts",),
    "prompts/get": ("prompts",),
    "logging/setLevel": ("logging",),
    "completion/complete": ("completions",),
    "tasks/get": ("tasks",),
    "tasks/result": ("tasks",),
    "tasks/list": ("tasks", "list"),
    "tasks/cancel": ("tasks", "cancel"),
}

#: Requests a server sends, and the client capability each needs.
CLIENT_CAPABILITY_FOR: dict[str, tuple[str, ...]] = {
    "sampling/createMessage": ("sampling",),
    "elicitation/create": ("elicitation",),
    "roots/list": ("roots",),
    "tasks/get": ("tasks",),
    "tasks/result": ("tasks",),
    "tasks/list": ("tasks", "list"),
    "tasks/cancel": ("tasks", "cancel"),
}

#: Notifications a side sends that need a capability of its own.
OWN_CAPABILITY_FOR_NOTIFICATION: dict[str, tuple[str, ...]] = {
    "notifications/message": ("logging",),
    "notifications/tools/list_changed": ("tools", "listChanged"),
    "notifications/prompts/list_changed": ("prompts", "listChanged"),
    "notifications/resources/list_changed": ("resources", "listChanged"),
    "notifications/resources/updated": ("resources", "subscribe"),
    "notifications/roots/list_changed": ("roots", "listChanged"),
}


def has_capability(capabilities: JSONObject | None, path: tuple[str, ...]) -> bool:
    """True when ``capabilities`` declares ``path`` (present; a flag must be true)."""
    node: Any = capabilities
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return node is not False and node is not None


class Lifecycle:
    """Phase, negotiated version and both sides' capabilities of one connection."""

    __slots__ = (
        "_in_notification",
        "_in_request",
        "_out_request",
        "_phase",
        "capabilities",
        "peer_capabilities",
        "peer_info",
        "role",
        "unchecked",
        "version",
    )

    def __init__(self, role: Role, capabilities: JSONObject | None = None) -> None:
        self.role = role
        self.version: ProtocolVersion | None = None
        self.capabilities: JSONObject = capabilities or {}
        self.peer_capabilities: JSONObject = {}
        self.peer_info: JSONObject = {}
        #: Methods sent without checking the peer declared their capability (a client
        #: that, like the official SDK's, leaves the refusal to the peer).
        self.unchecked: frozenset[str] = frozenset()
        self.phase = _NEW

    @property
    def phase(self) -> Phase:
        """Where the connection is; setting it selects the rules in force."""
        return self._phase

    @phase.setter
    def phase(self, phase: Phase) -> None:
        self._phase = phase
        # The cells in force, looked up once per phase change rather than per message.
        self._in_request, self._in_notification, self._out_request = _CELLS[(self.role, phase)]

    def copy(self) -> Lifecycle:
        """A lifecycle in this one's state that moves on its own: the same phase, version
        and capabilities (this side's, never changed in place, are shared), the peer's
        capabilities and info as copies of its own. For sessions copied from a prototype
        (:meth:`mcpkit.session.Session.cloner`): one slot write each, no ``__init__``."""
        new: Lifecycle = _new(Lifecycle)
        new._phase = self._phase
        new._in_request = self._in_request
        new._in_notification = self._in_notification
        new._out_request = self._out_request
        new.role = self.role
        new.version = self.version
        new.unchecked = self.unchecked
        new.capabilities = self.capabilities
        peer = self.peer_capabilities
        new.peer_capabilities = peer.copy() if peer else {}
        info = self.peer_info
        new.peer_info = info.copy() if info else {}
        return new

    def apply(self, event: Event) -> Phase:
        """Move to the phase ``event`` leads to (see :data:`TRANSITIONS`)."""
        phase = self._phase
        new = TRANSITIONS.get((self.role, phase, event), phase)
        if new is not phase:
            self._phase = new
            self._in_request, self._in_notification, self._out_request = _CELLS[(self.role, new)]
        return new

    # -- incoming -----------------------------------------------------------------------------

    def check_incoming_request(self, method: str) -> McpError | None:
        """An error to answer ``method`` with in the current phase, or None to serve it.

        A request for a capability this side did not declare gets -32601, whatever handlers
        are registered.
        """
        cell = self._in_request
        refusal = cell.get(method, cell[ANY])
        if refusal is not None:
            return refusal.error(method)
        if self._phase is _NEW:
            return None
        return self.own_capability_error(method)

    def check_incoming_notification(self, method: str) -> Refusal | None:
        """None to handle the notification ``method`` now, else why it is dropped."""
        cell = self._in_notification
        return cell.get(method, cell[ANY])

    def own_capability_error(self, method: str) -> McpError | None:
        """-32601 when ``method`` needs a capability this side did not declare, else None."""
        table = SERVER_CAPABILITY_FOR if self.role is _S else CLIENT_CAPABILITY_FOR
        path = table.get(method)
        if path is None or has_capability(self.capabilities, path):
            return None
        version = self.version
        if path[0] == "tasks" and version is not None and version.tasks_extension:
            return None  # tasks/* belong to the tasks extension there: its handlers decide
        if method == "completion/complete" and not self._completions_declared_by_version():
            return None  # older revisions have no `completions` capability
        return McpError(
            METHOD_NOT_FOUND,
            f"Method not found: {method!r} needs the capability {'.'.join(path)!r}, "
            "which this side did not declare",
        )

    # -- outgoing -----------------------------------------------------------------------------

    def check_outgoing_request(self, method: str) -> None:
        """Raise :class:`RequestRefused` when ``method`` may not be sent to this peer (now)."""
        cell = self._out_request
        refusal = cell.get(method, cell[ANY])
        if refusal is not None:
            raise refusal.error(method, RequestRefused)
        if method == "ping" or self._phase is _END or self._phase is _NEW:
            return  # CLOSED: the session reports the closed connection itself
        if self.version is not None and self.version.era == "modern":
            return  # every modern request stands alone: the peer answers what it lacks
        table = SERVER_CAPABILITY_FOR if self.role is _C else CLIENT_CAPABILITY_FOR
        path = table.get(method)
        if path is None or method in self.unchecked:
            return
        if method == "completion/complete" and not self._completions_declared_by_version():
            return
        if not has_capability(self.peer_capabilities, path):
            peer = "server" if self.role is _C else "client"
            raise RequestRefused(
                METHOD_NOT_FOUND,
                f"The {peer} offers no {offered(path)}: it did not declare the capability "
                f"{'.'.join(path)!r} needed for {method!r}",
            )

    def check_outgoing_notification(self, method: str) -> None:
        """Raise :class:`RequestRefused` when this side did not declare what ``method``
        announces."""
        path = OWN_CAPABILITY_FOR_NOTIFICATION.get(method)
        if (
            path is not None
            and method not in self.unchecked
            and not has_capability(self.capabilities, path)
        ):
            raise RequestRefused(
                METHOD_NOT_FOUND,
                f"Cannot send {method!r}: this side did not declare {'.'.join(path)!r}",
            )

    def _completions_declared_by_version(self) -> bool:
        # The `completions` capability exists since 2025-03-26; older servers answer anyway.
        v = self.version
        return v is None or v.completions_capability

    # -- the initialize exchange ----------------------------------------------------------------

    def server_initialize(
        self,
        params: JSONObject | None,
        supported: tuple[ProtocolVersion, ...] = versions.SUPPORTED,
    ) -> ProtocolVersion:
        """Server: take the client's ``initialize`` params; return the version to answer with.

        Moves to INITIALIZING at once, so what the client sent after ``initialize`` (its
        ``initialized``, its first requests) is judged with the handshake done."""
        if self._phase is not _NEW:
            raise McpError(INVALID_REQUEST, "Session is already initialized")
        if not isinstance(params, dict):
            raise McpError(INVALID_PARAMS, "initialize: params must be an object")
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise McpError(INVALID_PARAMS, "initialize: 'protocolVersion' must be a string")
        caps = params.get("capabilities")
        if caps is None:
            caps = {}
        if not isinstance(caps, dict):
            raise McpError(INVALID_PARAMS, "initialize: 'capabilities' must be an object")
        info = params.get("clientInfo")
        if info is not None and not isinstance(info, dict):
            raise McpError(INVALID_PARAMS, "initialize: 'clientInfo' must be an object")
        offer = _offers.get(id(supported))
        if offer is None or offer[0] is not supported:
            offer = _offer(supported)
        _, by_name, latest = offer
        if latest is None:
            # A modern-only server names what it speaks: the client has no other diagnostic.
            raise UnsupportedProtocolVersion.build(requested, [v.name for v in supported])
        # versions.negotiate, looked up: the client's version when supported, else our latest.
        version = by_name.get(requested, latest)
        self.version = version
        self.peer_capabilities = caps
        self.peer_info = info or {}
        self.apply(_ACCEPTED)
        return version

    def server_initialized(self) -> None:
        """Server: the client's ``notifications/initialized`` arrived."""
        self.apply(_INITIALIZED)

    def client_initialize_result(
        self,
        result: JSONObject,
        supported: tuple[ProtocolVersion, ...] = versions.SUPPORTED,
    ) -> ProtocolVersion:
        """Client: take the server's ``initialize`` result; raise when its version is unknown."""
        answered = result.get("protocolVersion")
        version = None
        if isinstance(answered, str):
            for v in supported:
                if v.name == answered and v.era == "legacy":
                    version = v
                    break
        if version is None:
            raise McpError(
                INVALID_REQUEST,
                f"Server answered with protocol version {answered!r}, which this client does "
                f"not support (supported: {', '.join(v.name for v in supported)})",
            )
        caps = result.get("capabilities")
        self.peer_capabilities = caps if isinstance(caps, dict) else {}
        info = result.get("serverInfo")
        self.peer_info = info if isinstance(info, dict) else {}
        self.version = version
        self.apply(_ANSWERED)
        return version

    def assume(self, version: ProtocolVersion, peer_capabilities: JSONObject | None = None) -> None:
        """Skip the handshake (stateless HTTP: every request stands alone)."""
        self.version = version
        self.peer_capabilities = peer_capabilities or {}
        self.apply(_ASSUMED)

    def close(self) -> None:
        """The connection ended."""
        self.apply(_CLOSED_EVENT)
