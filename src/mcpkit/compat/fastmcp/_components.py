"""fastmcp's component objects on mcpkit: :class:`Tool`, :class:`Resource`,
:class:`ResourceTemplate` and :class:`Prompt` (pydantic models a provider returns and a
subclass may extend with fields and ``run``/``read``/``render``), and the ones made from a
function (``Tool.from_function``, the standalone ``@tool``/``@resource``/``@prompt``).

A function's component is registered, once, on a private :class:`FastMCP` of its own
(:func:`~mcpkit.compat.fastmcp._base.private_server`), so its listing and its answers are
exactly those of ``@mcp.tool`` (schemas, docstrings, result conversion, error texts); it is
served through that server's handlers on the
caller's request (:func:`mcpkit.server.mount._child_request`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pydantic
import pydantic_core
from pydantic import ConfigDict, Field, PrivateAttr

from mcpkit.compat.fastmcp._base import private_server
from mcpkit.compat.fastmcp._mount import default_title
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject
from mcpkit.server.tools import error_result

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._base import FastMCPView
    from mcpkit.server.session import ServerRequestContext

__all__ = [
    "Component",
    "FunctionPrompt",
    "FunctionResource",
    "FunctionResourceTemplate",
    "FunctionTool",
    "Prompt",
    "Resource",
    "ResourceTemplate",
    "Tool",
    "fastmcp_meta",
]

#: The attribute the standalone decorators leave on a function: (kind, options).
MARK = "__fastmcp__"


def fastmcp_meta(meta: dict[str, Any] | None, tags: Any, version: Any) -> dict[str, Any]:
    """``_meta`` as fastmcp sends it: the given meta with ``fastmcp.tags`` (sorted) and
    ``fastmcp.version`` merged into its ``fastmcp`` part (private keys dropped)."""
    out = dict(meta or {})
    own: dict[str, Any] = {"tags": sorted(tags or ())}
    if version is not None:
        own["version"] = str(version)
    upstream = out.get("fastmcp")
    if isinstance(upstream, dict):
        own = {k: v for k, v in upstream.items() if not str(k).startswith("_")} | own
    out["fastmcp"] = own
    return out


class Component(pydantic.BaseModel):
    """What every fastmcp component has."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="allow")

    name: str = ""
    title: str | None = None
    description: str | None = None
    icons: list[Any] | None = None
    tags: set[str] = Field(default_factory=set)
    meta: dict[str, Any] | None = None
    version: str | None = None

    @pydantic.field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return None if value is None else str(value)

    def get_meta(self) -> dict[str, Any]:
        """The ``_meta`` it is listed with."""
        return fastmcp_meta(self.meta, self.tags, self.version)


async def _ask(host: FastMCPView, method: str, params: JSONObject, rctx: Any) -> Any:
    """``host``'s answer to ``method`` on the request of the server serving the provider
    (its lifespan, its Context), not on the provider host's."""
    from mcpkit.server.mount import _ChildRequest

    while isinstance(rctx, _ChildRequest):
        rctx = object.__getattribute__(rctx, "_request")
    handler = host.native.handler_table()[method]
    return await handler(params, rctx)


def _given(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if v is not None or k == "output_schema"}


# -- tools --------------------------------------------------------------------------------------


