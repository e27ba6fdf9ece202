"""The official SDK's low-level ``Server`` on mcpkit, in both of its generations:

- 1.x: handlers registered by decorators (``@server.list_tools()``, ``@server.call_tool()``,
  ``@server.read_resource()``, ...), each taking the request's fields and returning the
  result (or its items); the request is reached through :attr:`Server.request_context`.
- 2.x: handlers given to the constructor (``on_list_tools=``, ``on_call_tool=``, ...), each
  an ``async (ctx, params)`` returning the result model.

Either way ``await server.run(read, write, server.create_initialization_options())`` inside
``async with stdio_server() as (read, write)`` serves stdin/stdout with mcpkit (both protocol
eras), the capabilities declared at ``initialize`` are the ones the options say, and a
handler's failure reaches the client as the official SDK reports it.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, Generic

from typing_extensions import TypeVar

from mcpkit.compat._native import (
    SESSION_NOT_FOUND_V1,
    SESSION_NOT_FOUND_V2,
    CompatServer,
    handler_failed,
    method_not_found_v1,
    method_not_found_v2,
)
from mcpkit.compat.mcp.server.lowlevel.experimental import ExperimentalHandlers
from mcpkit.compat.mcp.server.mcpserver.by_hand import input_response as _input_response
from mcpkit.compat.mcp.server.mcpserver.context import (
    ReadResourceContents,
    RequestContext,
    ServerSession,
    sse_closers,
)
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.server.app import ServerHTTPApp
from mcpkit.server.context import Context as NativeContext
from mcpkit.server.session import ServerRequestContext as NativeRequestContext

__all__ = ["NotificationOptions", "Server", "request_ctx"]

LifespanResultT = TypeVar("LifespanResultT", default=Any)
RequestT = TypeVar("RequestT", default=Any)
F = TypeVar("F", bound=Callable[..., Any])

#: The request being served (what :attr:`Server.request_context` returns).
request_ctx: contextvars.ContextVar[RequestContext[Any]] = contextvars.ContextVar("request_ctx")

URL_ELICITATION_REQUIRED = -32042

Produce = Callable[[JSONObject, NativeContext], Awaitable[Any]]


class NotificationOptions:
    """Which ``listChanged`` flags :meth:`Server.create_initialization_options` declares."""

    def __init__(
        self,
        prompts_changed: bool = False,
        resources_changed: bool = False,
        tools_changed: bool = False,
    ) -> None:
        self.prompts_changed = prompts_changed
        self.resources_changed = resources_changed
        self.tools_changed = tools_changed


@contextlib.asynccontextmanager
async def lifespan(_: Any) -> AsyncIterator[dict[str, Any]]:
    """The default lifespan: yields an empty dict."""
    yield {}


#: The constructor's handlers (2.x) and the method each serves.
_ON_REQUESTS = {
    "on_list_tools": "tools/list",
    "on_call_tool": "tools/call",
    "on_list_resources": "resources/list",
    "on_list_resource_templates": "resources/templates/list",
    "on_read_resource": "resources/read",
    "on_subscribe_resource": "resources/subscribe",
    "on_unsubscribe_resource": "resources/unsubscribe",
    "on_list_prompts": "prompts/list",
    "on_get_prompt": "prompts/get",
    "on_completion": "completion/complete",
    "on_set_logging_level": "logging/setLevel",
    "on_ping": "ping",
}
_ON_NOTIFICATIONS = {
    "on_roots_list_changed": "notifications/roots/list_changed",
    "on_progress": "notifications/progress",
}
#: The params model of each method (names in :mod:`mcpkit.types`).
_PARAMS = {
    "tools/list": "PaginatedRequestParams",
    "tools/call": "CallToolRequestParams",
    "resources/list": "PaginatedRequestParams",
    "resources/templates/list": "PaginatedRequestParams",
    "resources/read": "ReadResourceRequestParams",
    "resources/subscribe": "SubscribeRequestParams",
    "resources/unsubscribe": "UnsubscribeRequestParams",
    "prompts/list": "PaginatedRequestParams",
    "prompts/get": "GetPromptRequestParams",
    "completion/complete": "CompleteRequestParams",
    "logging/setLevel": "SetLevelRequestParams",
    "ping": "RequestParams",
    "notifications/progress": "ProgressNotificationParams",
    "notifications/roots/list_changed": "NotificationParams",
}
#: The request model a 1.x list handler may ask for.
_REQUESTS = {
    "tools/list": "ListToolsRequest",
    "resources/list": "ListResourcesRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
    "prompts/list": "ListPromptsRequest",
}


def _types() -> Any:
    import mcpkit.types

    return mcpkit.types


def _wire(value: Any) -> Any:
    """A model (or a list of them) as its wire form."""
    if isinstance(value, list | tuple):
        return [_wire(v) for v in value]
    to_wire = getattr(value, "to_wire", None)
    if to_wire is not None:
        return to_wire()
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, exclude_none=True, mode="json")
    return value


def _params(method: str, params: JSONObject | None) -> Any:
    """``params`` as the method's model; a 2026-07-28 retry's ``inputResponses`` (each
    answer as its result model) and ``requestState`` read as ``input_responses`` and
    ``request_state``, as 2.x's params have them."""
    model = getattr(_types(), _PARAMS.get(method, "RequestParams"))
    parsed = model.model_validate(params or {})
    if method in ("tools/call", "prompts/get", "resources/read"):
        given = (params or {}).get("inputResponses")
        answers = (
            {key: _input_response(value) for key, value in given.items()}
            if isinstance(given, dict)
            else None
        )
        object.__setattr__(parsed, "input_responses", answers)
        object.__setattr__(parsed, "request_state", (params or {}).get("requestState"))
    return parsed


