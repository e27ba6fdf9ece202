"""The native server the compat layers register on: a :class:`mcpkit.Server` whose
``initialize`` result declares the capabilities the way the other SDK declares them.

Only the declaration changes: the session still allows itself what mcpkit serves (log
messages, list-change notifications), as the other SDKs send those whatever they declared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from mcpkit import versions
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.server.app import Server
from mcpkit.versions import ProtocolVersion

if TYPE_CHECKING:
    from mcpkit.server.http_app import ServerHTTPApp

__all__ = ["SESSION_NOT_FOUND_V1", "SESSION_NOT_FOUND_V2", "CompatServer", "lifespan_of"]

#: What ``mcp`` 2.x (and fastmcp) answer, with 404, a request for a session that is unknown,
#: ended, expired or another credential's.
SESSION_NOT_FOUND_V2: Final = (
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found"}}'
)
#: ``mcp`` 1.x's answer to the same.
SESSION_NOT_FOUND_V1: Final = (
    b'{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Session not found"}}'
)

#: ``declare_as(native_capabilities) -> capabilities`` for a handshake-era client.
CapabilityRule = Callable[[JSONObject], JSONObject]


#: The capabilities of what a server serves (the rest, logging included, stay mcpkit's).
_FEATURES = frozenset({"tools", "resources", "prompts", "completions"})


def handler_failed(exc: Exception, modern: bool, session: Any) -> McpError:
    """The error a low-level handler's exception ``exc`` answers its request with: on the
    handshake era its text with code 0, on 2026-07-28 ``Internal server error``. A session
    an SDK client made in memory with ``raise_exceptions=True`` keeps the exception for
    that client to raise as it leaves (its ``compat_raised`` list) and, on 2026-07-28,
    answers with its text, as the SDK's in-process server does."""
    raised = getattr(session, "compat_raised", None)
    if raised is not None:
        raised.append(exc)
    if not modern:
        return McpError(0, str(exc))
    return McpError(INTERNAL_ERROR, "Internal server error" if raised is None else str(exc))


#: The keys of the request envelope the official SDK 2.x requires, in its order.
_ENVELOPE_KEYS = (
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
)