class Tool(Component):
    """A tool: its name, ``parameters`` (the input schema) and ``output_schema``; a
    subclass serves calls with ``async run(arguments)``."""

    parameters: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: Any = None

    def to_mcp(self) -> JSONObject:
        """Its ``tools/list`` entry, as fastmcp's ``to_mcp_tool`` makes it."""
        annotations = self.annotations
        if annotations is not None and not isinstance(annotations, dict):
            annotations = annotations.model_dump(exclude_none=True, by_alias=True)
        title = self.title or (annotations or {}).get("title") or default_title(self.name)
        out: JSONObject = {"name": self.name, "title": title}
        if self.description is not None:
            out["description"] = self.description
        out["inputSchema"] = self.parameters
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        if self.icons:
            out["icons"] = [_dumped(i) for i in self.icons]
        if annotations:
            out["annotations"] = annotations
        out["_meta"] = self.get_meta()
        return out

    async def run(self, arguments: dict[str, Any]) -> Any:
        """The tool's result for ``arguments`` (a ``ToolResult``, or a value)."""
        raise NotImplementedError("Subclasses must implement run()")

    async def answer(self, params: JSONObject, rctx: ServerRequestContext) -> JSONObject:
        """The ``tools/call`` result."""
        from mcpkit.compat.fastmcp.exceptions import ToolError

        arguments = params.get("arguments") or {}
        try:
            value = await self.run(dict(arguments) if isinstance(arguments, dict) else {})
        except ToolError as exc:
            return error_result(str(exc))
        except Exception as exc:
            return error_result(f"Error calling tool {self.name!r}: {exc}")
        if type(value).__name__ != "ToolResult" or not hasattr(value, "to_result"):
            # fastmcp reads the result's structured_content: anything else fails the call
            return error_result(
                f"Error calling tool {self.name!r}: {type(value).__name__!r} object has no "
                "attribute 'structured_content'"
            )
        result: JSONObject = value.to_result()
        return result

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], name: str | None = None, **options: Any
    ) -> FunctionTool:
        """A tool of ``fn`` with ``@mcp.tool``'s options."""
        return FunctionTool.of(fn, name, options)


def _dumped(value: Any) -> Any:
    return (
        value.model_dump(exclude_none=True, by_alias=True)
        if hasattr(value, "model_dump")
        else value
    )


class FunctionTool(Tool):
    """A tool made from a function (``Tool.from_function``, ``@tool``)."""

    fn: Callable[..., Any]
    options: dict[str, Any] = Field(default_factory=dict)
    _compiled: FastMCPView | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, fn: Callable[..., Any], name: str | None, options: dict[str, Any]) -> FunctionTool:
        """The tool of ``fn`` named ``name`` (its own name by default)."""
        options = {k: v for k, v in options.items() if k in _TOOL_OPTIONS}
        return cls(
            fn=fn,
            options=options,
            name=name or fn.__name__,
            title=options.get("title"),
            description=options.get("description"),
            tags=set(options.get("tags") or ()),
            meta=options.get("meta"),
            version=options.get("version"),
            annotations=options.get("annotations"),
            parameters={},  # the listing's schema is made when it is compiled
        )

    def compiled(self) -> FastMCPView:
        """The private server it is registered on (made on first use)."""
        if self._compiled is None:
            host = private_server(self.name)
            host.tool(self.fn, name=self.name, **_given(self.options))
            self._compiled = host
        return self._compiled

    def to_mcp(self) -> JSONObject:
        """Its listing, as ``@mcp.tool`` lists it."""
        return dict(self.compiled().native.tools.tools[self.name].definition)

    async def answer(self, params: JSONObject, rctx: ServerRequestContext) -> JSONObject:
        """The ``tools/call`` result, as ``@mcp.tool`` answers it."""
        result: JSONObject = await _ask(
            self.compiled(), "tools/call", {**params, "name": self.name}, rctx
        )
        return result

    async def run(self, arguments: dict[str, Any]) -> Any:
        """Call the function with ``arguments``."""
        value = self.fn(**arguments)
        return await value if inspect.isawaitable(value) else value


_TOOL_OPTIONS = (
    "title",
    "description",
    "icons",
    "tags",
    "output_schema",
    "annotations",
    "meta",
    "version",
)


# -- resources ----------------------------------------------------------------------------------


def _read_failure(uri: str, exc: Exception) -> McpError:
    from mcpkit.compat.mcp.server.mcpserver.exceptions import MCPServerError

    if isinstance(exc, MCPServerError):  # fastmcp's own errors are sent as they are
        return McpError(INTERNAL_ERROR, str(exc))
    return McpError(INTERNAL_ERROR, f"Error reading resource {uri!r}: {exc}")


