"""The official SDK's ``MCPServer`` on mcpkit: the same constructor, decorators and ``run``,
registering on a :class:`mcpkit.Server` (:attr:`MCPServer.native`)."""

from __future__ import annotations

import base64
import contextlib
import inspect
import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Generic, TypeVar, is_typeddict

from mcpkit.compat._adapt import (
    PASS_THROUGH,
    CompatToolEntry,
    ToolFailure,
    adapt,
    answer_unknown_tools,
    failures_as_results,
    is_typing_dict,
    no_structured_output,
    official_schemas,
    plain_class_model,
    raising_as,
    resolved_hints,
    structured_by_model,
    to_json_text,
    wrap_output,
)
from mcpkit.compat._content_output import (
    content_list_output_schema,
    content_output_schema,
    structured_as_content,
    structured_list_of_content,
)
from mcpkit.compat._native import CompatServer
from mcpkit.compat.mcp.server.mcpserver._reading import READING
from mcpkit.compat.mcp.server.mcpserver.by_hand import (
    is_input_required,
    returned_by_hand,
    without_input_required,
)
from mcpkit.compat.mcp.server.mcpserver.context import Context
from mcpkit.compat.mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
)
from mcpkit.compat.mcp.server.streamable_http import native_event_store
from mcpkit.compat.mcp.server.transport_security import native_host_origin
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, JSONObject
from mcpkit.server.app import Server, ServerHTTPApp
from mcpkit.server.argument_policy import OFFICIAL_SDK
from mcpkit.server.context import Context as NativeContext
from mcpkit.server.tool_options import ToolOptions
from mcpkit.server.tools import wire_dict

__all__ = ["MCPServer"]

LifespanResultT = TypeVar("LifespanResultT")
_logger = logging.getLogger("mcp.server.mcpserver")
F = TypeVar("F", bound=Callable[..., Any])


def _modern_capabilities(caps: JSONObject, *, listen: bool) -> JSONObject:
    """The capabilities of ``server/discover`` as 2.x derives them on 2026-07-28: no
    ``logging`` (an ``MCPServer`` has no ``logging/setLevel`` handler), and
    ``listChanged`` / ``subscribe`` as ``subscriptions/listen`` is served or not."""
    out = {k: v for k, v in caps.items() if k != "logging"}
    for kind in ("prompts", "resources", "tools"):
        if kind in out:
            out[kind] = {**out[kind], "listChanged": listen}
    if "resources" in out:
        out["resources"]["subscribe"] = listen
    return out


def _seal_native_with(native: Any, security: Any) -> None:
    """mcpkit's own ``requestState`` layer sealed under keys stretched from the SDK's
    ``RequestStateSecurity(keys=[...])``: what it seals opens on every worker given the
    same keys too (none given: a key of the process)."""
    native_keys = getattr(getattr(security, "codec", None), "native_keys", None)
    if native_keys:
        from mcpkit.server.request_state import KeyRing, RequestStateSealer

        native.request_state = RequestStateSealer(KeyRing(list(native_keys)))


def _serve_listen(native: CompatServer, subscriptions: Any) -> None:
    """``subscriptions/listen`` served as 2.x's default ``ListenHandler`` serves it (every
    kind asked for honoured); a bus given as ``subscriptions=`` feeds it too; ``False``: not
    served, as there."""
    from mcpkit.compat.mcp.server.subscriptions import connect_bus, honour_every_kind

    honour_every_kind(native)
    if subscriptions is False:
        native.request_handler("subscriptions/listen")(_not_served)
    elif subscriptions is not None and subscriptions is not True:
        connect_bus(subscriptions, native)


