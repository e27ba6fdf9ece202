"""``mcp.server.extension`` on mcpkit: 2.x's opt-in server extensions (SEP-2133),
``MCPServer(extensions=[...])``.

An :class:`Extension` declares what it contributes and the server consumes it, as on the
official SDK: its ``settings()`` advertised under ``capabilities.extensions[identifier]``,
its tools (:class:`ToolBinding`) and resources (:class:`ResourceBinding`) registered like
any other, its request methods (:class:`MethodBinding`) served on mcpkit's server (params
validated by their model, refused with -32601 at a protocol version the binding does not
admit), and its ``intercept_tool_call`` folded around ``tools/call`` (the first extension
outermost). :func:`apply_extensions` does it for the compat ``MCPServer``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpkit.compat.mcp.shared.extension import validate_extension_identifier
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject

__all__ = [
    "Extension",
    "MethodBinding",
    "RequestHandler",
    "ResourceBinding",
    "ToolBinding",
    "compose_tool_call_handler",
    "validate_extension_identifier",
]

#: ``async handler(ctx, params) -> result`` of an extension's request method.
RequestHandler = Callable[[Any, Any], Awaitable[Any]]

#: The protocol's own request methods, which an extension may not bind (any revision).
SPEC_CLIENT_METHODS = frozenset(
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
        "server/discover",
        "subscriptions/listen",
        "tools/call",
        "tools/list",
    }
)


@dataclass(frozen=True)
class ToolBinding:
    """A tool an extension contributes, plus the ``_meta`` to stamp on it."""

    fn: Callable[..., Any]
    meta: dict[str, Any] | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResourceBinding:
    """A pre-built resource an extension contributes (``mcp.server.mcpserver.resources``),
    served as ``MCPServer.add_resource`` serves it."""

    resource: Any


@dataclass(frozen=True)
class MethodBinding:
    """A new request method an extension serves: ``params_type`` validates the params
    before ``handler(ctx, params)`` runs; ``protocol_versions`` (None: every one) are the
    revisions it is served at. A protocol method cannot be bound (ValueError)."""

    method: str
    params_type: Any
    handler: RequestHandler
    protocol_versions: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if self.method in SPEC_CLIENT_METHODS:
            raise ValueError(
                f"MethodBinding cannot bind spec method {self.method!r}; extension methods are "
                "additive — use Extension.intercept_tool_call or Server.middleware to wrap core "
                "behaviour"
            )
        if self.protocol_versions is not None and not self.protocol_versions:
            raise ValueError(
                f"MethodBinding for {self.method!r} has an empty protocol_versions set, so it "
                "could never be served; use None to admit every version"
            )


class Extension:
    """Base class of an extension: set ``identifier`` (``vendor-prefix/name``, checked when
    the subclass is defined) and override what it contributes."""

    #: Reverse-DNS identifier, advertised under ``capabilities.extensions``.
    identifier: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        identifier = cls.__dict__.get("identifier")
        if identifier is not None:
            validate_extension_identifier(identifier, owner=cls.__name__)

    def settings(self) -> dict[str, Any]:
        """What is advertised at ``capabilities.extensions[identifier]``."""
        return {}

    def tools(self) -> Sequence[ToolBinding]:
        """The tools this extension contributes."""
        return ()

    def resources(self) -> Sequence[ResourceBinding]:
        """The resources this extension contributes."""
        return ()

    def methods(self) -> Sequence[MethodBinding]:
        """The request methods this extension serves."""
        return ()

    async def intercept_tool_call(self, params: Any, ctx: Any, call_next: Any) -> Any:
        """Wrap ``tools/call``: return a result without calling ``call_next(ctx)`` to answer
        in the tool's place, or observe the call. Default: pass through."""
        return await call_next(ctx)


def compose_tool_call_handler(extensions: Sequence[Extension], handler: RequestHandler) -> Any:
    """``handler(ctx, params)`` with every extension's ``intercept_tool_call`` around it,
    the first extension outermost."""

    async def wrapped(ctx: Any, params: Any) -> Any:
        async def innermost(inner_ctx: Any) -> Any:
            return await handler(inner_ctx, params)

        chain: Callable[[Any], Awaitable[Any]] = innermost
        for extension in reversed(extensions):
            chain = _bind_interceptor(extension, params, chain)
        return await chain(ctx)

    return wrapped


def _bind_interceptor(
    extension: Extension, params: Any, call_next: Callable[[Any], Awaitable[Any]]
) -> Callable[[Any], Awaitable[Any]]:
    async def call(ctx: Any) -> Any:
        return await extension.intercept_tool_call(params, ctx, call_next)

    return call


def _intercepts(extension: Any) -> bool:
    return type(extension).intercept_tool_call is not Extension.intercept_tool_call


