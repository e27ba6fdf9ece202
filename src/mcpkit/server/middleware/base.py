"""The middleware interface: :class:`MiddlewareContext`, :class:`Middleware` and the
function form ``async (ctx, call_next) -> result``.

A middleware runs around every incoming request and notification a
:class:`~mcpkit.server.app.Server` handles, on both eras and every transport. It is given a
:class:`MiddlewareContext` (the method, its params, the request and session, who is asking)
and ``call_next``, the rest of the chain; it returns what ``call_next(ctx)`` returned, a
changed copy of it, or a result of its own without calling it (a short circuit), or raises
:class:`~mcpkit.errors.McpError` (the client gets that error). The first middleware added
is the outermost.

:class:`Middleware` is an optional base class with typed hooks per method
(:meth:`Middleware.on_call_tool`, :meth:`Middleware.on_read_resource`, ...), and the
catch-alls :meth:`Middleware.on_message`, :meth:`Middleware.on_request` and
:meth:`Middleware.on_notification`; only the hooks a subclass overrides are put in the chain,
so a middleware that overrides only ``on_call_tool`` costs nothing on ``tools/list``.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeAlias, cast

from mcpkit.jsonrpc import JSONObject, RequestId

if TYPE_CHECKING:
    from mcpkit.http_request import HttpRequest
    from mcpkit.server.context import Context, ServerView
    from mcpkit.server.session import AppSession, ServerRequestContext
    from mcpkit.versions import Era

    #: The server a :class:`MiddlewareContext` names (its :attr:`~MiddlewareContext.server`).
    MiddlewareServer: TypeAlias = ServerView[Any]

__all__ = [
    "METHOD_HOOKS",
    "CallNext",
    "HookProvider",
    "Middleware",
    "MiddlewareContext",
    "MiddlewareFunction",
    "MiddlewareLike",
    "hooks_of",
]

#: The rest of the chain: call it with the context (the same one, or with changed params).
CallNext = Callable[["MiddlewareContext"], Awaitable[Any]]
#: A middleware as a function: ``async def m(ctx, call_next): return await call_next(ctx)``.
MiddlewareFunction = Callable[["MiddlewareContext", CallNext], Awaitable[Any]]

#: The typed hook of each method (see :class:`Middleware`).
METHOD_HOOKS: Final[dict[str, str]] = {
    "initialize": "on_initialize",
    "ping": "on_ping",
    "tools/call": "on_call_tool",
    "tools/list": "on_list_tools",
    "resources/read": "on_read_resource",
    "resources/list": "on_list_resources",
    "resources/templates/list": "on_list_resource_templates",
    "resources/subscribe": "on_subscribe",
    "resources/unsubscribe": "on_unsubscribe",
    "prompts/get": "on_get_prompt",
    "prompts/list": "on_list_prompts",
    "completion/complete": "on_complete",
    "logging/setLevel": "on_set_logging_level",
    "server/discover": "on_discover",
    "subscriptions/listen": "on_listen",
}


class _HttpOrigin:
    """What the HTTP app knows about the HTTP request a message came in (set for the
    handler's task, which inherits it)."""

    __slots__ = ("gate", "remote_address")

    def __init__(self, remote_address: str | None, gate: Any) -> None:
        self.remote_address = remote_address
        #: The app's in-flight gate (``http_app(max_in_flight=)``), or None.
        self.gate = gate


#: Set by the HTTP app around each HTTP request when the server has middleware.
http_origin: contextvars.ContextVar[_HttpOrigin | None] = contextvars.ContextVar(
    "mcpkit_http_origin", default=None
)


class MiddlewareContext:
    """One incoming request or notification, as a middleware sees it.

    ``method`` and ``params`` (which a middleware may replace before ``call_next``: the
    handler gets the new params); ``request`` (the engine's request context, None for a
    notification) and ``session``; :attr:`context` (the :class:`Context` user functions
    get); who asks (:attr:`principal`, :attr:`session_id`, :attr:`remote_address`,
    :attr:`client_id`); :attr:`era`; ``state``, a dict the middleware of one message share.
    """

    __slots__ = ("_context", "_server", "_state", "method", "params", "request", "session")

    def __init__(
        self,
        method: str,
        params: JSONObject | None,
        request: ServerRequestContext | None,
        session: AppSession,
        server: ServerView[Any] | None = None,
    ) -> None:
        self.method = method
        self.params = params
        #: The engine's request context (None for a notification).
        self.request = request
        self.session = session
        self._state: dict[str, Any] | None = None
        self._context: Context | None = None
        self._server = server

    @property
    def state(self) -> dict[str, Any]:
        """Scratch space shared by the middleware of this message (made on first use)."""
        state = self._state
        if state is None:
            state = self._state = {}
        return state

    @property
    def server(self) -> ServerView[Any]:
        """The server whose middleware this is (a mounted server's own, for the requests
        its parent passes it)."""
        server = self._server
        if server is None:  # the session's server: a Server, which a ServerView is of
            return cast("ServerView[Any]", self.session.server)
        return server

    @property
    def is_notification(self) -> bool:
        """True for a notification (no response; ``call_next``'s result is None)."""
        return self.request is None

    @property
    def request_id(self) -> RequestId | None:
        """The JSON-RPC id of the request (None for a notification)."""
        return None if self.request is None else self.request.request_id

    @property
    def context(self) -> Context:
        """The :class:`~mcpkit.server.context.Context` of this request (made once); a
        notification has none (RuntimeError)."""
        ctx = self._context
        if ctx is None:
            if self.request is None:
                raise RuntimeError(f"{self.method} is a notification: it has no Context")
            ctx = self._context = self.request.context()
        return ctx

    @property
    def era(self) -> Era:
        """``"modern"`` for a 2026-07-28 request (or a notification on a modern
        connection), else ``"legacy"``."""
        if self.request is not None:
            return "modern" if self.request.envelope is not None else "legacy"
        return "modern" if self.session.era == "modern" else "legacy"

    @property
    def meta(self) -> JSONObject | None:
        """``params._meta`` (None when absent)."""
        params = self.params
        meta = params.get("_meta") if type(params) is dict else None
        return meta if type(meta) is dict else None

    @property
    def name(self) -> str | None:
        """What the request names: the tool of ``tools/call``, the prompt of
        ``prompts/get``, the URI of ``resources/read`` (and subscribe); else None."""
        params = self.params
        if type(params) is not dict:
            return None
        value = params.get("uri") if self.method.startswith("resources/") else params.get("name")
        return value if type(value) is str else None

    @property
    def principal(self) -> str | None:
        """The authenticated subject (or client id) when the request's token was checked
        (wherever ``auth`` was attached), else None."""
        if self.request is not None:
            return self.request.principal
        from mcpkit.owner import current_token

        token = current_token()
        return None if token is None else (token.subject or token.client_id)

    @property
    def http_request(self) -> HttpRequest | None:
        """The HTTP request that carried this message (what handlers read as
        ``ctx.request``); None over stdio and in memory."""
        if self.session.transport.info.kind in ("stdio", "memory"):
            return None
        from mcpkit.http_request import current_http_request

        return current_http_request()

    @property
    def session_id(self) -> str | None:
        """The HTTP ``Mcp-Session-Id`` of a 2025-era HTTP session, else None (stdio and
        in-memory connections, stateless requests)."""
        return self.session.transport.info.session_id

    @property
    def remote_address(self) -> str | None:
        """The client's IP address for a message that came over HTTP, else None."""
        origin = http_origin.get()
        return None if origin is None else origin.remote_address

    @property
    def client_id(self) -> str:
        """Who asks, for per-client limits: ``principal:<subject>`` when authenticated, else
        ``session:<Mcp-Session-Id>``, else ``address:<ip>``, else ``connection:<id>`` (one
        stdio or in-memory connection)."""
        principal = self.principal
        if principal is not None:
            return "principal:" + principal
        sid = self.session_id
        if sid is not None:
            return "session:" + sid
        address = self.remote_address
        if address is not None:
            return "address:" + address
        return "connection:" + self.session.task_owner_key

    def __repr__(self) -> str:
        kind = "notification" if self.request is None else f"request {self.request_id!r}"
        return f"<MiddlewareContext {self.method} {kind}>"


class HookProvider(Protocol):
    """A middleware object that says which hooks serve a method (what :class:`Middleware`
    implements); anything else callable is one hook for every message."""

    def hooks_for(self, method: str, notification: bool) -> list[MiddlewareFunction]:
        """The hooks (outermost first) this middleware runs for ``method``."""
        ...


#: What ``add_middleware`` takes: a :class:`Middleware` or an async function.
MiddlewareLike = MiddlewareFunction | HookProvider


def hooks_of(middleware: Any, method: str, notification: bool) -> list[MiddlewareFunction]:
    """The hooks ``middleware`` runs for ``method`` (outermost first)."""
    resolve = getattr(middleware, "hooks_for", None)
    if resolve is not None:
        hooks: list[MiddlewareFunction] = resolve(method, notification)
        return hooks
    return [middleware]


class Middleware:
    """Base class of a middleware with hooks: override the ones you need.

    For a request, the hooks run outermost first: :meth:`on_message`, :meth:`on_request`,
    then the method's own (``tools/call`` -> :meth:`on_call_tool`, see
    :data:`METHOD_HOOKS`); for a notification :meth:`on_message`, then
    :meth:`on_notification`. Each is ``async (ctx, call_next) -> result``; the defaults pass
    straight through and are left out of the chain. An instance is also callable as a
    whole middleware function.
    """

    async def on_message(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        """Every request and notification."""
        return await call_next(ctx)

    async def on_request(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        """Every request."""
        return await call_next(ctx)

    async def on_notification(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        """Every notification the server handles (the result is ignored)."""
        return await call_next(ctx)

    async def on_initialize(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``initialize`` (2025 era; the version is already negotiated when it runs)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_ping(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``ping``."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_call_tool(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``tools/call`` (``ctx.name`` is the tool's name)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_list_tools(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``tools/list`` (its ``tools`` may be pre-encoded: see :func:`plain_result`)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_read_resource(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``resources/read`` (``ctx.name`` is the URI)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_list_resources(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``resources/list``."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_list_resource_templates(
        self, ctx: MiddlewareContext, call_next: CallNext
    ) -> JSONObject:
        """``resources/templates/list``."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_subscribe(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``resources/subscribe`` (2025 era)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_unsubscribe(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``resources/unsubscribe`` (2025 era)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_get_prompt(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``prompts/get`` (``ctx.name`` is the prompt's name)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_list_prompts(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``prompts/list``."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_complete(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``completion/complete``."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_set_logging_level(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``logging/setLevel`` (2025 era)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_discover(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``server/discover`` (2026-07-28)."""
        result: JSONObject = await call_next(ctx)
        return result

    async def on_listen(self, ctx: MiddlewareContext, call_next: CallNext) -> JSONObject:
        """``subscriptions/listen`` (2026-07-28; ``call_next`` returns when the stream ends)."""
        result: JSONObject = await call_next(ctx)
        return result

    def hooks_for(self, method: str, notification: bool) -> list[MiddlewareFunction]:
        """The hooks this middleware overrides that apply to ``method``, outermost first."""
        cls = type(self)
        names = ["on_message"]
        if notification:
            names.append("on_notification")
        else:
            names.append("on_request")
            own = METHOD_HOOKS.get(method)
            if own is not None:
                names.append(own)
        return [
            getattr(self, name)
            for name in names
            if getattr(cls, name) is not getattr(Middleware, name)
        ]

    async def __call__(self, ctx: MiddlewareContext, call_next: CallNext) -> Any:
        hooks = self.hooks_for(ctx.method, ctx.is_notification)
        call = call_next
        for hook in reversed(hooks):
            call = _link(hook, call)
        return await call(ctx)


def _link(hook: MiddlewareFunction, call_next: CallNext) -> CallNext:
    async def run(ctx: MiddlewareContext) -> Any:
        return await hook(ctx, call_next)

    return run