def _contents(uri: str, value: Any, mime_type: str | None) -> JSONObject:
    import base64

    if isinstance(value, bytes):
        item: JSONObject = {"uri": uri, "blob": base64.b64encode(value).decode()}
    else:
        if not isinstance(value, str):
            value = json.dumps(pydantic_core.to_jsonable_python(value, fallback=str))
        item = {"uri": uri, "text": value}
    if mime_type:
        item["mimeType"] = mime_type
    return {"contents": [item]}


class Resource(Component):
    """A resource at ``uri``; a subclass serves reads with ``async read()``."""

    uri: Any
    mime_type: str = "text/plain"
    annotations: Any = None

    def uri_text(self) -> str:
        """Its URI as a string."""
        return str(self.uri)

    def to_mcp(self) -> JSONObject:
        """Its ``resources/list`` entry."""
        out: JSONObject = {"name": self.name or self.uri_text(), "uri": self.uri_text()}
        if self.title is not None:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        out["mimeType"] = self.mime_type
        if self.icons:
            out["icons"] = [_dumped(i) for i in self.icons]
        if self.annotations:
            out["annotations"] = _dumped(self.annotations)
        out["_meta"] = self.get_meta()
        return out

    async def read(self) -> Any:
        """The resource's content (text or bytes)."""
        raise NotImplementedError("Subclasses must implement read()")

    async def answer(self, uri: str, rctx: ServerRequestContext) -> JSONObject:
        """The ``resources/read`` result."""
        try:
            value = await self.read()
        except Exception as exc:
            raise _read_failure(uri, exc) from exc
        return _contents(uri, value, self.mime_type)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, **options: Any) -> FunctionResource:
        """A resource of ``fn`` with ``@mcp.resource``'s options."""
        return FunctionResource.of(fn, uri, options)


class ResourceTemplate(Component):
    """A resource template (``uri_template``, RFC 6570); a subclass serves reads with
    ``async read(arguments)``."""

    uri_template: str
    mime_type: str = "text/plain"
    parameters: dict[str, Any]
    annotations: Any = None

    def to_mcp(self) -> JSONObject:
        """Its ``resources/templates/list`` entry."""
        out: JSONObject = {"name": self.name, "uriTemplate": self.uri_template}
        if self.title is not None:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        out["mimeType"] = self.mime_type
        if self.icons:
            out["icons"] = [_dumped(i) for i in self.icons]
        if self.annotations:
            out["annotations"] = _dumped(self.annotations)
        out["_meta"] = self.get_meta()
        return out

    def matches(self, uri: str) -> dict[str, Any] | None:
        """The template's variables in ``uri`` (None: it does not match)."""
        from mcpkit.server.mount import _template

        return _template(self.uri_template).match(uri)

    async def read(self, arguments: dict[str, Any]) -> Any:
        """The content of the resource the arguments name."""
        raise NotImplementedError("Subclasses must implement read() or override create_resource()")

    async def create_resource(self, uri: str, params: dict[str, Any]) -> Resource:
        """The resource at ``uri`` (what a subclass implements, as in fastmcp)."""
        raise NotImplementedError(
            "Subclasses must implement create_resource(). "
            "Use FunctionResourceTemplate for task support."
        )

    async def _read(self, uri: str, params: dict[str, Any]) -> Any:
        """What a read of ``uri`` answers: :meth:`create_resource`'s resource read, as
        fastmcp reads a template (a subclass may read directly)."""
        resource = await self.create_resource(uri, params)
        return await resource.read()

    async def answer(self, uri: str, rctx: ServerRequestContext) -> JSONObject:
        """The ``resources/read`` result for ``uri`` (which it matches)."""
        try:
            value = await self._read(uri, self.matches(uri) or {})
        except Exception as exc:
            raise _read_failure(uri, exc) from exc
        return _contents(uri, value, self.mime_type)

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], uri_template: str, **options: Any
    ) -> FunctionResourceTemplate:
        """A template of ``fn`` with ``@mcp.resource``'s options."""
        return FunctionResourceTemplate.of(fn, uri_template, options)


