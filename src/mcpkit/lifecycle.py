"""The MCP lifecycle as a sans-I/O state machine: phases, version negotiation, capabilities.

Nothing here does I/O. The session engine asks a :class:`Lifecycle` whether an incoming
request may be served now, whether an outgoing request may be sent to this peer, and feeds
it the ``initialize`` exchange.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from mcpkit import versions
from mcpkit.errors import McpError, RequestRefused
from mcpkit.jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, JSONObject
from mcpkit.versions import ProtocolVersion

__all__ = [
    "CLIENT_CAPABILITY_FOR",
    "SERVER_CAPABILITY_FOR",
    "Lifecycle",
    "Phase",
    "Role",
    "has_capability",
]


class Role(Enum):
    """Which end of the connection this side is."""

    CLIENT = "client"
    SERVER = "server"


class Phase(Enum):
    """Where a connection is in its life."""

    NEW = "new"  # nothing exchanged yet
    INITIALIZING = "initializing"  # initialize answered, `initialized` not yet seen/sent
    OPERATING = "operating"
    CLOSED = "closed"


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

_ALWAYS = frozenset({"ping"})


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

    __slots__ = ("capabilities", "peer_capabilities", "peer_info", "phase", "role", "version")

    def __init__(self, role: Role, capabilities: JSONObject | None = None) -> None:
        self.role = role
        self.phase = Phase.NEW
        self.version: ProtocolVersion | None = None
        self.capabilities: JSONObject = capabilities or {}
        self.peer_capabilities: JSONObject = {}
        self.peer_info: JSONObject = {}

    # -- incoming -----------------------------------------------------------------------------

    def check_incoming_request(self, method: str) -> McpError | None:
        """An error to answer ``method`` with in the current phase, or None to serve it.

        A request for a capability this side did not declare gets -32601, whatever handlers
        are registered.
        """
        phase = self.phase
        if phase is Phase.OPERATING:
            return self._own_capability_error(method)
        if method in _ALWAYS:
            return None
        if self.role is Role.SERVER:
            if method == "initialize":
                if phase is Phase.NEW:
                    return None
                return McpError(INVALID_REQUEST, "Session is already initialized")
            if phase is Phase.NEW:
                return McpError(
                    INVALID_REQUEST,
                    f"Session not initialized: send 'initialize' before {method!r}",
                )
            # INITIALIZING: the client had its answer; be lenient, but capabilities hold.
            return self._own_capability_error(method)
        if phase is Phase.NEW:
            return McpError(
                INVALID_REQUEST, f"Request {method!r} received before initialization finished"
            )
        return None

    def _own_capability_error(self, method: str) -> McpError | None:
        table = SERVER_CAPABILITY_FOR if self.role is Role.SERVER else CLIENT_CAPABILITY_FOR
        path = table.get(method)
        if path is None or has_capability(self.capabilities, path):
            return None
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
        if method in _ALWAYS:
            return
        if self.phase is Phase.CLOSED:
            return  # the session reports the closed connection itself
        if self.role is Role.CLIENT:
            if method == "initialize":
                return
            if self.phase is Phase.NEW:
                raise RequestRefused(
                    INVALID_REQUEST,
                    f"Cannot send {method!r} before initialization: only 'ping' may precede "
                    "the server's answer to 'initialize'",
                )
            table = SERVER_CAPABILITY_FOR
        else:
            if self.phase is Phase.NEW:
                raise RequestRefused(
                    INVALID_REQUEST,
                    f"Cannot send {method!r} before the client has initialized",
                )
            table = CLIENT_CAPABILITY_FOR
        path = table.get(method)
        if path is None:
            return
        if method == "completion/complete" and not self._completions_declared_by_version():
            return
        if not has_capability(self.peer_capabilities, path):
            peer = "server" if self.role is Role.CLIENT else "client"
            raise RequestRefused(
                METHOD_NOT_FOUND,
                f"The {peer} did not declare the capability {'.'.join(path)!r} "
                f"needed for {method!r}",
            )

    def check_outgoing_notification(self, method: str) -> None:
        """Raise :class:`RequestRefused` when this side did not declare what ``method``
        announces."""
        path = OWN_CAPABILITY_FOR_NOTIFICATION.get(method)
        if path is not None and not has_capability(self.capabilities, path):
            raise RequestRefused(
                METHOD_NOT_FOUND,
                f"Cannot send {method!r}: this side did not declare {'.'.join(path)!r}",
            )

    def _completions_declared_by_version(self) -> bool:
        # The `completions` capability exists since 2025-03-26; older servers answer anyway.
        v = self.version
        return v is None or v.audio

    # -- the initialize exchange ----------------------------------------------------------------

    def server_initialize(
        self,
        params: JSONObject | None,
        supported: tuple[ProtocolVersion, ...] = versions.SUPPORTED,
    ) -> ProtocolVersion:
        """Server: take the client's ``initialize`` params; return the version to answer with."""
        if self.phase is not Phase.NEW:
            raise McpError(INVALID_REQUEST, "Session is already initialized")
        if not isinstance(params, dict):
            raise McpError(-32602, "initialize: params must be an object")
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise McpError(-32602, "initialize: 'protocolVersion' must be a string")
        caps = params.get("capabilities")
        if caps is None:
            caps = {}
        if not isinstance(caps, dict):
            raise McpError(-32602, "initialize: 'capabilities' must be an object")
        info = params.get("clientInfo")
        if info is not None and not isinstance(info, dict):
            raise McpError(-32602, "initialize: 'clientInfo' must be an object")
        version = versions.negotiate(requested, supported)
        self.version = version
        self.peer_capabilities = caps
        self.peer_info = info or {}
        self.phase = Phase.INITIALIZING
        return version

    def server_initialized(self) -> None:
        """Server: the client's ``notifications/initialized`` arrived."""
        if self.phase is not Phase.CLOSED:
            self.phase = Phase.OPERATING

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
                if v.name == answered:
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
        self.phase = Phase.OPERATING
        return version

    def assume(self, version: ProtocolVersion, peer_capabilities: JSONObject | None = None) -> None:
        """Skip the handshake (stateless HTTP: every request stands alone)."""
        self.version = version
        self.peer_capabilities = peer_capabilities or {}
        self.phase = Phase.OPERATING
