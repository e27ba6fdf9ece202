"""fastmcp's ``FastMCP`` on mcpkit: the same decorators (``@mcp.tool`` bare or configured),
lifespan, ``run`` and ``http_app``, registering on a :class:`mcpkit.Server`
(:attr:`FastMCP.native`), with fastmcp's schemas and result conversion."""

from __future__ import annotations

import base64
import functools
import inspect
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pydantic
import pydantic_core

from mcpkit._defaults import DEFAULT
from mcpkit.compat._adapt import (
    PASS_THROUGH,
    CompatToolEntry,
    ToolFailure,
    adapt,
    answer_unknown_tools,
    compact_json_text,
    context_parameter,
    failures_as_results,
    official_content,
    raising_as,
    resolved_hints,
)
from mcpkit.compat.fastmcp._base import OWNERS, register
from mcpkit.compat.fastmcp._composing import Composing
from mcpkit.compat.fastmcp._guard import guarded, without_input_required
from mcpkit.compat.fastmcp._mount import default_title as _default_title
from mcpkit.compat.fastmcp._versions import Versions, coerce_version
from mcpkit.compat.fastmcp.apps._prefab import (
    Renderer,
    app_tool_named,
    is_prefab_type,
    is_prefab_value,
    prefab_result,
    tool_ui,
)
from mcpkit.compat.fastmcp.apps.config import (
    UI_MIME_TYPE,
    resolve_ui_mime_type,
    resource_ui_meta,
)
from mcpkit.compat.fastmcp.context import Context
from mcpkit.compat.fastmcp.dependencies import with_dependencies
from mcpkit.compat.fastmcp.docstrings import parse_docstring
from mcpkit.compat.fastmcp.schemas import dereferenced, pruned_titles
from mcpkit.compat.fastmcp.utilities.authorization import component_scopes
from mcpkit.compat.fastmcp.utilities.tasks import task_config
from mcpkit.compat.mcp.server.mcpserver.exceptions import MCPServerError
from mcpkit.compat.mcp.server.mcpserver.server import MCPServer, _http_options
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject
from mcpkit.server.app import ServerHTTPApp
from mcpkit.server.argument_policy import FASTMCP, FASTMCP_STRICT
from mcpkit.server.context import Context as NativeContext
from mcpkit.server.schema import ArgumentsError
from mcpkit.server.tool_options import ToolOptions
from mcpkit.server.tools import error_result

__all__ = ["FastMCP"]

F = TypeVar("F", bound=Callable[..., Any])


class FastToolEntry(CompatToolEntry):
    """A native tool whose results read as fastmcp's: compact JSON text, and
    ``_meta.fastmcp.wrap_result`` when the value was wrapped as ``{"result": ...}``."""

    __slots__ = ()

    def invalid_arguments(self, error: ArgumentsError, arguments: Any) -> str:
        """pydantic's text for arguments the tool's function refuses, as fastmcp answers
        (``1 validation error for call[<function>]...``)."""
        original = getattr(self.function.fn, "__compat_original__", None)
        if original is not None and isinstance(arguments, dict):
            adapter = arguments_adapter(original)
            try:
                if self.signature.policy.lax:
                    adapter.validate_python(arguments)
                else:  # strict_input_validation: JSON types exactly, as fastmcp checks them
                    adapter.validate_json(pydantic_core.to_json(arguments), strict=True)
            except pydantic.ValidationError as exc:
                return str(exc)
        return str(error)

    def to_result(self, value: Any) -> dict[str, Any]:
        """The ``CallToolResult`` dict for a return value (``isError`` always said, as
        fastmcp sends it)."""
        result = self._result(value)
        if "isError" not in result:
            result["isError"] = False
        return result

    def _result(self, value: Any) -> dict[str, Any]:
        if isinstance(value, ToolFailure):
            return error_result(value.text)
        if is_prefab_value(value):
            fastmcp = self.definition.get("_meta", {}).get("fastmcp", {})
            return prefab_result(value, fastmcp.get("app"))
        if self.returned_as_is(value):
            return super(CompatToolEntry, self).to_result(value)
        if type(value).__name__ == "ToolResult" and hasattr(value, "to_result"):
            result: dict[str, Any] = value.to_result()
            return result
        if self.output is None:
            plain: dict[str, Any] = {"content": _fastmcp_content(value)}
            if not _is_content(value):  # an object is sent as structuredContent too
                data = pydantic_core.to_jsonable_python(value, fallback=str)
                if isinstance(data, dict):
                    plain["structuredContent"] = data
            return plain
        result = super(CompatToolEntry, self).to_result(value)
        if "structuredContent" in result:
            if isinstance(value, list | tuple) and not value:
                result["content"] = []  # fastmcp: an empty list is no content blocks
            else:
                text = value if isinstance(value, str) else compact_json_text(value)
                result["content"] = [{"type": "text", "text": text}]
            if self.output.wrap:
                result["_meta"] = {"fastmcp": {"wrap_result": True}}
        return result