class _OutputPlan:
    """How a tool's result becomes its output, decided from its return annotation as the
    SDK decides it: ``structured_output`` for mcpkit's tool options, and the SDK's own
    output schema set on the entry where mcpkit's would differ (:meth:`apply`)."""

    def __init__(
        self, returns: Any, fn_name: str, structured_output: bool | None, content_output: bool
    ) -> None:
        self.returns = returns
        if structured_output is None and is_input_required(returns):
            structured_output = False  # -> InputRequiredResult alone: no schema, as there
        structured = structured_output is not False
        self.plain_model = plain_class_model(returns) if structured else None
        self.content_schema = (
            content_output_schema(returns) if content_output and structured else None
        )
        self.list_schema = (
            content_list_output_schema(returns, fn_name) if content_output and structured else None
        )
        if self.content_schema is not None or self.list_schema is not None:
            structured_output = False  # the 1.x schema is set by apply()
        elif structured_output is None:
            if returns is str:
                structured_output = True  # the official SDK wraps a str as {"result": ...}
            elif self.plain_model is not None or no_structured_output(returns):
                structured_output = False  # a bare dict, a class without annotations; and
                # a plain class's schema is set by apply()
        self.structured_output = structured_output

    def apply(self, entry: Any) -> None:
        """Set the SDK's output schema and result form on the registered ``entry``."""
        if self.content_schema is not None:
            structured_as_content(entry, self.content_schema)
        elif self.list_schema is not None:
            structured_list_of_content(entry, self.list_schema)
        elif self.plain_model is not None:
            structured_by_model(entry, self.plain_model)
        elif is_typing_dict(self.returns):
            wrap_output(entry)