_RESOURCE_OPTIONS = (
    "name",
    "title",
    "description",
    "icons",
    "mime_type",
    "tags",
    "annotations",
    "meta",
    "version",
)


class _FunctionReading:
    """What a function's resource and template share: its private server."""

    fn: Callable[..., Any]
    options: dict[str, Any]
    _compiled: FastMCPView | None

    def registered_uri(self) -> str:
        raise NotImplementedError

    def compiled(self) -> FastMCPView:
        if self._compiled is None:
            host = private_server(self.fn.__name__)
            host.resource(self.registered_uri(), **_given(self.options))(self.fn)
            self._compiled = host
        return self._compiled

    def definition(self) -> JSONObject:
        res = self.compiled().native.resources
        uri = self.registered_uri()
        entry = res.resources.get(uri) or res.templates.get(uri)
        return dict(entry.definition)  # type: ignore[union-attr]

    async def answer(self, uri: str, rctx: ServerRequestContext) -> JSONObject:
        result: JSONObject = await _ask(self.compiled(), "resources/read", {"uri": uri}, rctx)
        return result


class FunctionResource(_FunctionReading, Resource):
    """A resource made from a function."""

    fn: Callable[..., Any]
    options: dict[str, Any] = Field(default_factory=dict)
    _compiled: FastMCPView | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, fn: Callable[..., Any], uri: str, options: dict[str, Any]) -> FunctionResource:
        """The resource of ``fn`` at ``uri``."""
        options = {k: v for k, v in options.items() if k in _RESOURCE_OPTIONS}
        return cls(fn=fn, options=options, uri=uri, **_fields(fn, options))

    def registered_uri(self) -> str:
        return self.uri_text()

    def to_mcp(self) -> JSONObject:
        """Its listing, as ``@mcp.resource`` lists it."""
        return self.definition()

    async def read(self) -> Any:
        value = self.fn()
        return await value if inspect.isawaitable(value) else value


class FunctionResourceTemplate(_FunctionReading, ResourceTemplate):
    """A resource template made from a function."""

    fn: Callable[..., Any]
    options: dict[str, Any] = Field(default_factory=dict)
    _compiled: FastMCPView | None = PrivateAttr(default=None)

    @classmethod
    def of(
        cls, fn: Callable[..., Any], uri_template: str, options: dict[str, Any]
    ) -> FunctionResourceTemplate:
        """The template of ``fn`` at ``uri_template``."""
        options = {k: v for k, v in options.items() if k in _RESOURCE_OPTIONS}
        return cls(
            fn=fn,
            options=options,
            uri_template=uri_template,
            parameters={},  # the listing is made when it is compiled
            **_fields(fn, options),
        )

    def registered_uri(self) -> str:
        return self.uri_template

    def to_mcp(self) -> JSONObject:
        """Its listing, as ``@mcp.resource`` lists it."""
        return self.definition()

    async def _read(self, uri: str, params: dict[str, Any]) -> Any:
        value = self.fn(**params)
        return await value if inspect.isawaitable(value) else value


def _fields(fn: Callable[..., Any], options: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": options.get("name") or fn.__name__,
        "title": options.get("title"),
        "description": options.get("description"),
        "mime_type": options.get("mime_type") or "text/plain",
        "tags": set(options.get("tags") or ()),
        "meta": options.get("meta"),
        "version": options.get("version"),
    }


# -- prompts ------------------------------------------------------------------------------------