class Server(Generic[LifespanResultT, RequestT]):
    """A low-level server with the official SDK's API (1.x decorators or 2.x ``on_*``
    handlers), served by mcpkit (:attr:`native`)."""

    def __init__(
        self,
        name: str,
        version: str | None = None,
        instructions: str | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        lifespan: Callable[[Any], AbstractAsyncContextManager[Any]] = lifespan,
        *,
        title: str | None = None,
        description: str | None = None,
        **handlers: Any,
    ) -> None:
        self.name = name
        self.version = version
        self.title = title
        self.description = description
        self.instructions = instructions
        self.website_url = website_url
        self.icons = icons
        self.lifespan = lifespan
        self.extensions: dict[str, dict[str, Any]] = {}
        #: The methods served, in the order registered (the capabilities follow them).
        self.request_handlers: dict[str, Any] = {}
        self.notification_handlers: dict[str, Any] = {}
        self._tool_cache: dict[str, JSONObject] = {}
        self._declared: JSONObject | None = None
        self._session_manager: Any = None
        self._modern = False
        #: 1.x's experimental features (``enable_tasks()``).
        self.experimental = ExperimentalHandlers(self)

        #: The lifespan value of each HTTP+SSE connection ``run()`` serves, by session id:
        #: there, as on the SDK, each connection enters the lifespan (see :meth:`run`).
        self._connection_lifespans: dict[str, Any] = {}
        self._lifespan_per_connection = False
        #: What the lifespan yielded, when a transport entry entered it itself and hands it
        #: to the drivers of ``mcp.server.runner`` (a one-tuple; None: not given).
        self._given_lifespan: tuple[Any] | None = None
        #: The exceptions handlers raised, by request id, while ``serve_one`` serves.
        self._raised: dict[Any, BaseException] | None = None

        @contextlib.asynccontextmanager
        async def run_lifespan(_: Any) -> AsyncIterator[Any]:
            if self._lifespan_per_connection:
                yield None  # each connection enters its own
                return
            if self._given_lifespan is not None:
                yield self._given_lifespan[0]  # entered by the entry, not again
                return
            async with self.lifespan(self) as state:
                yield state

        #: The mcpkit server the handlers are registered on.
        self.native = CompatServer(
            name,
            version or "",
            instructions=instructions,
            title=title,
            description=description,
            icons=icons,
            website_url=website_url,
            lifespan=run_lifespan,
            # mcpkit allows what it serves; what the client is told is _declare_as's
            declare=("tools", "resources", "prompts", "completions"),
        )
        from mcpkit.compat.mcp.server.context import MiddlewareList

        #: The 2.x middleware chain (``async (ctx, call_next)``), outermost first: what is
        #: appended wraps every message, as on the official SDK.
        self.middleware: list[Any] = MiddlewareList(self.native)
        self.native.declare_as = self._declare_as
        self.native.method_not_found = self._unknown_method
        # 1.x's words for a session not found over HTTP until a 2.x handler is given.
        self.native.session_not_found = SESSION_NOT_FOUND_V1
        # On 2026-07-28 a method no handler serves is answered by _not_found (2.x's words),
        # not refused for a capability the server does not declare.
        self.native.answer_undeclared = True
        for method in _PARAMS:
            if not method.startswith("notifications/") and method != "ping":
                self.native.request_handler(method)(self._not_found)
        from mcpkit.compat.mcp.server.caching import apply_to

        apply_to(self.native, handlers.pop("cache_hints", None))
        handlers.pop("get_tool_input_schema", None)
        for key, fn in handlers.items():
            if fn is None:
                continue
            if key in _ON_REQUESTS:
                self._modern = True
                self.native.session_not_found = SESSION_NOT_FOUND_V2
                method = _ON_REQUESTS[key]
                self._add_modern(method, fn)
            elif key in _ON_NOTIFICATIONS:
                self.add_notification_handler(_ON_NOTIFICATIONS[key], None, fn)
            elif key == "on_subscriptions_listen":
                # mcpkit serves subscriptions/listen itself; a ListenHandler's bus feeds it
                serve = getattr(fn, "serve", None)
                if serve is not None:
                    serve(self.native)
            else:
                raise TypeError(f"Server() got an unexpected keyword argument {key!r}")

    def _unknown_method(self, method: str) -> McpError:
        """What a method no handler serves is answered with: 2.x's not found (naming it),
        or 1.x's invalid params for a server of 1.x's decorators."""
        return (method_not_found_v2 if self._modern else method_not_found_v1)(method)

    async def _not_found(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        """What a method no handler was registered for is answered with (2.x names it)."""
        raise McpError(METHOD_NOT_FOUND, "Method not found", rctx.method if self._modern else None)

    # -- what is declared -----------------------------------------------------------------------

    def _declare_as(self, _native_caps: JSONObject) -> JSONObject:
        if self._declared is not None:
            return self._declared
        experimental: dict[str, dict[str, Any]] | None = None if self._modern else {}
        return _wire(self.get_capabilities(NotificationOptions(), experimental))  # type: ignore[no-any-return]

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        **_options: Any,
    ) -> Any:
        """The ``ServerCapabilities`` the handlers registered so far make."""
        t = _types()
        options = notification_options or NotificationOptions()
        handlers = self.request_handlers
        caps: dict[str, Any] = {}
        if "prompts/list" in handlers:
            caps["prompts"] = t.PromptsCapability(list_changed=options.prompts_changed)
        if "resources/list" in handlers:
            caps["resources"] = t.ResourcesCapability(
                subscribe="resources/subscribe" in handlers and self._modern,
                list_changed=options.resources_changed,
            )
        if "tools/list" in handlers:
            caps["tools"] = t.ToolsCapability(list_changed=options.tools_changed)
        if "logging/setLevel" in handlers:
            caps["logging"] = {}
        if "completion/complete" in handlers:
            caps["completions"] = {}
        if experimental_capabilities is not None:
            caps["experimental"] = experimental_capabilities
        caps.update(self.experimental.capabilities())
        ext = extensions if extensions is not None else self.extensions
        if ext:
            caps["extensions"] = ext
        return t.ServerCapabilities(**caps)

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        """The ``InitializationOptions`` of this server: its identity and capabilities."""
        from mcpkit.compat.mcp.server.models import InitializationOptions

        if not self._modern:  # 1.x always declares an (empty) experimental object
            experimental_capabilities = experimental_capabilities or {}
        return InitializationOptions(
            server_name=self.name,
            # 1.x reports its own release for a server built without a version; 2.x ""
            server_version=self.version or ("" if self._modern else _sdk1_version()),
            title=self.title,
            description=self.description,
            capabilities=self.get_capabilities(
                notification_options, experimental_capabilities, extensions
            ),
            instructions=self.instructions,
            website_url=self.website_url,
            icons=self.icons,
        )

    def _apply(self, options: Any) -> None:
        """Serve with ``options``' identity and capabilities."""
        if options is None:
            return
        info = self.native.server_info
        info["name"] = options.server_name
        info["version"] = options.server_version or ""
        for key, value in (
            ("title", getattr(options, "title", None)),
            ("description", getattr(options, "description", None)),
            ("websiteUrl", getattr(options, "website_url", None)),
        ):
            if value:
                info[key] = value
        if getattr(options, "instructions", None) is not None:
            self.native.instructions = options.instructions
        self._declared = _wire(options.capabilities)

    # -- the request being served ---------------------------------------------------------------

    @property
    def request_context(self) -> RequestContext[LifespanResultT]:
        """The request being served (LookupError outside of one)."""
        return request_ctx.get()

    def _install(self, method: str, produce: Produce) -> None:
        """Serve ``method`` with ``produce(params, ctx)``, whose value is sent as the result.
        An exception is answered as the official SDK does: code 0 with its text in the
        handshake era, an internal error without it on 2026-07-28."""
        self.request_handlers[method] = produce

        async def handle(params: JSONObject | None, rctx: NativeRequestContext) -> JSONObject:
            ctx = rctx.context()
            version = ctx.protocol_version
            token = request_ctx.set(
                RequestContext(
                    session=ServerSession(ctx),
                    lifespan_context=_lifespan_of(self, ctx),
                    request_id=rctx.request_id,
                    meta=_meta(params),
                    protocol_version=version.name if version is not None else None,
                    method=method,
                    params=params,
                    experimental=self.experimental.context(params, rctx, ctx),
                    **sse_closers(ctx),
                )
            )
            try:
                result = _wire(await produce(params or {}, ctx))
            except McpError:
                raise
            except Exception as exc:
                raised = self._raised
                if raised is not None:  # a driver of mcp.server.runner re-raises it
                    raised[rctx.request_id] = exc
                # the handshake era: its text, with code 0; else Internal server error
                raise handler_failed(exc, ctx.era == "modern", ctx.session) from exc
            finally:
                request_ctx.reset(token)
            if not isinstance(result, dict):
                return {}
            if method == "tools/call" and "content" in result:
                result.setdefault("isError", False)  # as the SDKs' model dumps it
            if result.get("resultType") == "input_required" and ctx.era != "modern":
                # an InputRequiredResult has no meaning before 2026-07-28: 2.x refuses it so
                raise McpError(INTERNAL_ERROR, "Handler returned an invalid result")
            return result

        self.native.request_handler(method)(handle)

    # -- 2.x: handlers given to the constructor -------------------------------------------------

    def _add_modern(self, method: str, fn: Callable[..., Awaitable[Any]]) -> None:
        async def produce(params: JSONObject, ctx: NativeContext) -> Any:
            return await fn(_modern_context(self, ctx, method, params), _params(method, params))

        self._install(method, produce)

    def add_request_handler(
        self, method: str, params_type: Any, handler: Callable[..., Awaitable[Any]]
    ) -> None:
        """Serve ``method`` with ``async handler(ctx, params)`` (2.x: the server declares
        what 2.x declares)."""
        self._modern = True
        self.native.session_not_found = SESSION_NOT_FOUND_V2

        async def produce(params: JSONObject, ctx: NativeContext) -> Any:
            parsed = params
            if params_type is not None:
                from pydantic import ValidationError

                try:
                    parsed = params_type.model_validate(params)
                except ValidationError as exc:  # refused as 2.x refuses it, its detail kept
                    raise McpError(INVALID_PARAMS, "Invalid request parameters", "") from exc
            return await handler(_modern_context(self, ctx, method, params), parsed)

        self._install(method, produce)

    def add_notification_handler(
        self, method: str, params_type: Any, handler: Callable[..., Awaitable[Any]]
    ) -> None:
        """Call ``async handler(ctx, params)`` for each ``method`` notification (2.x)."""
        self.notification_handlers[method] = handler

        async def notified(params: JSONObject | None) -> None:
            model = params_type or getattr(_types(), _PARAMS.get(method, "NotificationParams"))
            await handler(None, model.model_validate(params or {}))

        self.native.notification_handler(method)(notified)

    def get_request_handler(self, method: str) -> Any:
        """The handler serving ``method``, or None."""
        return self.request_handlers.get(method)

    # -- 1.x: decorators ------------------------------------------------------------------------

    def _list(self, method: str, field: str, fn: Callable[..., Awaitable[Any]]) -> None:
        takes_request = _takes_argument(fn)

        async def produce(params: JSONObject, ctx: NativeContext) -> Any:
            if takes_request:
                request = getattr(_types(), _REQUESTS[method]).model_validate(
                    {
                        "method": method,
                        "params": params or None,
                        "id": getattr(ctx, "request_id", 0),
                    }
                )
                result = await fn(request)
            else:
                result = await fn()
            if isinstance(result, list | tuple):
                items = [_wire(item) for item in result]
                if method == "tools/list":
                    self._tool_cache = {t["name"]: t for t in items}
                return {field: items}
            wired = _wire(result)
            if method == "tools/list":
                self._tool_cache.update({t["name"]: t for t in wired.get("tools", [])})
            return wired

        self._install(method, produce)

    def list_tools(self) -> Callable[[F], F]:
        """``@server.list_tools()``: ``async fn() -> list[Tool]`` (or ``fn(request) ->
        ListToolsResult``)."""

        def decorator(fn: F) -> F:
            self._list("tools/list", "tools", fn)
            return fn

        return decorator

    def list_resources(self) -> Callable[[F], F]:
        """``@server.list_resources()``: ``async fn() -> list[Resource]``."""

        def decorator(fn: F) -> F:
            self._list("resources/list", "resources", fn)
            return fn

        return decorator

    def list_resource_templates(self) -> Callable[[F], F]:
        """``@server.list_resource_templates()``: ``async fn() -> list[ResourceTemplate]``."""

        def decorator(fn: F) -> F:
            self._list("resources/templates/list", "resourceTemplates", fn)
            return fn

        return decorator

    def list_prompts(self) -> Callable[[F], F]:
        """``@server.list_prompts()``: ``async fn() -> list[Prompt]``."""

        def decorator(fn: F) -> F:
            self._list("prompts/list", "prompts", fn)
            return fn

        return decorator

    def get_prompt(self) -> Callable[[F], F]:
        """``@server.get_prompt()``: ``async fn(name, arguments) -> GetPromptResult``."""

        def decorator(fn: F) -> F:
            async def produce(params: JSONObject, ctx: NativeContext) -> Any:
                return await fn(params.get("name"), params.get("arguments"))

            self._install("prompts/get", produce)
            return fn

        return decorator

    def read_resource(self) -> Callable[[F], F]:
        """``@server.read_resource()``: ``async fn(uri) -> str | bytes |
        Iterable[ReadResourceContents]``."""

        def decorator(fn: F) -> F:
            async def produce(params: JSONObject, ctx: NativeContext) -> Any:
                uri = str(params.get("uri", ""))
                result = await fn(Uri(uri))
                if isinstance(result, str | bytes):
                    return {"contents": [_contents(uri, result, None, None)]}
                if isinstance(result, Iterable):
                    return {
                        "contents": [
                            _contents(
                                uri,
                                item.content,
                                item.mime_type,
                                getattr(item, "meta", None),
                            )
                            for item in result
                        ]
                    }
                raise ValueError(f"Unexpected return type from read_resource: {type(result)}")

            self._install("resources/read", produce)
            return fn

        return decorator

    def _uri_handler(self, method: str) -> Callable[[F], F]:
        def decorator(fn: F) -> F:
            async def produce(params: JSONObject, ctx: NativeContext) -> Any:
                await fn(Uri(str(params.get("uri", ""))))
                return {}

            self._install(method, produce)
            return fn

        return decorator

    def subscribe_resource(self) -> Callable[[F], F]:
        """``@server.subscribe_resource()``: ``async fn(uri)``."""
        return self._uri_handler("resources/subscribe")

    def unsubscribe_resource(self) -> Callable[[F], F]:
        """``@server.unsubscribe_resource()``: ``async fn(uri)``."""
        return self._uri_handler("resources/unsubscribe")

    def set_logging_level(self) -> Callable[[F], F]:
        """``@server.set_logging_level()``: ``async fn(level)``."""

        def decorator(fn: F) -> F:
            async def produce(params: JSONObject, ctx: NativeContext) -> Any:
                await fn(params.get("level"))
                return {}

            self._install("logging/setLevel", produce)
            return fn

        return decorator

    def completion(self) -> Callable[[F], F]:
        """``@server.completion()``: ``async fn(ref, argument, context) -> Completion``."""

        def decorator(fn: F) -> F:
            async def produce(params: JSONObject, ctx: NativeContext) -> Any:
                parsed = _params("completion/complete", params)
                completion = await fn(parsed.ref, parsed.argument, parsed.context)
                return {"completion": {"values": []} if completion is None else _wire(completion)}

            self._install("completion/complete", produce)
            return fn

        return decorator

    def progress_notification(self) -> Callable[[F], F]:
        """``@server.progress_notification()``: ``async fn(token, progress, total,
        message)``."""

        def decorator(fn: F) -> F:
            async def notified(params: JSONObject | None) -> None:
                p = params or {}
                await fn(
                    p.get("progressToken"), p.get("progress"), p.get("total"), p.get("message")
                )

            self.notification_handlers["notifications/progress"] = fn
            self.native.notification_handler("notifications/progress")(notified)
            return fn

        return decorator

    def call_tool(self, *, validate_input: bool = True) -> Callable[[F], F]:
        """``@server.call_tool()``: ``async fn(name, arguments)`` returning content blocks,
        a dict (structured content), both as a tuple, or a ``CallToolResult``. Arguments are
        checked against the tool's listed input schema, a structured result against its
        output schema; a raised exception (an ``McpError`` too, but for
        ``UrlElicitationRequiredError``) becomes an error result with its text."""

        def decorator(fn: F) -> F:
            async def produce(params: JSONObject, ctx: NativeContext) -> Any:
                name = params.get("name", "")
                arguments = params.get("arguments") or {}
                try:
                    tool = await self._tool_definition(name)
                    if validate_input and tool is not None:
                        problem = _violation(arguments, tool.get("inputSchema"))
                        if problem is not None:
                            return _error(f"Input validation error: {problem}")
                    results = await fn(name, arguments)
                    created = isinstance(results, _types().CreateTaskResult)  # run_task's
                    return results if created else await _tool_result(results, tool)
                except McpError as exc:
                    if exc.code == URL_ELICITATION_REQUIRED:
                        raise
                    return _error(str(exc.message))
                except Exception as exc:
                    return _error(str(exc))

            self._install("tools/call", produce)
            return fn

        return decorator

    async def _tool_definition(self, name: str) -> JSONObject | None:
        if name not in self._tool_cache and "tools/list" in self.request_handlers:
            await self.request_handlers["tools/list"]({}, None)
        return self._tool_cache.get(name)

    # -- running --------------------------------------------------------------------------------

    async def run(
        self,
        read_stream: Any,
        write_stream: Any,
        initialization_options: Any = None,
        raise_exceptions: bool = False,
        stateless: bool = False,
    ) -> None:
        """Serve the streams ``mcp.server.stdio.stdio_server()`` gave (stdin/stdout), or the
        connection ``SseServerTransport.connect_sse()`` gave (until its client goes)."""
        await self._serve_streams(read_stream, write_stream, initialization_options)

    async def _serve_streams(
        self, read_stream: Any, write_stream: Any, initialization_options: Any, **session: Any
    ) -> None:
        """:meth:`run`; ``session``: options of the stdio session (``era``)."""
        from mcpkit.compat.mcp.server.sse import SseStream
        from mcpkit.compat.mcp.server.stdio import StdioStream

        if isinstance(read_stream, SseStream):
            self._apply(initialization_options)
            # As on the SDK, each run() (each connection) enters the lifespan, and the
            # connection's requests see what it yielded.
            self._lifespan_per_connection = True
            sid = read_stream.connection.session_id
            async with contextlib.AsyncExitStack() as stack:
                given = self._given_lifespan
                state = (
                    given[0]
                    if given is not None
                    else await stack.enter_async_context(self.lifespan(self))
                )
                self._connection_lifespans[sid] = state
                try:
                    await read_stream.connection.serve(self.native)
                finally:
                    self._connection_lifespans.pop(sid, None)
            return
        if not isinstance(read_stream, StdioStream):
            raise NotImplementedError(
                "Server.run() serves the streams of mcp.server.stdio.stdio_server() and "
                "mcp.server.sse.SseServerTransport.connect_sse(); for Streamable HTTP use "
                "streamable_http_app() or StreamableHTTPSessionManager"
            )
        self._apply(initialization_options)
        await self.native.run_stdio(**session)

    def streamable_http_app(
        self,
        *,
        streamable_http_path: str = "/mcp",
        json_response: bool = False,
        stateless_http: bool = False,
        auth: Any = None,
        token_verifier: Any = None,
        auth_server_provider: Any = None,
        custom_starlette_routes: list[Any] | None = None,
        **options: Any,
    ) -> ServerHTTPApp:
        """The Streamable HTTP ASGI app (2.x); with ``auth`` (``AuthSettings``), the endpoint
        needs a token ``token_verifier`` accepts and ``auth_server_provider``'s
        authorization server is served beside it, as the SDK's app does;
        ``custom_starlette_routes`` (Starlette ``Route``s) are served beside the endpoint,
        outside its auth checks."""
        for route in custom_starlette_routes or ():
            methods = sorted(route.methods - {"HEAD"}) if route.methods else None
            self.native.custom_route(route.path, methods, name=route.name)(route.endpoint)
        from mcpkit.compat.mcp.server.mcpserver.server import _http_options

        path, http = _http_options(
            {
                "streamable_http_path": streamable_http_path,
                "json_response": json_response,
                "stateless_http": stateless_http,
                **options,
            }
        )
        if auth is not None:
            from mcpkit.compat.mcp.server.auth._serve import SdkAuth

            self.native.auth = SdkAuth(path, auth, token_verifier, auth_server_provider)
        return self.native.http_app(path, **http)

    @property
    def session_manager(self) -> Any:
        """The session manager :meth:`streamable_http_app` made."""
        if self._session_manager is None:
            raise RuntimeError("Call streamable_http_app() first")
        return self._session_manager