class MCPServer(Generic[LifespanResultT]):
    """A high-level server with the official SDK's API, served by mcpkit.

    Accepted and ignored: the settings that only concern the official SDK's own machinery
    (``log_level``, ``warn_on_duplicate_*``, ``dependencies``, ...). ``auth`` with
    ``token_verifier`` or ``auth_server_provider`` protects the HTTP endpoint as the SDK
    does (:mod:`mcpkit.compat.mcp.server.auth._serve`).
    """

    def __init__(
        self,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        instructions: str | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        version: str = "",
        auth_server_provider: Any = None,
        token_verifier: Any = None,
        *,
        debug: bool = False,
        lifespan: Callable[[Any], AbstractAsyncContextManager[Any]] | None = None,
        auth: Any = None,
        middleware: list[Any] | None = None,
        **settings: Any,
    ) -> None:
        from mcpkit.compat.mcp.server.auth._serve import checked_auth

        self._token_verifier = checked_auth(auth, token_verifier, auth_server_provider)
        self._auth_server_provider = auth_server_provider
        self._auth = auth
        extensions = settings.pop("extensions", None)
        resource_security = settings.pop("resource_security", None)
        cache_hints = settings.pop("cache_hints", None)
        request_state_security = settings.pop("request_state_security", None)
        subscriptions = settings.pop("subscriptions", None)
        self.settings = settings
        self._user_lifespan = lifespan

        #: ``run("sse")``: each connection enters the lifespan, not the app (as there).
        self._lifespan_per_connection = False

        @contextlib.asynccontextmanager
        async def run_lifespan(_: Server) -> AsyncIterator[Any]:
            if self._lifespan_per_connection:
                yield {}
                return
            async with self._connection_lifespan() as state:
                yield state

        #: The mcpkit server everything is registered on.
        self.native = CompatServer(
            name or "mcp-server",
            version,
            instructions=instructions,
            title=title,
            description=description,
            icons=icons,
            website_url=website_url,
            lifespan=run_lifespan,
            debug=debug,
            declare=("tools", "resources", "prompts"),  # declared from the start, as there
            inline_schema_refs=False,  # schemas keep their $defs, as there
        )
        from mcpkit.compat.mcp.server.caching import apply_to

        apply_to(self.native, cache_hints)
        self._completion = False
        # Without a completion handler the SDK has no such method (mcpkit's own completer
        # would answer with no suggestions).
        self.native.request_handler("completion/complete")(self._no_completions)
        self.native.declare_as = self._declare_as
        self.native.declare_modern = self._declare_modern
        self._listen = subscriptions is not False
        self.native.announce_registrations = self._announce_registrations
        if not self._changes_to_sessions:
            self.native.changes_for_listeners_only()
        # The SDK lists and calls an app-only tool (_meta.ui.visibility ["app"]) for any client.
        self.native.app_only_hidden = False  # type: ignore[attr-defined]
        self.native.compat_owner = self  # type: ignore[attr-defined]
        from mcpkit.compat.mcp.server.mcpserver._prompting import OfficialPrompts

        self.native.prompts.__class__ = OfficialPrompts
        self.native.prompts.render_failure = not self._show_failure_text  # type: ignore[attr-defined]
        self.native.prompts.validate_call_text = self._show_failure_text  # type: ignore[attr-defined]
        if not self._show_failure_text:  # 2.x: reads answered, schemas keyed as there
            from mcpkit.compat.mcp.server.mcpserver._reading import OfficialResources
            from mcpkit.compat.mcp.server.mcpserver._wire_order import SdkWireOrder

            self.native.resources.__class__ = OfficialResources
            self.native.resources.configure(resource_security)  # type: ignore[attr-defined]
            self.native.add_middleware(SdkWireOrder())
        answer_unknown_tools(self.native.tools, lambda name: f"Unknown tool: {name}")
        # Arguments checked as there: lax, unknown ones ignored, pydantic's report.
        self.native.tools.argument_policy = OFFICIAL_SDK
        from mcpkit.compat.mcp.server.context import MiddlewareList

        #: The 2.x middleware chain (``async (ctx, call_next)``), outermost first.
        self.middleware = MiddlewareList(self.native, middleware or ())
        from mcpkit.compat.mcp.server.request_state import (
            RequestStateBoundary,
            RequestStateSecurity,
        )

        # requestState sealed as 2.x seals it (a process key unless given), inside the chain
        # of the server's own middleware; only the requests that can answer input_required
        # pass through it.
        security = request_state_security or RequestStateSecurity.ephemeral()
        self.native.add_middleware(
            on_round_methods(RequestStateBoundary(security, default_audience=self.name))
        )
        _seal_native_with(self.native, request_state_security)
        self._http: ServerHTTPApp | None = None
        _serve_listen(self.native, subscriptions)
        #: The settings of each extension applied, by identifier (declared as there).
        self._extensions: dict[str, dict[str, Any]] = {}
        if extensions:
            from mcpkit.compat.mcp.server.extension import apply_extensions

            self._extensions = apply_extensions(self, extensions)
            self.native.extensions.update(self._extensions)
        # Protected from the start, so whatever serves the native server over HTTP (the
        # CLI's ``file.py:mcp``) serves it behind the checks; run() and
        # streamable_http_app() set them again for their path.
        self._sdk_auth("/mcp")

    #: Whether a failing tool's own message is shown for any exception (1.x), or only for a
    #: ToolError or ResourceError (2.x).
    _show_failure_text = False
    #: Whether ``ctx.request_context.meta`` is a model (1.x) or the ``_meta`` dict (2.x).
    _meta_as_model = False
    #: Whether an (empty) ``experimental`` capability object is declared (1.x).
    _declare_experimental = False
    #: Whether a TypedDict output schema goes without the TypedDict's docstring (1.x).
    _typeddict_docstring_dropped = False
    #: 1.x advertises an output schema for a content block return (2.x does not).
    _content_output_schema = False
    #: Whether a component added or removed while serving is announced on its own (the
    #: official SDK's servers leave ``send_*_list_changed`` to the server's code).
    _announce_registrations = False
    #: Whether a change published for the server (``ctx.notify_*_changed``) reaches
    #: handshake-era sessions too (the official SDK's reaches listen streams only).
    _changes_to_sessions = False
    #: Whether auth documents write a URL without a path with ``/`` (1.x).
    _slash_empty_path = False

    def _sdk_auth(self, path: str, transport: str = "http") -> None:
        """Protect the HTTP endpoint at ``path`` with the SDK's auth (when configured)."""
        if self._auth is None:
            return
        from mcpkit.compat.mcp.server.auth._serve import SdkAuth

        # The legacy SSE transport's endpoints are checked as the SDK checks them.
        legacy = ("/sse", "/messages", "/messages/") if transport == "sse" else ()
        self.native.auth = SdkAuth(
            path,
            self._auth,
            self._token_verifier,
            self._auth_server_provider,
            self._slash_empty_path,
            legacy,
        )

    async def _no_completions(self, params: JSONObject | None, rctx: Any) -> JSONObject:
        """``completion/complete`` of a server without a completion handler: not found, the
        method named in the error's data (2.x; 1.x names none)."""
        raise McpError(
            METHOD_NOT_FOUND, "Method not found", None if self._show_failure_text else rctx.method
        )

    def _declare_as(self, caps: JSONObject) -> JSONObject:
        """The capabilities as the official SDK declares them: tools, resources and prompts
        without ``listChanged`` or ``subscribe``, completions with a completion handler."""
        out: JSONObject = {}
        if self._declare_experimental:
            out["experimental"] = {}
        if self._completion:
            out["completions"] = {}
        lowlevel = self.__dict__.get("_lowlevel")
        added: dict[str, Any] = {} if lowlevel is None else lowlevel.request_handlers
        if "logging/setLevel" in added:
            out["logging"] = {}
        out["prompts"] = {"listChanged": False}
        # 2.x declares subscribe once a resources/subscribe handler is added; 1.x never
        subscribe = lowlevel is not None and "resources/subscribe" in added and lowlevel._modern
        out["resources"] = {"subscribe": subscribe, "listChanged": False}
        out["tools"] = {"listChanged": False}
        return out  # extensions: advertised on 2026-07-28 only, as there

    def _declare_modern(self, caps: JSONObject) -> JSONObject:
        """``server/discover``'s capabilities (fastmcp's flavour declares its own)."""
        return _modern_capabilities(caps, listen=self._listen)

    # -- identity -----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The server's name."""
        return self.native.name

    @property
    def version(self) -> str:
        """The server's version."""
        return self.native.version

    @property
    def instructions(self) -> str | None:
        """The instructions sent at ``initialize``."""
        return self.native.instructions

    def _context(self, native: NativeContext) -> Context[Any, Any]:
        return Context(native, self)

    # -- tools --------------------------------------------------------------------------------

    def tool(
        self,
        name: str | Callable[..., Any] | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> Any:
        """Register a tool: ``@mcp.tool()`` (``@mcp.tool`` works too)."""
        if callable(name):
            self.add_tool(name)
            return name

        def decorator(fn: F) -> F:
            self.add_tool(
                fn,
                name=name,
                title=title,
                description=description,
                annotations=annotations,
                icons=icons,
                meta=meta,
                structured_output=structured_output,
            )
            return fn

        return decorator

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: Any = None,
        icons: list[Any] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """Register ``fn`` as a tool (the options of :meth:`tool`); its ``Resolve``
        parameters are filled by their resolvers."""
        from mcpkit.compat.mcp.server.mcpserver.resolve import with_resolvers

        fn = with_resolvers(fn, Context)
        tool_name = name or fn.__name__
        if tool_name in self.native.tools.tools:  # the first one stays, as there
            _logger.warning("Tool already exists: %s", tool_name)
            return
        returns = without_input_required(resolved_hints(fn).get("return"))
        plan = _OutputPlan(returns, fn.__name__, structured_output, self._content_output_schema)
        failures = _failures_as_results(tool_name, self._show_failure_text)
        wrapped = adapt(fn, Context, self._context, around=lambda f: failures(returned_by_hand(f)))
        if returns is not None and wrapped.__annotations__.get("return") is not returns:
            # the schema of what the tool completes with (an InputRequiredResult left out)
            wrapped.__annotations__["return"] = returns
            wrapped.__signature__ = inspect.signature(wrapped).replace(  # type: ignore[attr-defined]
                return_annotation=returns
            )
        options = ToolOptions(
            name=tool_name,
            title=title,
            description=description or fn.__doc__ or "",  # as written, indentation kept
            annotations=annotations,
            icons=icons,
            meta=meta,
            structured_output=plan.structured_output,
        )
        entry = self.native.tools.add(wrapped, options)
        entry.__class__ = CompatToolEntry if self._show_failure_text else _OfficialToolEntry
        plan.apply(entry)
        official_schemas(entry, fn)
        entry.definition.setdefault("description", "")  # sent empty, as there
        if self._typeddict_docstring_dropped and is_typeddict(returns):
            entry.definition.get("outputSchema", {}).pop("description", None)

    def remove_tool(self, name: str) -> None:
        """Unregister a tool."""
        self.native.remove_tool(name)

    # -- resources ----------------------------------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        icons: list[Any] | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        security: Any = None,
        **_options: Any,
    ) -> Callable[[F], F]:
        """Register a resource (``"config://app"``) or a template (``"users://{id}"``;
        ``security``: its ``ResourceSecurity``, else the server's)."""
        if callable(uri):
            raise TypeError("Use @mcp.resource('uri'), not @mcp.resource")

        def decorator(fn: F) -> F:
            if uri in self.native.resources.resources:  # the first one stays, as there
                _logger.warning("Resource already exists: %s", uri)
                return fn
            doc = description or fn.__doc__ or ""  # as written, indentation kept
            entry = self.native.resources.add(
                adapt(
                    fn,
                    Context,
                    self._context,
                    around=_resource_reader(uri, first=self._show_failure_text, meta=meta),
                ),
                uri,
                name=name or fn.__name__,
                title=title,
                description=doc,
                mime_type=mime_type or "text/plain",
                icons=icons,
                annotations=annotations,
                meta=meta,
            )
            entry.definition.setdefault("description", doc)  # "" is sent too
            policies = getattr(self.native.resources, "security", None)
            if security is not None and policies is not None:
                policies[uri] = security
            return fn

        return decorator

    def add_resource(self, resource: Any) -> None:
        """Serve a resource object (``mcp.server.mcpserver.resources``: ``TextResource``,
        ``FunctionResource``, ...), read by its ``read()`` when a client reads it."""

        around = _resource_reader(resource.uri, first=self._show_failure_text, meta=resource.meta)
        reader = around(resource.read)

        async def read() -> Any:
            return await reader()

        entry = self.native.resources.add(
            read,
            resource.uri,
            name=resource.name,
            title=resource.title,
            description=resource.description,
            mime_type=resource.mime_type,
            icons=resource.icons,
            annotations=resource.annotations,
            meta=resource.meta,
        )
        if resource.description is not None:
            entry.definition.setdefault("description", resource.description)  # "" is sent too

    # -- prompts ------------------------------------------------------------------------------

    def prompt(
        self,
        name: str | Callable[..., Any] | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
    ) -> Any:
        """Register a prompt: ``@mcp.prompt()`` (``@mcp.prompt`` works too)."""
        if callable(name):
            return self.prompt()(name)

        def decorator(fn: F) -> F:
            self._add_prompt(fn, name, title, description, icons)
            return fn

        return decorator

    def _add_prompt(
        self,
        fn: Callable[..., Any],
        name: str | None,
        title: str | None,
        description: str | None,
        icons: list[Any] | None,
    ) -> None:
        shown = name if isinstance(name, str) else fn.__name__
        if shown in self.native.prompts.prompts:  # the first one stays, as there
            _logger.warning("Prompt already exists: %s", shown)
            return
        render = _prompt_renderer(shown, first=self._show_failure_text)
        entry = self.native.prompts.add(
            adapt(fn, Context, self._context, around=lambda f: render(returned_by_hand(f))),
            name=name,
            title=title,
            description=description or fn.__doc__ or "",  # as written
            icons=icons,
        )
        entry.definition.setdefault("description", description or fn.__doc__ or "")
        entry.definition.setdefault("arguments", [])  # listed empty, as there

    def add_prompt(self, prompt: Any) -> None:
        """Register a ``Prompt`` (``Prompt.from_function(fn, ...)``)."""
        self._add_prompt(prompt.fn, prompt.name, prompt.title, prompt.description, prompt.icons)

    def remove_prompt(self, name: str) -> None:
        """Unregister a prompt (``ValueError`` when there is none of that name)."""
        if name not in self.native.prompts.prompts:
            raise ValueError(f"Unknown prompt: {name}")
        self.native.remove_prompt(name)

    # -- completion ---------------------------------------------------------------------------

    def completion(self) -> Callable[[F], F]:
        """Register the completion handler: ``async fn(ref, argument, context)`` returning a
        ``Completion`` (or None for no suggestions)."""

        def decorator(fn: F) -> F:
            async def complete(params: JSONObject | None, rctx: Any) -> JSONObject:
                from mcpkit.types import CompleteRequestParams

                parsed = CompleteRequestParams.from_wire(params or {})
                try:
                    result = fn(parsed.ref, parsed.argument, parsed.context)
                    if inspect.isawaitable(result):
                        result = await result
                except McpError:
                    raise
                except Exception as exc:
                    raise McpError(
                        INTERNAL_ERROR, f"Error completing argument {parsed.argument.name}"
                    ) from exc
                completion = {"values": []} if result is None else wire_dict(result, "completion")
                return {"completion": completion}

            self._completion = True
            self.native.declared = self.native.declared | {"completions"}
            self.native.request_handler("completion/complete")(complete)
            return fn

        return decorator

    # -- notifications ------------------------------------------------------------------------

    def notify_resource_updated(self, uri: str) -> None:
        """Announce that the resource at ``uri`` changed (to the ``subscriptions/listen``
        streams watching it; fastmcp's servers also tell subscribed 2025-era sessions)."""
        self.native.notify_resource_updated(uri)

    # -- running ------------------------------------------------------------------------------

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Serve: ``"stdio"`` (the default), ``"streamable-http"`` or ``"sse"``, with the
        official SDK's options (``host``, ``port``, ``streamable_http_path``,
        ``stateless_http``, ``json_response``, ``event_store``, ``session_idle_timeout``,
        ``max_sessions``, ``retry_interval``)."""
        if transport == "stdio":
            self.native.run()
            return
        if transport not in ("streamable-http", "http", "sse"):
            raise ValueError(f"Unknown transport: {transport}")
        if transport == "sse":
            self._sdk_sse(options)
        path, http = _http_options(options)
        self._sdk_auth(path, transport)
        self.native.run(
            "sse" if transport == "sse" else "http",
            host=options.pop("host", "127.0.0.1"),
            port=options.pop("port", 8000),
            path=path,
            **http,
        )

    @contextlib.asynccontextmanager
    async def _connection_lifespan(self) -> AsyncIterator[Any]:
        """The user's lifespan entered once (the official default yields ``{}``)."""
        if self._user_lifespan is None:
            yield {}  # what the official default lifespan yields
            return
        async with self._user_lifespan(self) as state:
            yield state

    def _sdk_sse(self, options: dict[str, Any]) -> None:
        """Serve the HTTP+SSE endpoints ``run("sse")`` serves as the SDK's ``sse_app()``
        does (``sse_path``, ``message_path``, ``max_request_body_size`` of ``options``)."""
        from mcpkit.compat.mcp.server.sse import DEFAULT_MAX_REQUEST_BODY_SIZE
        from mcpkit.compat.mcp.server.sse_endpoints import SdkSseEndpoints

        native = self.native
        sse_path = options.get("sse_path", "/sse")
        message_path = options.get("message_path", "/messages/")
        limit = options.get("max_request_body_size", DEFAULT_MAX_REQUEST_BODY_SIZE)
        self._lifespan_per_connection = True  # the SDK's sse_app() has no lifespan of its own
        native.sse_endpoints = lambda: SdkSseEndpoints(
            native, sse_path, message_path, limit, self._connection_lifespan
        )

    async def run_stdio_async(self) -> None:
        """Serve one client over stdin/stdout."""
        await self.native.run_stdio()

    def custom_route(
        self,
        path: str,
        methods: list[str],
        name: str | None = None,
        include_in_schema: bool = True,
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Serve a plain HTTP route (a Starlette handler) beside the MCP endpoint, outside its
        auth checks, as the SDK's ``custom_route`` does."""
        return self.native.custom_route(path, methods, name=name)

    def streamable_http_app(self, **options: Any) -> ServerHTTPApp:
        """The Streamable HTTP ASGI app (``streamable_http_path="/mcp"``, ``stateless_http``,
        ``json_response``, ...). Mounted in another app, give the host
        ``lifespan=lambda app: mcp.session_manager.run()``."""
        path, http = _http_options(options)
        options.pop("host", None)
        self._sdk_auth(path)
        self._http = self.native.http_app(path, **http)
        return self._http

    @property
    def session_manager(self) -> _SessionManager:
        """``session_manager.run()``: the lifespan of the app :meth:`streamable_http_app`
        made, for the application it is mounted in."""
        if self._http is None:
            raise RuntimeError("Call streamable_http_app() first")
        return _SessionManager(self._http)

    # -- direct use ---------------------------------------------------------------------------

    @property
    def _lowlevel_server(self) -> Any:
        """The official SDK's private low-level server: handlers added through it
        (``add_request_handler``, 1.x's decorators) serve beside the decorated ones."""
        found = self.__dict__.get("_lowlevel")
        if found is None:
            over = CompatServer.lowlevel_over
            if over is None:  # mcp.server.lowlevel is loaded with mcp.server
                raise RuntimeError("mcp.server.lowlevel is not loaded")
            found = self.__dict__["_lowlevel"] = over(self.native)
        return found

    @property
    def _tool_manager(self) -> Any:
        """The official SDK's private tool manager, as a read-only view (its
        ``list_tools()``, ``get_tool(name)`` and ``_tools``)."""
        from mcpkit.compat.mcp.server.mcpserver.tool_view import ToolManagerView

        return ToolManagerView(self.native.tools)

    async def list_tools(self) -> list[Any]:
        """The tools, as ``Tool`` models."""
        from mcpkit.types import Tool

        return [Tool.from_wire(t.definition) for t in self.native.tools.tools.values()]

    async def list_prompts(self) -> list[Any]:
        """The prompts, as ``Prompt`` models."""
        from mcpkit.types import Prompt

        return [Prompt.from_wire(p.definition) for p in self.native.prompts.prompts.values()]

    async def list_resources(self) -> list[Any]:
        """The resources, as ``Resource`` models."""
        from mcpkit.types import Resource

        return [Resource.from_wire(r.definition) for r in self.native.resources.resources.values()]

    async def list_resource_templates(self) -> list[Any]:
        """The resource templates, as ``ResourceTemplate`` models."""
        from mcpkit.types import ResourceTemplate

        templates = self.native.resources.templates.values()
        return [ResourceTemplate.from_wire(t.definition) for t in templates]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call a tool in process: its ``CallToolResult``."""
        from mcpkit.client import Client

        async with Client(self.native) as client:
            return await client.call_tool(name, arguments)


class _OfficialToolEntry(CompatToolEntry):
    """A tool of a 2.x ``MCPServer``: a return value its output schema refuses is answered
    ``Error executing tool <name>``, as there (the SDK's conversion fails inside the
    tool's error handling, which shows no other exception's text)."""

    __slots__ = ()

    def to_result(self, value: Any) -> dict[str, Any]:
        """The ``CallToolResult`` dict for a return value."""
        result = super().to_result(value)
        if result.get("isError") and self.output is not None:
            text = result["content"][0].get("text", "") if result.get("content") else ""
            if text.startswith(f"Tool '{self.name}' returned output that does not match"):
                result["content"] = [{"type": "text", "text": f"Error executing tool {self.name}"}]
        return result


class _SessionManager:
    def __init__(self, app: ServerHTTPApp) -> None:
        self._app = app

    def run(self) -> AbstractAsyncContextManager[None]:
        """Enter the server's lifespan; on exit end every session."""
        return self._app.lifespan()


_HTTP_NAMES = {
    "stateless_http": "stateless",
    "json_response": "json_response",
    "event_store": "event_store",
    "session_idle_timeout": "session_idle_timeout",
    "max_sessions": "max_sessions",
    "retry_interval": "sse_retry_ms",
}


def _http_options(options: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    path = options.pop("streamable_http_path", options.pop("path", "/mcp"))
    http = {native: options.pop(name) for name, native in _HTTP_NAMES.items() if name in options}
    if "event_store" in http:
        http["event_store"] = native_event_store(http["event_store"])
    http.update(native_host_origin(options.pop("transport_security", None)))
    for ignored in (
        "max_request_body_size",
        "log_level",
        "sse_path",
        "message_path",
        "show_banner",
        "middleware",
    ):
        options.pop(ignored, None)
    if http.get("max_sessions", 0) is None:
        del http["max_sessions"]
    return path, http


def _failures_as_results(
    tool_name: str, show_all: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A tool's exceptions as the official SDK reports them: ``Error executing tool <name>:
    <message>`` for a ``ToolError`` or ``ResourceError`` (for anything, ``show_all``: 1.x),
    else ``Error executing tool <name>`` (the message is not shown)."""

    def failure(exc: Exception) -> ToolFailure:
        if show_all or isinstance(exc, ToolError | ResourceError):
            return ToolFailure(f"Error executing tool {tool_name}: {exc}")
        return ToolFailure(f"Error executing tool {tool_name}")

    return failures_as_results(failure)


async def _not_served(params: Any, rctx: Any) -> Any:
    raise McpError(-32601, "Method not found")


def _prompt_renderer(name: str, first: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A prompt's failure as the official SDK answers it: code 0 with ``Error rendering
    prompt <name>`` (1.x: ``: <message>`` after it); an ``MCPError`` (and the protocol's
    other signals) passes as it is."""

    def failed(exc: Exception) -> Exception:
        if isinstance(exc, PASS_THROUGH):
            return exc
        return McpError(
            0,
            f"Error rendering prompt {name}: {exc}" if first else f"Error rendering prompt {name}",
        )

    return raising_as(failed)


_VARIABLE = re.compile(r"\{(\w+)\*?\}")


def _resource_reader(
    uri: str, first: bool, meta: dict[str, Any] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A resource's value as the official SDK sends it (text, bytes, or indented JSON), and
    its failure as the SDK answers it: 1.x (``first``) code 0 with ``Error reading resource
    <uri>: <message>`` (``Error creating resource from template: <message>`` for a
    template); 2.x -32603 ``Error reading resource <uri>`` (``Error creating resource from
    template <uri>`` when a template's function fails) with the URI as data, a
    ``ResourceError``'s own message (-32602 for ``ResourceNotFoundError``); an ``MCPError``
    raised there passes as it is."""
    template = "{" in uri

    def convert(value: Any) -> Any:
        if not isinstance(value, str | bytes):
            value = to_json_text(value)
        if meta is None:
            return value
        # The resource's _meta goes in its contents too, as there.
        if isinstance(value, str):
            return {"text": value, "_meta": meta}
        return {"blob": base64.b64encode(value).decode(), "_meta": meta}

    def failed(exc: Exception, kwargs: dict[str, Any], creating: bool) -> Exception:
        if isinstance(exc, PASS_THROUGH):
            return exc
        if first:
            text = (
                "Error creating resource from template"
                if template
                else f"Error reading resource {uri}"
            )
            return McpError(0, f"{text}: {exc}")
        read = READING.get() or _VARIABLE.sub(
            lambda m: str(kwargs.get(m.group(1), m.group(0))), uri
        )
        if isinstance(exc, ResourceError):
            code = INVALID_PARAMS if isinstance(exc, ResourceNotFoundError) else INTERNAL_ERROR
            return McpError(code, str(exc), {"uri": read})
        text = "Error creating resource from template" if creating else "Error reading resource"
        return McpError(INTERNAL_ERROR, f"{text} {read}", {"uri": read})

    def around(fn: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(fn):

            async def aread(*args: Any, **kwargs: Any) -> Any:
                try:
                    value = await fn(*args, **kwargs)
                except Exception as exc:
                    raise failed(exc, kwargs, template) from exc
                try:
                    return convert(value)
                except Exception as exc:
                    raise failed(exc, kwargs, False) from exc

            return aread

        def read(*args: Any, **kwargs: Any) -> Any:
            try:
                value = fn(*args, **kwargs)
            except Exception as exc:
                raise failed(exc, kwargs, template) from exc
            try:
                return convert(value)
            except Exception as exc:
                raise failed(exc, kwargs, False) from exc

        return read

    return around


def on_round_methods(boundary: Any) -> Any:
    """A 2.x middleware (the ``RequestStateBoundary``) as an mcpkit middleware hooked on
    ``tools/call``, ``prompts/get`` and ``resources/read`` alone (no cost for the rest)."""
    from mcpkit.compat.mcp.server.context import ServerRequestContext
    from mcpkit.server.middleware import Middleware

    async def run(mctx: Any, call_next: Any) -> Any:
        # What the boundary reads (method, params), nothing the request may not have yet
        # (a lifespan not entered, as for an app mounted without it).
        ctx: ServerRequestContext[Any, Any] = ServerRequestContext(
            session=None,  # type: ignore[arg-type]
            lifespan_context=None,
            protocol_version="",
            method=mctx.method,
            params=mctx.params,
            request_id=mctx.request_id,
            meta=mctx.meta,
        )

        async def next_(given: Any = None) -> Any:
            if given is not None and given.params is not ctx.params:
                mctx.params = dict(given.params) if given.params is not None else None
            return await call_next(mctx)

        return await boundary(ctx, next_)

    class _RoundMethods(Middleware):
        async def on_call_tool(self, ctx: Any, call_next: Any) -> Any:
            return await run(ctx, call_next)

        async def on_get_prompt(self, ctx: Any, call_next: Any) -> Any:
            return await run(ctx, call_next)

        async def on_read_resource(self, ctx: Any, call_next: Any) -> Any:
            return await run(ctx, call_next)

    return _RoundMethods()