async def _listen_not_served(params: Any, rctx: Any) -> Any:
    """``subscriptions/listen`` as fastmcp answers it: -32602 ``Invalid request
    parameters`` for params its SDK's model refuses, else -32601 ``Method not found``."""
    from pydantic import ValidationError

    from mcpkit.compat._native import method_not_found_v2
    from mcpkit.compat.mcp.types.subscriptions import SubscriptionsListenRequestParams
    from mcpkit.errors import McpError
    from mcpkit.jsonrpc import INVALID_PARAMS

    try:
        SubscriptionsListenRequestParams.model_validate(params or {})
    except ValidationError:
        raise McpError(INVALID_PARAMS, "Invalid request parameters", "") from None
    raise method_not_found_v2("subscriptions/listen")


class FastMCP(Composing, MCPServer[Any]):
    """A fastmcp server served by mcpkit (the core server API: tools, resources,
    templates, prompts, the Context, lifespan, run)."""

    #: fastmcp tells clients of a component added or removed while serving.
    _announce_registrations = True
    _changes_to_sessions = True

    def __init__(
        self,
        name: str | None = None,
        instructions: str | None = None,
        *,
        version: str | int | float | None = None,
        website_url: str | None = None,
        icons: list[Any] | None = None,
        lifespan: Callable[[Any], Any] | None = None,
        tools: list[Callable[..., Any]] | None = None,
        mask_error_details: bool | None = None,
        auth: Any = None,
        providers: list[Any] | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(
            name or "FastMCP",
            instructions=instructions,
            version="" if version is None else str(version),
            website_url=website_url,
            icons=icons,
            lifespan=lifespan,
        )
        self.settings = settings
        self._fastmcp_auth: Any = None
        self._guard_http()
        self.auth = auth
        self._mask = bool(mask_error_details)
        self.native.log_bridge = True  # get_context() finds the request's Context
        self.native.app_only_hidden = False  # type: ignore[attr-defined]  # fastmcp lists them
        answer_unknown_tools(self.native.tools, lambda name: f"Unknown tool: {name!r}")
        strict = settings.get("strict_input_validation")
        if strict is None:
            from mcpkit.compat.fastmcp.settings import settings as global_settings

            strict = getattr(global_settings, "strict_input_validation", False)
        self.native.tools.argument_policy = FASTMCP_STRICT if strict else FASTMCP
        self.native.tools.aliases = app_tool_named  # type: ignore[attr-defined]
        from mcpkit.compat.fastmcp._registries import FastPrompts, FastResources

        self.native.prompts.__class__ = FastPrompts
        self.native.resources.__class__ = FastResources
        self._versions = Versions(self.native)
        # fastmcp serves no subscriptions/listen on 2026-07-28 (it declares listChanged and
        # subscribe false): its SDK validates the request's params, then finds no handler.
        self.native.request_handler("subscriptions/listen")(_listen_not_served)
        #: The URIs of the Prefab renderer resources the server's tools use.
        self._renderers: list[str] = []
        for fn in tools or ():
            self.add_tool(fn)
        for provider in providers or ():
            self.add_provider(provider)

    if not TYPE_CHECKING:

        def __class_getitem__(cls, params: Any) -> Any:
            # FastMCP[LifespanState] in annotations: the class itself.
            return cls

    @classmethod
    def from_openapi(
        cls,
        openapi_spec: dict[str, Any],
        client: Any = None,
        name: str = "OpenAPI Server",
        **options: Any,
    ) -> FastMCP:
        """A server of the document's operations (``route_maps``, ``route_map_fn``,
        ``mcp_component_fn``, ``mcp_names``, ``tags``, ``validate_output``: see
        :class:`~mcpkit.compat.fastmcp.server.providers.openapi.OpenAPIProvider`)."""
        from mcpkit.compat.fastmcp.server.providers.openapi.provider import from_openapi

        server: FastMCP = from_openapi(cls, openapi_spec, client, name, options)
        return server

    @classmethod
    def from_fastapi(cls, app: Any, name: str | None = None, **options: Any) -> FastMCP:
        """A server of a FastAPI app's operations, called in process (options as for
        :meth:`from_openapi`, and ``httpx_client_kwargs``)."""
        from mcpkit.compat.fastmcp.server.providers.openapi.provider import from_fastapi

        server: FastMCP = from_fastapi(cls, app, name, options)
        return server

    def _context(self, native: NativeContext) -> Context:
        return Context(native, self)

    def _declare_as(self, caps: JSONObject) -> JSONObject:
        """The capabilities as fastmcp declares them: logging, and tools, resources and
        prompts with ``listChanged`` (no ``subscribe``)."""
        out: JSONObject = {"logging": {}}
        if self._completion:
            out["completions"] = {}
        out["prompts"] = {"listChanged": True}
        out["resources"] = {"subscribe": False, "listChanged": True}
        out["tools"] = {"listChanged": True}
        return out

    def _declare_modern(self, caps: JSONObject) -> JSONObject:
        """The capabilities of ``server/discover`` as fastmcp declares them on 2026-07-28:
        ``logging``, ``listChanged`` and ``subscribe`` false (fastmcp serves no
        ``subscriptions/listen``, from which its SDK derives them), and the MCP Apps
        extension beside the server's own extensions."""
        from mcpkit.compat.fastmcp.apps.config import UI_EXTENSION_ID

        out: JSONObject = {**caps, "logging": {}}
        for kind in ("prompts", "resources", "tools"):
            if kind in out:
                out[kind] = {**out[kind], "listChanged": False}
        if "resources" in out:
            out["resources"]["subscribe"] = False
        out["extensions"] = {UI_EXTENSION_ID: {}, **(caps.get("extensions") or {})}
        return out

    # -- tools --------------------------------------------------------------------------------

    def tool(  # type: ignore[override]
        self,
        name_or_fn: str | Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        tags: set[str] | None = None,
        output_schema: Any = DEFAULT,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        version: str | int | None = None,
        task: Any = None,
        app: Any = None,
        **_options: Any,
    ) -> Any:
        """Register a tool: ``@mcp.tool``, ``@mcp.tool("name")`` or ``@mcp.tool(...)``
        (``output_schema=None``: no structured output; ``version``: one version of it;
        ``task``: True or a ``TaskConfig``, run as a background task; ``app``: ``True``, an
        ``AppConfig`` or its dict, the tool's MCP App)."""
        options = {
            "task": task,
            "app": app,
            "version": version,
            "auth": _options.get("auth"),
            "title": title,
            "description": description,
            "icons": icons,
            "tags": tags,
            "output_schema": output_schema,
            "annotations": annotations,
            "meta": meta,
        }
        if callable(name_or_fn):
            self._add_tool(name_or_fn, name, **options)
            return name_or_fn
        tool_name = name or name_or_fn

        def decorator(fn: F) -> F:
            self._add_tool(fn, tool_name, **options)
            return fn

        return decorator

    def add_tool(self, fn: Any, *args: Any, **kwargs: Any) -> None:
        """Register ``fn`` (or a ``fastmcp.tools.Tool``) as a tool (the options of
        :meth:`tool`)."""
        from mcpkit.compat.fastmcp._components import component_of
        from mcpkit.compat.fastmcp.tools import FunctionTool, Tool

        if not isinstance(fn, Tool) and isinstance(component_of(fn), FunctionTool):
            fn = component_of(fn)  # a function marked by the standalone @tool: its options
        if isinstance(fn, Tool) and not isinstance(fn, FunctionTool):
            self._local_provider().add_tool(fn)  # a Tool subclass serving itself
            return
        if isinstance(fn, FunctionTool):
            kwargs = {**fn.options, **kwargs}
            kwargs.setdefault("name", fn.name)
            fn = fn.fn
        known = (
            "title",
            "description",
            "icons",
            "tags",
            "output_schema",
            "annotations",
            "meta",
            "version",
            "auth",
            "task",
            "app",
        )
        self._add_tool(
            fn, kwargs.pop("name", None), **{k: v for k, v in kwargs.items() if k in known}
        )

    def remove_tool(self, name: str, version: str | None = None) -> None:
        """Unregister the tool ``name``: every version of it, or only ``version`` (KeyError
        when there is no such tool or version)."""
        if self._versions.remove("tools", name, version):
            return
        if version is not None:
            raise KeyError(f"Tool {name!r} version {version!r} not found")
        try:
            self.native.remove_tool(name)
        except KeyError:
            raise KeyError(f"Tool {name!r} not found") from None

    def add_prompt(self, prompt: Any, **options: Any) -> None:
        """Register a ``fastmcp.prompts.Prompt`` (or a function) as a prompt."""
        from mcpkit.compat.fastmcp._components import component_of
        from mcpkit.compat.fastmcp.prompts import FunctionPrompt, Prompt

        if not isinstance(prompt, Prompt) and isinstance(component_of(prompt), FunctionPrompt):
            prompt = component_of(prompt)  # marked by the standalone @prompt: its options
        if isinstance(prompt, Prompt) and not isinstance(prompt, FunctionPrompt):
            self._local_provider().add_prompt(prompt)
            return
        if isinstance(prompt, FunctionPrompt):
            options = {**prompt.options, **options}
            options.setdefault("name", prompt.name)
            prompt = prompt.fn
        self.prompt(**options)(prompt)

    def _add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None,
        *,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        tags: set[str] | None = None,
        output_schema: Any = DEFAULT,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        version: str | int | None = None,
        auth: Any = None,
        task: Any = None,
        app: Any = None,
    ) -> None:
        tool_name = name or fn.__name__
        version = coerce_version(version)
        config = task_config(task)
        if config is not None:
            config.validate_function(fn, tool_name)
        returns = without_input_required(resolved_hints(fn).get("return"))
        structured = True if returns is str or _union_with_text(returns) else None
        if getattr(returns, "__name__", returns) in ("ToolResult", "fastmcp.tools.ToolResult"):
            structured = False  # the tool chooses its result itself
        if output_schema is None or is_prefab_type(returns):
            structured = False
        ui, renderer = tool_ui(app, returns)
        if ui is not None:
            meta = {**(meta or {}), "ui": ui}
        if renderer is not None:
            self._add_renderer(renderer)
        if output_schema is None or output_schema is DEFAULT:
            output_schema = None
        given_schema = output_schema
        doc = parse_docstring(fn)
        annotated_title = (
            annotations.get("title")
            if isinstance(annotations, dict)
            else getattr(annotations, "title", None)
        )
        options = ToolOptions(
            name=tool_name,
            title=title or annotated_title or _default_title(tool_name),
            description=description or doc.description or "",
            annotations=annotations,
            icons=icons,
            meta=_meta(meta, tags, version),
            output_schema=output_schema,
            structured_output=structured,
            tags=tags or None,
            scopes=component_scopes(auth),
            task_support=None if config is None else config.mode,
        )
        body = with_dependencies(fn)
        if inspect.iscoroutinefunction(fn) and (
            config is not None or "InputRequiredResult" in str(returns)
        ):
            body = guarded(body)
        adapted = adapt(body, Context, self._context, around=self._failures(tool_name))
        entry = self._versions.add(
            "tools",
            tool_name,
            version,
            tags,
            lambda: self.native.registration.add_tool(adapted, options),
        )
        entry.__class__ = FastToolEntry
        if config is not None:  # fastmcp lists no execution.taskSupport
            entry.definition.pop("execution", None)
            entry.task_poll_interval = config.poll_interval_ms
        if not (description or doc.description):
            entry.definition.pop("description", None)
        arguments = {"properties": {}, **pruned_titles(entry.definition["inputSchema"])}
        _describe_parameters(arguments, _annotated_descriptions(fn))
        _describe_parameters(arguments, doc.parameters)
        entry.definition["inputSchema"] = dereferenced(arguments)
        if "outputSchema" in entry.definition:
            out = entry.definition["outputSchema"]
            if given_schema is None:  # generated: annotations pruned; given: as written
                out = pruned_titles(out)
                if entry.output is not None and entry.output.wrap:
                    out["x-fastmcp-wrap-result"] = True
            entry.definition["outputSchema"] = dereferenced(out)

    def _add_renderer(self, renderer: Renderer) -> None:
        """Serve the Prefab renderer resource ``renderer`` (once), listed after the
        server's own resources as fastmcp lists it."""
        if renderer.uri in self._renderers:
            return
        options = {
            "name": "Prefab Renderer",
            "mime_type": UI_MIME_TYPE,
            "meta": _meta(renderer.meta, None),
        }

        def html() -> dict[str, Any]:  # no docstring: the resource has no description
            return {"text": renderer.html(), "_meta": renderer.meta}

        self.native.registration.add_resource(html, renderer.uri, options)
        self._renderers.append(renderer.uri)

    def _renderers_last(self) -> None:
        """Move the Prefab renderer resources after the others in the listing."""
        listed = self.native.resources.resources
        for uri in self._renderers:
            listed[uri] = listed.pop(uri)

    def _failures(self, tool_name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        mask = self._mask

        def failure(exc: Exception) -> ToolFailure:
            if isinstance(exc, MCPServerError):
                return ToolFailure(str(exc))
            if mask:
                return ToolFailure(f"Error calling tool {tool_name!r}")
            return ToolFailure(f"Error calling tool {tool_name!r}: {exc}")

        return failures_as_results(failure)

    def _prompt_failures(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """A prompt's exception as fastmcp answers it: -32603 ``Error rendering prompt
        '<name>': <message>`` (without the message when details are masked); an MCP error
        passes as it is."""
        text = f"Error rendering prompt {name!r}"
        mask = self._mask

        def failed(exc: Exception) -> Exception:
            if isinstance(exc, PASS_THROUGH):
                return exc
            return McpError(INTERNAL_ERROR, text if mask else f"{text}: {exc}")

        return raising_as(failed)

    # -- resources ----------------------------------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        mime_type: str | None = None,
        tags: set[str] | None = None,
        annotations: Any = None,
        meta: dict[str, Any] | None = None,
        version: str | int | None = None,
        app: Any = None,
        **_options: Any,
    ) -> Callable[[F], F]:
        """Register a resource (``"config://app"``) or a template (``"users://{id}"``);
        ``app``: an ``AppConfig`` (or its dict) for the MCP App UI it is, written to its
        ``_meta.ui`` (a ``ui://`` resource is ``text/html;profile=mcp-app`` by default)."""
        if callable(uri):
            raise TypeError("Use @mcp.resource('uri'), not @mcp.resource")
        mime_type = resolve_ui_mime_type(uri, mime_type)
        meta = resource_ui_meta(app, meta)

        v = coerce_version(version)

        def decorator(fn: F) -> F:
            options = {
                "name": name or fn.__name__,
                "title": title,
                "description": description,
                "mime_type": mime_type or "text/plain",
                "icons": icons,
                "annotations": annotations,
                "meta": _meta(meta, tags, v),
                "tags": tags or None,
                "scopes": component_scopes(_options.get("auth")),
            }
            ui = (meta or {}).get("ui")
            around = functools.partial(_resource_value, ui=ui) if ui else _resource_value
            adapted = adapt(fn, Context, self._context, around=around)
            self._versions.add(
                "templates" if "{" in uri else "resources",
                uri,
                v,
                tags,
                lambda: self.native.registration.add_resource(adapted, uri, options),
            )
            self._renderers_last()
            return fn

        return decorator

    # -- prompts ------------------------------------------------------------------------------

    def prompt(  # type: ignore[override]
        self,
        name_or_fn: str | Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[Any] | None = None,
        tags: set[str] | None = None,
        meta: dict[str, Any] | None = None,
        version: str | int | None = None,
        **_options: Any,
    ) -> Any:
        """Register a prompt: ``@mcp.prompt``, ``@mcp.prompt("name")`` or with options."""

        v = coerce_version(version)

        def register(fn: F, prompt_name: str | None) -> F:
            doc = parse_docstring(fn)
            options = {
                "name": prompt_name,
                "title": title,
                "description": description or doc.description or "",
                "icons": icons,
                "meta": _meta(meta, tags, v),
                "tags": tags or None,
                "scopes": component_scopes(_options.get("auth")),
            }
            shown = prompt_name or fn.__name__
            adapted = adapt(fn, Context, self._context, around=self._prompt_failures(shown))
            entry = self._versions.add(
                "prompts",
                prompt_name or fn.__name__,
                v,
                tags,
                lambda: self.native.registration.add_prompt(adapted, options),
            )
            if not (description or doc.description):
                entry.definition.pop("description", None)
            for arg in entry.definition.get("arguments", ()):
                if "description" not in arg and arg["name"] in doc.parameters:
                    arg["description"] = doc.parameters[arg["name"]]
            _describe_arguments(entry.definition, fn)
            return fn

        if callable(name_or_fn):
            return register(name_or_fn, name)
        return lambda fn: register(fn, name or name_or_fn)

    def completion(self, fn: Any = None) -> Any:
        """fastmcp's ``@mcp.completion`` (bare or called): ``fn(ref, argument, context)``
        returning a ``Completion``, a list of strings, or None."""

        def register(handler: Any) -> Any:
            async def normalized(*args: Any) -> Any:
                result = handler(*args)
                if inspect.isawaitable(result):
                    result = await result
                if isinstance(result, str):
                    raise TypeError("a completion handler returns a list of strings, not a str")
                if isinstance(result, list | tuple):
                    return {"values": list(result)}
                return result

            MCPServer.completion(self)(normalized)
            return handler

        return register if fn is None else register(fn)

    # -- running ------------------------------------------------------------------------------

    def run(
        self, transport: str | None = None, show_banner: bool | None = None, **options: Any
    ) -> None:
        """Serve: ``"stdio"`` (the default), ``"http"`` (``"streamable-http"``) or ``"sse"``,
        with fastmcp's options (``host``, ``port``, ``path``, ``stateless_http``,
        ``json_response``, ...)."""
        super().run("streamable-http" if transport == "http" else transport or "stdio", **options)

    async def run_async(
        self, transport: str | None = None, show_banner: bool | None = None, **options: Any
    ) -> None:
        """Serve stdio in the running event loop (other transports: use :meth:`run`)."""
        if transport not in (None, "stdio"):
            raise NotImplementedError("run_async serves stdio; use run() or http_app()")
        await self.native.run_stdio()

    def custom_route(
        self,
        path: str,
        methods: list[str],
        name: str | None = None,
        include_in_schema: bool = True,
    ) -> Callable[[F], F]:
        """Serve a plain HTTP route beside the MCP endpoint (a Starlette handler), outside
        the endpoint's auth checks, as fastmcp does."""
        return self.native.custom_route(path, methods, name=name)

    @property
    def auth(self) -> Any:
        """The ``fastmcp.server.auth`` provider protecting the HTTP endpoint (None: open);
        assigned, it protects the endpoint from then on, however the server is served."""
        return self._fastmcp_auth

    @auth.setter
    def auth(self, provider: Any) -> None:
        self._fastmcp_auth = provider
        self._protect("/mcp")

    def _guard_http(self) -> None:
        """Make every HTTP app of the native server (the CLI's ``file.py:mcp``, its
        ``--workers``, :meth:`run`, :meth:`http_app`) protected for its own path: the one
        place the checks are installed, so none serves the endpoint without them."""
        serve = self.native.http_app

        def http_app(path: str = "/mcp", *args: Any, **options: Any) -> ServerHTTPApp:
            self._protect(path)
            return serve(path, *args, **options)

        self.native.http_app = http_app  # type: ignore[method-assign]

    def _protect(self, path: str) -> None:
        """Protect the HTTP endpoint at ``path`` with :attr:`auth` (open without one)."""
        if self._fastmcp_auth is None and self.native.auth is None:
            return
        from mcpkit.compat.fastmcp.server.auth._resource import FastResourceServer

        if self._fastmcp_auth is None:  # ``mcp.auth = None``: the provider's checks go
            if isinstance(self.native.auth, FastResourceServer):
                self.native.auth = None
            return
        self.native.auth = FastResourceServer(self._fastmcp_auth, path)
        install = getattr(self._fastmcp_auth, "install_routes", None)
        if install is not None:  # an authorization server of its own (OAuthProxy)
            install(self.native)

    def http_app(
        self, path: str | None = None, *, transport: str = "http", **options: Any
    ) -> ServerHTTPApp:
        """The Streamable HTTP ASGI app; mount it with ``lifespan=app.lifespan``."""
        route, http = _http_options({"path": path or "/mcp", **options})
        if transport == "sse":
            http["legacy_sse"] = True
        self._http = self.native.http_app(route, **http)
        return self._http


class _Host(FastMCP):
    """A function component's private server (:mod:`~mcpkit.compat.fastmcp._components`);
    its Context names the server serving the request (``ctx.fastmcp``, its lifespan), as
    fastmcp's does."""

    def _context(self, native: NativeContext) -> Context:
        owner = OWNERS.get(native.server)
        return Context(native, owner if isinstance(owner, FastMCP) else self)


register(FastMCP, _Host)


@functools.cache
def arguments_adapter(fn: Callable[..., Any]) -> pydantic.TypeAdapter[Any]:
    """pydantic's validator of ``fn``'s arguments, its Context parameters left out, as
    fastmcp validates a call (made once per function, when a call is refused)."""
    sig = inspect.signature(fn)
    hints = resolved_hints(fn)
    params = [
        p.replace(annotation=hints.get(name, p.annotation))
        for name, p in sig.parameters.items()
        if name != context_parameter(fn, Context)
    ]

    def call(*args: Any, **kwargs: Any) -> None:
        """Only its signature is read."""

    call.__name__ = call.__qualname__ = fn.__name__
    call.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=inspect.Signature.empty
    )
    call.__annotations__ = {p.name: p.annotation for p in params if p.annotation is not p.empty}
    return pydantic.TypeAdapter(cast("Any", call))