class Prompt(Component):
    """A prompt; a subclass serves ``prompts/get`` with ``async render(arguments)``."""

    arguments: list[Any] | None = None

    def to_mcp(self) -> JSONObject:
        """Its ``prompts/list`` entry."""
        out: JSONObject = {"name": self.name}
        if self.title is not None:
            out["title"] = self.title
        if self.description is not None:
            out["description"] = self.description
        if self.arguments:
            out["arguments"] = [_dumped(a) for a in self.arguments]
        if self.icons:
            out["icons"] = [_dumped(i) for i in self.icons]
        out["_meta"] = self.get_meta()
        return out

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        """The prompt's messages (a string, or messages)."""
        raise NotImplementedError("Subclasses must implement render()")

    async def answer(self, params: JSONObject, rctx: ServerRequestContext) -> JSONObject:
        """The ``prompts/get`` result."""
        from mcpkit.server.prompts import to_messages

        arguments = params.get("arguments")
        value = await self.render(dict(arguments) if isinstance(arguments, dict) else None)
        out: JSONObject = {"messages": to_messages(value)}
        if self.description is not None:
            out["description"] = self.description
        return out

    @classmethod
    def from_function(
        cls, fn: Callable[..., Any], name: str | None = None, **options: Any
    ) -> FunctionPrompt:
        """A prompt of ``fn`` with ``@mcp.prompt``'s options."""
        return FunctionPrompt.of(fn, name, options)


_PROMPT_OPTIONS = ("title", "description", "icons", "tags", "meta", "version")


class FunctionPrompt(Prompt):
    """A prompt made from a function."""

    fn: Callable[..., Any]
    options: dict[str, Any] = Field(default_factory=dict)
    _compiled: FastMCPView | None = PrivateAttr(default=None)

    @classmethod
    def of(
        cls, fn: Callable[..., Any], name: str | None, options: dict[str, Any]
    ) -> FunctionPrompt:
        """The prompt of ``fn`` named ``name`` (its own name by default)."""
        options = {k: v for k, v in options.items() if k in _PROMPT_OPTIONS}
        return cls(
            fn=fn,
            options=options,
            name=name or fn.__name__,
            title=options.get("title"),
            description=options.get("description"),
            tags=set(options.get("tags") or ()),
            meta=options.get("meta"),
            version=options.get("version"),
        )

    def compiled(self) -> FastMCPView:
        """The private server it is registered on (made on first use)."""
        if self._compiled is None:
            host = private_server(self.name)
            host.prompt(name=self.name, **_given(self.options))(self.fn)
            self._compiled = host
        return self._compiled

    def to_mcp(self) -> JSONObject:
        """Its listing, as ``@mcp.prompt`` lists it."""
        return dict(self.compiled().native.prompts.prompts[self.name].definition)

    async def answer(self, params: JSONObject, rctx: ServerRequestContext) -> JSONObject:
        """The ``prompts/get`` result, as ``@mcp.prompt`` answers it."""
        result: JSONObject = await _ask(
            self.compiled(), "prompts/get", {**params, "name": self.name}, rctx
        )
        return result


# -- the standalone decorators ------------------------------------------------------------------


def marked(kind: str, fn: Any, options: dict[str, Any]) -> Any:
    """``fn`` marked for discovery as a ``kind`` (``tool``, ``resource``, ``prompt``)."""
    try:
        setattr(fn, MARK, (kind, options))
    except AttributeError as exc:  # a builtin or a bound method
        raise TypeError(f"@{kind} decorates a function, not {type(fn).__name__}") from exc
    return fn


def component_of(obj: Any) -> Component | None:
    """The component a module attribute stands for: a component object, or a function
    marked by a standalone decorator (None: neither)."""
    if isinstance(obj, Component):
        return obj
    mark = getattr(obj, MARK, None) if callable(obj) else None
    if not (isinstance(mark, tuple) and len(mark) == 2):
        return None
    kind, options = mark
    options = dict(options)
    if kind == "tool":
        return FunctionTool.of(obj, options.pop("name", None), options)
    if kind == "prompt":
        return FunctionPrompt.of(obj, options.pop("name", None), options)
    if kind == "resource":
        uri = options.pop("uri")
        if ("{" in uri and "}" in uri) or _has_parameters(obj):
            return FunctionResourceTemplate.of(obj, uri, options)
        return FunctionResource.of(obj, uri, options)
    return None


def _has_parameters(fn: Callable[..., Any]) -> bool:
    from mcpkit.compat._adapt import context_parameter
    from mcpkit.compat.fastmcp.context import Context

    ctx = context_parameter(fn, Context)
    return any(name != ctx for name in inspect.signature(fn).parameters)
