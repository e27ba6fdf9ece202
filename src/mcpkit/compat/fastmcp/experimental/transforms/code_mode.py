"""``fastmcp.experimental.transforms.code_mode`` on mcpkit: :class:`CodeMode`, added with
``mcp.add_transform(CodeMode(...))``.

``tools/list`` then answers only the discovery tools (by default ``search`` and
``get_schema``) and ``execute``; every other tool stays callable by its name. ``execute``
runs Python in the Monty sandbox (``pydantic-monty``) with ``call_tool(name, params)`` in
scope; each call goes through the server's own ``tools/call`` (the caller's visibility,
argument validation, error results), and a failed call raises in the sandbox. The catalog
the discovery tools read is what the caller's ``tools/list`` would list without the
transform. Names, descriptions, schemas, texts and limits are fastmcp's.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

import pydantic
from pydantic import Field

from mcpkit.compat.fastmcp._components import Tool
from mcpkit.compat.fastmcp.context import Context
from mcpkit.compat.fastmcp.exceptions import NotFoundError, ToolError
from mcpkit.compat.fastmcp.experimental.transforms._render import tools_markdown
from mcpkit.compat.fastmcp.server.transforms import Transform
from mcpkit.compat.fastmcp.server.transforms.search import (
    _Lists,
    bm25_rank,
    searchable_text,
)
from mcpkit.compat.fastmcp.server.transforms.search import (
    serialize_tools_for_output_json as _listed_json,
)
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._base import FastMCPView
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = [
    "CodeMode",
    "GetSchemas",
    "GetTags",
    "GetToolCatalog",
    "ListTools",
    "MontySandboxProvider",
    "SandboxProvider",
    "Search",
]

GetToolCatalog = Callable[[Context], Awaitable[Sequence[Tool]]]
"""Async callable answering the tools the caller may see (the transform's own left out)."""

SearchFn = Callable[[Sequence[Tool], str], Awaitable[Sequence[Tool]]]
"""Async callable ranking a sequence of tools for a query."""

DiscoveryToolFactory = Callable[[GetToolCatalog], Tool]
"""Callable receiving catalog access and answering a tool."""

ToolDetailLevel = Literal["brief", "detailed", "full"]
"""``brief``: names and descriptions; ``detailed``: compact markdown of the parameters;
``full``: the tools as ``tools/list`` lists them (JSON)."""

_DETAIL = (
    "'brief' for names and descriptions, 'detailed' for parameter schemas as markdown, "
    "'full' for complete JSON schemas"
)


class CatalogTool(Tool):
    """A tool of the catalog: its listing's fields, and the listing itself."""

    listed: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, listed: JSONObject) -> CatalogTool:
        """The catalog entry of a ``tools/list`` entry."""
        meta = listed.get("_meta")
        own = meta.get("fastmcp") if isinstance(meta, dict) else None
        tags = own.get("tags") if isinstance(own, dict) else None
        return cls(
            name=str(listed.get("name", "")),
            title=listed.get("title"),
            description=listed.get("description"),
            tags=set(tags) if isinstance(tags, list) else set(),
            parameters=dict(listed.get("inputSchema") or {}),
            output_schema=listed.get("outputSchema"),
            annotations=listed.get("annotations"),
            listed=dict(listed),
        )

    def to_mcp(self) -> JSONObject:
        """Its ``tools/list`` entry."""
        return dict(self.listed)