def _union_with_text(returns: Any) -> bool:
    """True for a union with ``str`` among plain data types (``list[dict] | str``): fastmcp
    gives it a (wrapped) output schema, where mcpkit sends such a result as text alone."""
    import types
    import typing

    if typing.get_origin(returns) not in (typing.Union, types.UnionType):
        return False
    members = [a for a in typing.get_args(returns) if a is not type(None)]
    return str in members and not any(_is_content_type(m) for m in members)


def _is_content_type(hint: Any) -> bool:
    from mcpkit.server.content import _Media, content_types

    return isinstance(hint, type) and issubclass(hint, (_Media, *content_types()))


def _describe_parameters(schema: dict[str, Any], described: dict[str, str]) -> None:
    """The docstring's parameter descriptions on the properties that have none."""
    properties = schema.get("properties", {})
    for name, text in described.items():
        prop = properties.get(name)
        if isinstance(prop, dict) and "description" not in prop:
            prop["description"] = text


def _annotated_descriptions(fn: Callable[..., Any]) -> dict[str, str]:
    """The descriptions parameters give as a string in ``Annotated[type, "text"]``."""
    import typing

    out: dict[str, str] = {}
    for name, hint in resolved_hints(fn).items():
        if typing.get_origin(hint) is typing.Annotated:
            text = next((m for m in hint.__metadata__ if isinstance(m, str)), None)
            if text is not None:
                out[name] = text
    return out