class Uri(str):
    """The URI a 1.x handler receives: text (equal to the same URI as text or as a
    ``pydantic.AnyUrl``) with the parts ``AnyUrl`` has (``scheme``, ``host``, ``path``,
    ...)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str.__eq__(self, other)
        return other is not None and type(other).__name__.endswith("Url") and str(other) == self

    __hash__ = str.__hash__

    def __getattr__(self, name: str) -> Any:
        from pydantic import AnyUrl

        return getattr(AnyUrl(str(self)), name)


def _meta(params: JSONObject | None) -> Any:
    meta = (params or {}).get("_meta")
    if meta is None:
        return None
    from mcpkit.types import RequestMeta

    return RequestMeta.model_validate(meta)


def _modern_context(
    server: Server[Any, Any], ctx: NativeContext, method: str, params: JSONObject
) -> Any:
    from mcpkit.compat.mcp.server.context import ServerRequestContext

    version = ctx.protocol_version
    return ServerRequestContext(
        session=ServerSession(ctx),
        lifespan_context=_lifespan_of(server, ctx),
        protocol_version=version.name if version is not None else "",
        method=method,
        params=params,
        request_id=ctx.request_id,
        meta=_meta(params),
        **sse_closers(ctx),
    )


def _takes_argument(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params
    )


def _contents(
    uri: str, data: str | bytes, mime_type: str | None, meta: dict[str, Any] | None
) -> JSONObject:
    import base64

    out: JSONObject = {"uri": uri}
    if isinstance(data, str):
        out["mimeType"] = mime_type or "text/plain"
        out["text"] = data
    else:
        out["mimeType"] = mime_type or "application/octet-stream"
        out["blob"] = base64.b64encode(data).decode()
    if meta is not None:
        out["_meta"] = meta
    return out


def _error(text: str) -> JSONObject:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _violation(instance: Any, schema: Any) -> str | None:
    """The first reason ``instance`` does not match ``schema`` (None: it does)."""
    if not isinstance(schema, dict):
        return None
    try:
        import jsonschema  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        from mcpkit.json_schema import compile_schema

        return compile_schema(schema).first_error(instance)
    try:
        jsonschema.validate(instance=instance, schema=schema)
    except jsonschema.ValidationError as exc:
        return str(exc.message)
    return None


async def _tool_result(results: Any, tool: JSONObject | None) -> JSONObject:
    """A 1.x call_tool handler's value as a ``CallToolResult``."""
    t = _types()
    if isinstance(results, t.CallToolResult):
        return _wire(results)  # type: ignore[no-any-return]
    if type(results).__name__ == "CreateTaskResult":
        return _wire(results)  # type: ignore[no-any-return]
    structured: Any
    if isinstance(results, tuple) and len(results) == 2:
        unstructured, structured = results
    elif isinstance(results, dict):
        structured = results
        unstructured = [{"type": "text", "text": json.dumps(results, indent=2)}]
    elif hasattr(results, "__iter__"):
        unstructured, structured = results, None
    else:
        return _error(f"Unexpected return type from tool: {type(results).__name__}")
    if tool is not None and tool.get("outputSchema") is not None:
        if structured is None:
            return _error(
                "Output validation error: outputSchema defined but no structured output returned"
            )
        problem = _violation(structured, tool["outputSchema"])
        if problem is not None:
            return _error(f"Output validation error: {problem}")
    out: JSONObject = {"content": [_wire(block) for block in unstructured]}
    if structured is not None:
        out["structuredContent"] = structured
    out["isError"] = False
    return out