def envelope_refused_v2(params: Any, error: McpError) -> McpError:
    """A 2026-07-28 request without its ``_meta`` envelope (or without a key of it), as the
    official SDK 2.x answers it; any other malformed envelope as mcpkit words it."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        if params is None or isinstance(params, dict):
            keys = " and ".join(f"'{key}'" for key in _ENVELOPE_KEYS)
            return McpError(
                INVALID_PARAMS,
                f"params._meta must be an object carrying the required {keys} envelope keys",
            )
        return error
    missing = [key for key in _ENVELOPE_KEYS if key not in meta]
    if missing:
        return McpError(
            INVALID_PARAMS,
            f"params._meta is missing the required envelope key(s): {', '.join(missing)}",
        )
    return error


def method_not_found_v2(method: str) -> McpError:
    """A method nobody serves, as the official SDK 2.x (and fastmcp on it) answers it."""
    return McpError(METHOD_NOT_FOUND, "Method not found", method)


#: The request methods the official SDK 1.x knows (its ``ClientRequest``).
_V1_METHODS = frozenset(
    {
        "completion/complete",
        "initialize",
        "logging/setLevel",
        "ping",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/subscribe",
        "resources/templates/list",
        "resources/unsubscribe",
        "tasks/cancel",
        "tasks/get",
        "tasks/list",
        "tasks/result",
        "tools/call",
        "tools/list",
    }
)


def method_not_found_v1(method: str) -> McpError:
    """A method nobody serves, as the official SDK 1.x answers it: one of its requests
    without a handler is not found; any other is no request it can parse (invalid
    params)."""
    if method in _V1_METHODS:
        return McpError(METHOD_NOT_FOUND, "Method not found")
    return McpError(INVALID_PARAMS, "Invalid request parameters", "")


class CompatServer(Server[Any]):
    """A :class:`mcpkit.Server` whose ``initialize`` answer carries :attr:`declare_as`'s
    capabilities. On 2026-07-28, which has no handshake, mcpkit's capabilities are kept but
    for the features :attr:`declare_as` leaves out (a low-level server without a prompts
    handler serves no prompts there either)."""

    #: Makes the official SDK's low-level ``Server`` over a compat server (an
    #: ``MCPServer``'s ``_lowlevel_server``): set by ``mcp.server.lowlevel``, which every
    #: import of ``mcp.server.*`` loads first (it is not imported from here: a cycle).
    lowlevel_over: ClassVar[Callable[[CompatServer], Any] | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Rewrites the capabilities mcpkit would declare at ``initialize`` (None: as is).
        self.declare_as: CapabilityRule | None = None
        #: Whether adding or removing a component while serving tells clients on its own
        #: (fastmcp's servers do; the official SDK's leave it to the server's code).
        self.announce_registrations = True
        #: On 2026-07-28, let a request for a feature :attr:`declare_as` leaves out reach
        #: the handlers (which answer it as the other SDK does) instead of refusing it; the
        #: feature stays out of ``server/discover``.
        self.answer_undeclared = False
        #: Rewrites the capabilities ``server/discover`` declares on 2026-07-28 (None: as
        #: they are); what the session allows itself stays :meth:`capabilities`' (so log
        #: messages go out undeclared, as the other SDK sends them).
        self.declare_modern: CapabilityRule | None = None
        self._registering = False
        #: The body of the 404 for a session not found, as the other SDK words it (None:
        #: mcpkit's); given to each HTTP app :meth:`http_app` makes.
        self.session_not_found: bytes | None = SESSION_NOT_FOUND_V2
        #: The error a method nobody serves is answered with (2.x's by default).
        self.method_not_found: Callable[[str], McpError] = method_not_found_v2
        #: The error a 2026-07-28 request with a missing or malformed envelope is answered
        #: with (2.x's wording by default).
        self.envelope_refused: Callable[[Any, McpError], McpError] = envelope_refused_v2
        #: Makes the HTTP+SSE endpoints an app serving them uses instead of mcpkit's own
        #: (``run("sse")``: the SDK's paths and answers; None: mcpkit's).
        self.sse_endpoints: Callable[[], Any] | None = None
        #: What the lifespan yielded for each HTTP+SSE connection that entered its own (by
        #: session id; ``run("sse")``, as the SDK's ``sse_app()`` enters it per connection).
        self.connection_lifespans: dict[str, Any] = {}
        self.request_handler("initialize")(self._initialize)

    def http_app(self, *args: Any, **kwargs: Any) -> ServerHTTPApp:
        """:meth:`mcpkit.Server.http_app`, answering a session not found in the other SDK's
        words (:attr:`session_not_found`)."""
        asgi = super().http_app(*args, **kwargs)
        asgi.app.session_not_found = self.session_not_found
        asgi.app.sdk_streams = True
        if asgi.app.legacy is not None and self.sse_endpoints is not None:
            asgi.app.legacy = self.sse_endpoints()
        return asgi

    def _changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        self._registering = not self.announce_registrations
        try:
            super()._changed(kind)
        finally:
            self._registering = False

    def changes_for_listeners_only(self) -> None:
        """From now on, list changes and resource updates published on :attr:`bus` reach
        only ``subscriptions/listen`` streams, as in the official SDK 2.x (a handshake-era
        client hears of a change only when the server's code tells its session)."""
        from mcpkit.server.subscriptions import deliver_to_sessions

        self.relay.sinks = [
            sink
            for sink in self.relay.sinks
            if getattr(sink, "func", None) is not deliver_to_sessions
        ]

    def notify_list_changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        """Announce that the ``kind`` list changed (not for a registration when
        :attr:`announce_registrations` is off)."""
        if not self._registering:
            super().notify_list_changed(kind)

    def capabilities(self, version: ProtocolVersion = versions.LATEST) -> JSONObject:
        """The capabilities this server declares to a client on ``version``."""
        caps = super().capabilities(version)
        rule = self.declare_as
        if rule is None or version.era == "legacy" or self.answer_undeclared:
            return caps
        return self._declared_only(caps, rule)

    @staticmethod
    def _declared_only(caps: JSONObject, rule: CapabilityRule) -> JSONObject:
        declared = rule(caps)
        return {k: v for k, v in caps.items() if k not in _FEATURES or k in declared}

    def discover(self) -> JSONObject:
        """The ``server/discover`` result, with the features :attr:`declare_as` declares."""
        result = super().discover()
        rule = self.declare_as
        if self.answer_undeclared and rule is not None:
            result = {**result, "capabilities": self._declared_only(result["capabilities"], rule)}
        if self.declare_modern is not None:
            result = {**result, "capabilities": self.declare_modern(result["capabilities"])}
        return result

    async def _initialize(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        session = rctx.session
        result: JSONObject = await type(session)._initialize(session, params, rctx)
        rule = self.declare_as
        if rule is not None:
            result = {**result, "capabilities": rule(dict(result["capabilities"]))}
        return result


def lifespan_of(ctx: Any) -> Any:
    """What the lifespan yielded for the request of the native context ``ctx``: its HTTP+SSE
    connection's own entry when it has one, else the server's."""
    entries = getattr(ctx.server, "connection_lifespans", None)
    if entries:
        sid = ctx.session.transport.info.session_id
        if sid in entries:
            return entries[sid]
    try:
        return ctx.lifespan
    except RuntimeError:  # an HTTP app mounted without its lifespan: none to hand over
        return None