def _fastmcp_content(value: Any) -> list[Any]:
    """fastmcp's content of a value without an output schema: a list or tuple holding no
    content block (nor image, audio, file) is one JSON text, as fastmcp aggregates it."""
    from mcpkit.server.content import _Media, content_types

    if isinstance(value, list | tuple) and value:
        blocks = (_Media, *content_types())
        if not any(isinstance(v, blocks) for v in value):
            return [{"type": "text", "text": compact_json_text(value)}]
    return official_content(value, compact_json_text)


def _is_content(value: Any) -> bool:
    from mcpkit.server.content import content_types

    if isinstance(value, list | tuple):
        return any(_is_content(v) for v in value)
    return isinstance(value, (str, bytes, *content_types()))


def _meta(
    meta: dict[str, Any] | None, tags: set[str] | None, version: Any = None
) -> dict[str, Any]:
    upstream = (meta or {}).get("fastmcp")
    own = dict(upstream) if isinstance(upstream, dict) else {}  # a provider's own fastmcp keys
    if version is None:
        return {**(meta or {}), "fastmcp": {**own, "tags": sorted(tags or ())}}
    v = str(version)
    return {
        **(meta or {}),
        "fastmcp": {**own, "versions": [v], "tags": sorted(tags or ()), "version": v},
    }