# ReadResourceContents is what a 1.x read_resource handler yields.
__all__ += ["ReadResourceContents"]


def _lifespan_of(self: Server[Any, Any], ctx: NativeContext) -> Any:
    """What the lifespan yielded for the request of ``ctx``: its HTTP+SSE connection's
    own, else the server's (or the one a driver of ``mcp.server.runner`` was given)."""
    if self._given_lifespan is not None:
        return self._given_lifespan[0]
    if self._connection_lifespans:
        sid = ctx.session.transport.info.session_id
        if sid in self._connection_lifespans:
            return self._connection_lifespans[sid]
    return ctx.lifespan


#: The mcp 1.x release whose behaviour this layer follows (its peer in the comparisons).
_SDK1_RELEASE = "1.30.0"


def _sdk1_version() -> str:
    """What a 1.x server built without a version reports as its version: the installed
    ``mcp`` distribution's (as 1.x reads it), else the 1.x release this layer follows."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return _SDK1_RELEASE


def _lowlevel_over(native: Any) -> Server[Any, Any]:
    """A low-level server whose handlers are registered on ``native``, the server of an
    ``MCPServer`` (its ``_lowlevel_server``, 1.x's ``_mcp_server``): a handler added
    through it serves beside the decorated tools, resources and prompts."""
    server: Server[Any, Any] = Server.__new__(Server)
    server.native = native
    server.name = native.name
    server.request_handlers = {}
    server.notification_handlers = {}
    server._connection_lifespans = native.connection_lifespans
    server._lifespan_per_connection = False
    server._modern = False
    return server


CompatServer.lowlevel_over = _lowlevel_over