def serialize_tools_for_output_json(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The tools as ``tools/list`` lists them."""
    return _listed_json([t.to_mcp() for t in tools])


def _render_tools(tools: Sequence[Tool], detail: str) -> str:
    if not tools:
        return json.dumps([], indent=2) if detail == "full" else "No tools matched the query."
    if detail == "full":
        return json.dumps(serialize_tools_for_output_json(tools), indent=2)
    if detail == "detailed":
        return tools_markdown(tools)
    return "\n".join(
        f"- {t.name}: {t.description}" if t.description else f"- {t.name}" for t in tools
    )


async def _bm25(tools: Sequence[Tool], query: str) -> Sequence[Tool]:
    docs = [searchable_text(t.to_mcp()) for t in tools]
    return [tools[i] for i in bm25_rank(docs, query, sys.maxsize)]


# -- sandbox ------------------------------------------------------------------------------------


class SandboxProvider(Protocol):
    """Runs (untrusted) Python code in a sandbox with the given inputs and host
    functions; answers what the code returns."""

    async def run(
        self,
        code: str,
        *,
        inputs: dict[str, Any] | None = None,
        external_functions: dict[str, Callable[..., Any]] | None = None,
    ) -> Any:
        """The code's result."""
        ...


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


_UNSET = _Unset()

_DEFAULT_LIMITS: dict[str, Any] = {"max_feed_duration_secs": 30.0, "max_memory": 100_000_000}


def _as_async(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
    if inspect.iscoroutinefunction(fn):
        return fn

    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return wrapper


class MontySandboxProvider:
    """The Monty sandbox (``pydantic-monty``). ``limits``: Monty's resource limits
    (``max_feed_duration_secs``, ``max_turn_duration_secs``, ``max_memory``,
    ``max_recursion_depth``, ``gc_interval``); omitted, 30 s and 100 MB; ``None``, none."""

    def __init__(self, *, limits: dict[str, Any] | _Unset | None = _UNSET) -> None:
        self.limits: dict[str, Any] | None = (
            dict(_DEFAULT_LIMITS) if isinstance(limits, _Unset) else limits
        )

    async def run(
        self,
        code: str,
        *,
        inputs: dict[str, Any] | None = None,
        external_functions: dict[str, Callable[..., Any]] | None = None,
    ) -> Any:
        """Run ``code`` in a fresh sandbox session; answer its result."""
        try:
            monty = importlib.import_module("pydantic_monty")
        except ModuleNotFoundError as exc:
            raise ImportError(
                "CodeMode requires pydantic-monty for the Monty sandbox provider. "
                "Install it with `pip install pydantic-monty` or pass a custom SandboxProvider."
            ) from exc
        if self.limits is not None:
            known = monty.ResourceLimits.__annotations__.keys()
            unknown = self.limits.keys() - known
            if unknown:
                raise ValueError(
                    f"Unsupported Monty resource limits: "
                    f"{', '.join(repr(k) for k in sorted(unknown))}. "
                    f"Supported limits: {', '.join(sorted(known))}."
                )
        # A host callback may still run when the sandbox exits: each is joined before
        # this run ends, and one starting after it is refused.
        pending: set[asyncio.Task[Any]] = set()
        done = False

        def tracked(fn: Callable[..., Any]) -> Callable[..., Awaitable[Any]]:
            call = _as_async(fn)

            async def wrapped(*args: Any, **kwargs: Any) -> Any:
                if done:
                    raise asyncio.CancelledError
                task = asyncio.current_task()
                if task is not None:
                    pending.add(task)
                try:
                    return await call(*args, **kwargs)
                finally:
                    if task is not None:
                        pending.discard(task)

            return wrapped

        functions = {k: tracked(v) for k, v in (external_functions or {}).items()}
        future = asyncio.ensure_future(
            self._session(monty, code, inputs or None, functions or None)
        )
        try:
            return await future
        except asyncio.CancelledError:
            future.cancel()  # stops the sandbox's worker, not only this await
            raise
        finally:
            done = True
            left = tuple(pending)
            for task in left:
                task.cancel()
            if left:
                await asyncio.shield(asyncio.gather(*left, return_exceptions=True))

    async def _session(
        self,
        monty: Any,
        code: str,
        inputs: dict[str, Any] | None,
        functions: dict[str, Callable[..., Any]] | None,
    ) -> Any:
        async with monty.AsyncMonty() as pool, pool.checkout(limits=self.limits) as session:
            return await session.feed_run(code, inputs=inputs, external_lookup=functions)


# -- discovery tools ----------------------------------------------------------------------------


class Search:
    """The ``search`` tool: the catalog ranked for a query (BM25 unless ``search_fn``),
    filtered by tags, cut to ``limit``, at a detail level."""

    def __init__(
        self,
        *,
        search_fn: SearchFn | None = None,
        name: str = "search",
        default_detail: ToolDetailLevel | None = None,
        default_limit: int | None = None,
    ) -> None:
        self._search_fn: SearchFn = search_fn or _bm25
        self._name = name
        self._default_detail: ToolDetailLevel = default_detail or "brief"
        self._default_limit = default_limit

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        search_fn = self._search_fn

        async def search(
            query: Annotated[str, "Search query to find available tools"],
            tags: Annotated[
                list[str] | None, "Filter to tools with any of these tags before searching"
            ] = None,
            detail: Annotated[ToolDetailLevel, _DETAIL] = self._default_detail,
            limit: Annotated[int | None, "Maximum number of results to return"] = (
                self._default_limit
            ),
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """Search for available tools by query.

            Returns matching tools ranked by relevance.
            """
            catalog = await get_catalog(ctx)
            tools: Sequence[Tool] = catalog
            if tags:
                wanted = set(tags)
                untagged = "untagged" in wanted
                wanted.discard("untagged")
                tools = [t for t in tools if (t.tags & wanted) or (untagged and not t.tags)]
            results = await search_fn(tools, query)
            if limit is not None:
                results = results[: max(limit, 0)]
            rendered = _render_tools(results, detail)
            if len(results) < len(catalog) and detail != "full":
                rendered = f"{len(results)} of {len(catalog)} tools:\n\n{rendered}"
            return rendered

        return Tool.from_function(fn=search, name=self._name)


class GetSchemas:
    """The ``get_schema`` tool: named tools of the catalog at a detail level."""

    def __init__(
        self, *, name: str = "get_schema", default_detail: ToolDetailLevel | None = None
    ) -> None:
        self._name = name
        self._default_detail: ToolDetailLevel = default_detail or "detailed"

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        async def get_schema(
            tools: Annotated[list[str], "List of tool names to get schemas for"],
            detail: Annotated[ToolDetailLevel, _DETAIL] = self._default_detail,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """Get parameter schemas for specific tools.

            Use after searching to get the detail needed to call a tool.
            """
            by_name = {t.name: t for t in await get_catalog(ctx)}
            matched = [by_name[n] for n in tools if n in by_name]
            missing = [n for n in tools if n not in by_name]
            if not matched and missing:
                return f"Tools not found: {', '.join(missing)}"
            if detail == "full":
                data: list[Any] = serialize_tools_for_output_json(matched)
                if missing:
                    data.append({"not_found": missing})
                return json.dumps(data, indent=2)
            rendered = _render_tools(matched, detail)
            if missing:
                rendered += f"\n\nTools not found: {', '.join(missing)}"
            return rendered

        return Tool.from_function(fn=get_schema, name=self._name)


class GetTags:
    """The ``tags`` tool: the catalog's tags (``untagged`` for tools without), with counts
    (``brief``) or their tools (``full``)."""

    def __init__(
        self, *, name: str = "tags", default_detail: Literal["brief", "full"] | None = None
    ) -> None:
        self._name = name
        self._default_detail: Literal["brief", "full"] = default_detail or "brief"

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        async def tags(
            detail: Annotated[
                Literal["brief", "full"],
                "Level of detail: 'brief' for tag names and counts, 'full' for tools listed "
                "under each tag",
            ] = self._default_detail,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """List available tool tags.

            Use to browse available tools by tag before searching.
            """
            by_tag: dict[str, list[Tool]] = {}
            for tool in await get_catalog(ctx):
                for tag in tool.tags or ("untagged",):
                    by_tag.setdefault(tag, []).append(tool)
            if not by_tag:
                return "No tools available."
            if detail == "brief":
                return "\n".join(
                    f"- {tag} ({len(ts)} tool{'s' if len(ts) != 1 else ''})"
                    for tag, ts in sorted(by_tag.items())
                )
            return "\n\n".join(
                "\n".join(
                    [f"### {tag}"]
                    + [
                        f"- {t.name}: {t.description}" if t.description else f"- {t.name}"
                        for t in ts
                    ]
                )
                for tag, ts in sorted(by_tag.items())
            )

        return Tool.from_function(fn=tags, name=self._name)


class ListTools:
    """The ``list_tools`` tool: the whole catalog at a detail level."""

    def __init__(
        self, *, name: str = "list_tools", default_detail: ToolDetailLevel | None = None
    ) -> None:
        self._name = name
        self._default_detail: ToolDetailLevel = default_detail or "brief"

    def __call__(self, get_catalog: GetToolCatalog) -> Tool:
        async def list_tools(
            detail: Annotated[ToolDetailLevel, _DETAIL] = self._default_detail,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str:
            """List all available tools.

            Use to see the full catalog before searching or calling tools.
            """
            return _render_tools(await get_catalog(ctx), detail)

        return Tool.from_function(fn=list_tools, name=self._name)


# -- execute ------------------------------------------------------------------------------------

_VALIDATION_MARKERS = (
    "validation error for",
    "unexpected keyword argument",
    "missing required argument",
)


def _legible(name: str, tool: Tool, error: Any, validation: bool = False) -> str:
    """A failed call's text for the code's author; with the tool's parameters when its
    arguments were refused."""
    text = json.dumps(error) if isinstance(error, dict) else str(error)
    message = f"call_tool({name!r}) failed: {text}"
    if validation or any(m in text.lower() for m in _VALIDATION_MARKERS):
        props = (tool.parameters or {}).get("properties")
        if isinstance(props, dict) and props:
            required = set((tool.parameters or {}).get("required") or [])
            listed = ", ".join(n + ("*" if n in required else "") for n in props)
            message += f"\nValid parameters for {name} (* = required): {listed}"
    return message


def _refusal(server: FastMCPView, name: str, arguments: Any) -> str | None:
    """pydantic's errors for ``arguments`` the tool ``name`` refuses (``loc: msg; ...``),
    or None when they are valid (or the tool is not a function of this server)."""
    from mcpkit.compat.fastmcp._server import arguments_adapter

    entry = server.native.tools.tools.get(name)
    function = getattr(entry, "function", None)
    original = getattr(getattr(function, "fn", None), "__compat_original__", None)
    if original is None or not isinstance(arguments, dict):
        return None
    try:
        arguments_adapter(original).validate_python(arguments)
    except pydantic.ValidationError as exc:
        return "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
    return None


def _error_detail(result: JSONObject) -> Any:
    text = "\n".join(
        c["text"]
        for c in result.get("content") or ()
        if isinstance(c, dict) and c.get("type") == "text" and c.get("text")
    )
    if text:
        return text
    if result.get("structuredContent") is not None:
        return result["structuredContent"]
    return "tool returned an error"


_SHOWN = {  # a content block's fields as pydantic shows the model (str())
    "image": ("type", "data", "mime_type", "annotations", "meta"),
    "audio": ("type", "data", "mime_type", "annotations", "meta"),
    "resource_link": (
        "name",
        "title",
        "uri",
        "description",
        "mime_type",
        "size",
        "icons",
        "annotations",
        "meta",
        "type",
    ),
    "resource": ("type", "resource", "annotations", "meta"),
}


def _field(block: dict[str, Any], name: str) -> Any:
    key = {"mime_type": "mimeType", "meta": "_meta"}.get(name, name)
    value = block.get(key)
    if name == "resource" and isinstance(value, dict):
        kind = "TextResourceContents" if "text" in value else "BlobResourceContents"
        last = "text" if "text" in value else "blob"
        inner = ", ".join(f"{n}={_field(value, n)!r}" for n in ("uri", "mime_type", "meta", last))
        return _Shown(f"{kind}({inner})")
    return value


class _Shown(str):
    def __repr__(self) -> str:
        return str(self)


def _content_text(content: Any) -> str:
    """A content block's text in the sandbox: a text's own, any other as fastmcp's
    ``str()`` of the block shows it."""
    if isinstance(content, dict) and content.get("type") == "text":
        return str(content.get("text", ""))
    if isinstance(content, dict):
        names = _SHOWN.get(str(content.get("type")), tuple(content))
        return " ".join(f"{n}={_field(content, n)!r}" for n in names)
    return str(content)


def _unwrap(result: JSONObject) -> Any:
    """A call's value in the sandbox: its structured content, else its text."""
    if result.get("structuredContent") is not None:
        return result["structuredContent"]
    return "\n".join(_content_text(c) for c in result.get("content") or ())


class _CodeModeLists(_Lists):
    """``tools/list`` answering the transform's tools only."""

    transform: CodeMode  # type: ignore[assignment]

    def install(self, table: dict[str, ServerHandler]) -> None:
        inner = table.get("tools/list")
        if inner is None:
            return
        self.inner = inner
        native = self.server.native
        names = self.transform.tool_names

        async def list_tools(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            if type(params) is dict and params.get("cursor") is not None:
                raise McpError(INVALID_PARAMS, "Invalid cursor")
            shown = []
            for name in names:
                entry = native.tools.tools.get(name)
                if entry is not None:
                    shown.append(entry.definition)
            return {"tools": shown}

        table["tools/list"] = list_tools


class CodeMode(Transform):
    """Replaces the tool listing with discovery tools (``discovery_tools``, by default
    :class:`Search` and :class:`GetSchemas`) and ``execute``, which runs Python chaining
    ``await call_tool(name, params)`` in ``sandbox_provider`` (Monty by default), at most
    ``max_tool_calls`` calls and ``wall_clock_timeout_secs`` seconds per run."""

    def __init__(
        self,
        *,
        sandbox_provider: SandboxProvider | None = None,
        discovery_tools: list[DiscoveryToolFactory] | None = None,
        execute_tool_name: str = "execute",
        execute_description: str | None = None,
        max_tool_calls: int | None = 50,
        wall_clock_timeout_secs: float | None = None,
    ) -> None:
        self.execute_tool_name = execute_tool_name
        self.execute_description = execute_description
        self.max_tool_calls = max_tool_calls
        self.wall_clock_timeout_secs = wall_clock_timeout_secs
        self.sandbox_provider: SandboxProvider = sandbox_provider or MontySandboxProvider()
        self._factories: list[DiscoveryToolFactory] = (
            discovery_tools if discovery_tools is not None else [Search(), GetSchemas()]
        )
        self.tool_names: tuple[str, ...] = ()
        self.synthetic: frozenset[str] = frozenset()
        self.always_visible: set[str] = set()
        self._lists: _CodeModeLists | None = None

    async def get_tool_catalog(self, ctx: Context) -> Sequence[Tool]:
        """The tools the caller of ``ctx`` may see, the transform's own left out."""
        if self._lists is None:
            return []
        return [CatalogTool.of(t) for t in await self._lists.catalog(ctx.native._request)]

    def _description(self) -> str:
        if self.execute_description is not None:
            return self.execute_description
        return (
            "Chain `await call_tool(...)` calls in one Python block; prefer returning the "
            "final answer from a single block.\nUse `return` to produce output.\n"
            "Only `call_tool(tool_name: str, params: dict) -> Any` is available in scope."
        )

    def install(self, server: FastMCPView) -> None:
        """Register the discovery tools and ``execute`` on ``server`` and filter its list."""
        native = server.native
        if native._tool_search is not None:
            raise ValueError("a tool search transform is already added to this server")
        tools = [factory(self.get_tool_catalog) for factory in self._factories]
        names = [t.name for t in tools]
        if self.execute_tool_name in names:
            raise ValueError(
                f"Discovery tool name '{self.execute_tool_name}' collides with execute_tool_name."
            )
        if len(set(names)) != len(names):
            raise ValueError("Discovery tools must have unique names.")
        self.tool_names = (*names, self.execute_tool_name)
        self.synthetic = frozenset(self.tool_names)
        for tool in tools:
            server.add_tool(tool)
        server.add_tool(
            self._execute(server), name=self.execute_tool_name, description=self._description()
        )
        self._lists = _CodeModeLists(server, self)  # type: ignore[arg-type]
        native._tool_search = self._lists
        native._forget_tables()
        native._reinstall()

    def _execute(self, server: FastMCPView) -> Callable[..., Any]:
        from mcpkit.server.component_tools import _ask

        transform = self
        native = server.native

        async def execute(
            code: Annotated[
                str,
                Field(
                    description="Python async code to execute tool calls via "
                    "call_tool(name, arguments)"
                ),
            ],
            ctx: Context = None,  # type: ignore[assignment]
        ) -> Any:
            """Execute tool calls using Python code."""
            calls = 0
            limit = transform.max_tool_calls

            async def call_tool(tool_name: str, params: dict[str, Any]) -> Any:
                nonlocal calls
                if limit is not None:
                    calls += 1
                    if calls > limit:
                        raise ToolError(
                            f"Tool call limit exceeded: at most {limit} call_tool() "
                            "invocations are allowed per execute()."
                        )
                catalog = await transform.get_tool_catalog(ctx)
                tool = next((t for t in catalog if t.name == tool_name), None)
                if tool is None:
                    raise NotFoundError(f"Unknown tool: {tool_name}")
                try:
                    result = await _ask(
                        native, ctx.native, "tools/call", {"name": tool.name, "arguments": params}
                    )
                except McpError as exc:
                    raise ToolError(_legible(tool_name, tool, exc.message)) from None
                if result.get("isError"):
                    refused = _refusal(server, tool.name, params)
                    if refused is not None:
                        raise ToolError(_legible(tool_name, tool, refused, validation=True))
                    raise ToolError(_legible(tool_name, tool, _error_detail(result)))
                return _unwrap(result)

            run = transform.sandbox_provider.run(code, external_functions={"call_tool": call_tool})
            timeout = transform.wall_clock_timeout_secs
            if timeout is None:
                return await run
            try:
                return await asyncio.wait_for(run, timeout)
            except TimeoutError:
                raise ToolError(
                    f"Execution exceeded the wall-clock limit of {timeout} seconds."
                ) from None

        return execute