def _describe_arguments(definition: dict[str, Any], fn: Callable[..., Any]) -> None:
    """fastmcp's note on a non-string prompt argument: the JSON schema its value must match."""
    from pydantic import TypeAdapter

    hints = resolved_hints(fn)
    for arg in definition.get("arguments", ()):
        hint = hints.get(arg["name"])
        if hint is None or hint is str:
            continue
        try:
            schema = TypeAdapter(hint).json_schema()
        except Exception:
            continue
        note = (
            "Provide a value matching the following JSON schema: "
            f"{json.dumps(schema, separators=(',', ':'))}. Encode non-string values as JSON."
        )
        arg["description"] = f"{arg['description']}\n\n{note}" if arg.get("description") else note


def _resource_value(fn: Callable[..., Any], ui: Any = None) -> Callable[..., Any]:
    """A resource's value as fastmcp sends it: text, bytes, or JSON (with ``ui``, an MCP
    App's ``_meta.ui``, in the contents' ``_meta``)."""

    def plain(value: Any) -> Any:
        if isinstance(value, str | bytes):
            return value
        return json.dumps(pydantic_core.to_jsonable_python(value, fallback=str))

    def convert(value: Any) -> Any:
        value = plain(value)
        if ui is None:
            return value
        if isinstance(value, bytes):
            return {"blob": base64.b64encode(value).decode(), "_meta": {"ui": ui}}
        return {"text": value, "_meta": {"ui": ui}}

    if inspect.iscoroutinefunction(fn):

        async def aread(*args: Any, **kwargs: Any) -> Any:
            return convert(await fn(*args, **kwargs))

        return aread

    def read(*args: Any, **kwargs: Any) -> Any:
        return convert(fn(*args, **kwargs))

    return read