def apply_extensions(server: Any, extensions: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """Apply ``extensions`` to the compat ``MCPServer`` ``server`` as 2.x does (tools,
    resources, methods, then one ``tools/call`` interceptor); returns the settings to
    advertise, by identifier."""
    applied: dict[str, dict[str, Any]] = {}
    native = server.native
    for extension in extensions:
        identifier = getattr(extension, "identifier", None)
        validate_extension_identifier(identifier, owner=type(extension).__name__)
        if identifier in applied:
            raise ValueError(f"Extension {identifier!r} is already registered")
        for tool in extension.tools():
            server.add_tool(tool.fn, meta=tool.meta, **tool.kwargs)
        for binding in extension.resources():
            server.add_resource(binding.resource)
        for method in extension.methods():
            if method.method in native._raw_handlers:
                raise ValueError(
                    f"Extension {identifier!r} binds method {method.method!r}, which is already "
                    "registered; extension methods are additive and cannot replace another "
                    "handler"
                )
            native.request_handler(method.method)(_method_handler(server, method))
        applied[str(identifier)] = dict(extension.settings())
    intercepting = [e for e in extensions if _intercepts(e)]
    if intercepting:
        interceptor = _interceptor(server, list(extensions))
        native.add_middleware(interceptor)
        # kept innermost when middleware is appended later (MiddlewareList)
        native.compat_innermost = interceptor
    return applied


def request_context(server: Any, native_ctx: Any, method: str, params: JSONObject | None) -> Any:
    """The ``ServerRequestContext`` a handler of ``server`` gets for this request."""
    from mcpkit.compat._native import lifespan_of
    from mcpkit.compat.mcp.server.context import ServerRequestContext
    from mcpkit.compat.mcp.server.mcpserver.context import ServerSession

    version = native_ctx.protocol_version
    meta = (params or {}).get("_meta")
    return ServerRequestContext(
        session=ServerSession(native_ctx),
        lifespan_context=lifespan_of(native_ctx),
        protocol_version=version.name if version is not None else "",
        method=method,
        params=params,
        request_id=native_ctx.request_id,
        meta=meta,
    )


def _wire(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, exclude_none=True, mode="json")
    return value


async def _answer(ctx: Any, produce: Awaitable[Any]) -> Any:
    """What a handler produced, its failure answered as 2.x answers it: an MCPError as it
    is; any other exception with code 0 and its text in the handshake era, an internal
    error without it on 2026-07-28."""
    try:
        return _wire(await produce)
    except McpError:
        raise
    except Exception as exc:
        from mcpkit.compat._native import handler_failed

        raise handler_failed(exc, ctx.era == "modern", getattr(ctx, "session", None)) from exc


def _method_handler(server: Any, binding: MethodBinding) -> Any:
    from pydantic import ValidationError

    versions = binding.protocol_versions

    async def handle(params: JSONObject | None, rctx: Any) -> JSONObject:
        ctx = rctx.context()
        try:
            parsed = binding.params_type.model_validate(params or {})
        except ValidationError as exc:
            raise McpError(INVALID_PARAMS, "Invalid request parameters", "") from exc
        sctx = request_context(server, ctx, binding.method, params)
        if versions is not None and sctx.protocol_version not in versions:
            raise McpError(METHOD_NOT_FOUND, "Method not found", binding.method)
        result = await _answer(ctx, binding.handler(sctx, parsed))
        return result if isinstance(result, dict) else {}

    return handle


def _interceptor(server: Any, extensions: list[Any]) -> Any:
    """mcpkit middleware running ``tools/call`` through the extensions' interceptors: the
    innermost ``call_next`` runs the tool (its ``CallToolResult``), and what the chain
    returns is the answer."""

    async def around(mctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if mctx.method != "tools/call" or mctx.is_notification:
            return await call_next(mctx)
        import mcpkit.compat.mcp.types as types

        native_ctx = mctx.context
        params = types.CallToolRequestParams.model_validate(mctx.params or {})
        sctx = request_context(server, native_ctx, "tools/call", mctx.params)

        async def handler(inner: Any, _params: Any) -> Any:
            if inner is not sctx and inner.params is not sctx.params:
                mctx.params = dict(inner.params) if inner.params is not None else None
            result = await call_next(mctx)
            try:
                return types.CallToolResult.model_validate(result)
            except ValueError:
                return result

        chain = compose_tool_call_handler(extensions, handler)
        result = await _answer(native_ctx, chain(sctx, params))
        if not isinstance(result, dict):
            return {}
        if native_ctx.era != "modern" and "content" not in result:
            # a result that is no CallToolResult has no meaning before 2026-07-28
            raise McpError(INTERNAL_ERROR, "Handler returned an invalid result")
        return result

    return around


def require_client_extension(ctx: Any, identifier: str) -> None:
    """Refuse the request unless its client declared the extension ``identifier``: an
    MCPError with -32021 (missing required client capability) and the
    ``requiredCapabilities`` it needs, as 2.x's ``mcp.server.mcpserver`` raises it."""
    from mcpkit.envelope import MISSING_REQUIRED_CLIENT_CAPABILITY

    capabilities = ctx.session.client_capabilities
    declared = getattr(capabilities, "extensions", None) if capabilities else None
    if not declared or identifier not in declared:
        raise McpError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"Client did not declare required extension {identifier!r}",
            {"requiredCapabilities": {"extensions": {identifier: {}}}},
        )
