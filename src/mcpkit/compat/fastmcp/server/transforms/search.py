"""``fastmcp.server.transforms.search`` on mcpkit: :class:`RegexSearchTransform` and
:class:`BM25SearchTransform`, added with ``mcp.add_transform(...)``.

``tools/list`` then answers the pinned tools (``always_visible``), the search tool and the
``call_tool`` proxy; every other tool stays callable by its name. The search tool answers
the definitions of the matching tools the caller may see (as its ``tools/list`` would
list them, in fastmcp's order and texts); ``call_tool(name, arguments)`` calls one of them.
The list filter sits where mcpkit's own tool search does (:mod:`mcpkit.server.tool_search`,
after the callers' visibility rules); the ranking is fastmcp's, not mcpkit's, so that the
same query finds the same tools in the same order.
"""

from __future__ import annotations

import math
import re
import time
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field
from pydantic_core import SchemaError, SchemaValidator, ValidationError, core_schema

from mcpkit.compat.fastmcp.context import Context
from mcpkit.compat.fastmcp.server.transforms import Transform
from mcpkit.compat.fastmcp.tools import ToolResult as _ToolResult
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.mount import _child_request

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp._base import FastMCPView
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = ["BM25SearchTransform", "RegexSearchTransform", "serialize_tools_for_output_json"]

SearchResultSerializer = Callable[[Sequence[JSONObject]], Any]


_FIELDS = (
    "name",
    "title",
    "description",
    "inputSchema",
    "execution",
    "outputSchema",
    "icons",
    "annotations",
    "_meta",
)


def _as_fastmcp(tool: JSONObject) -> JSONObject:
    """A listed tool in fastmcp's order of fields (its schemas' keys sorted), so that its
    JSON text is fastmcp's."""
    out: JSONObject = {}
    for key in _FIELDS:
        if key in tool:
            value = tool[key]
            if key in ("inputSchema", "outputSchema") and isinstance(value, dict):
                value = dict(sorted(value.items()))
            out[key] = value
    out.update((k, v) for k, v in tool.items() if k not in out)
    return out


def serialize_tools_for_output_json(tools: Sequence[JSONObject]) -> list[JSONObject]:
    """The tools as ``tools/list`` lists them."""
    return [_as_fastmcp(t) for t in tools]


class ToolResult(_ToolResult):
    """A tool's result answered as it is (what ``call_tool`` forwards)."""

    def __init__(self, result: dict[str, Any]) -> None:
        self.result = result

    def to_result(self) -> dict[str, Any]:
        return self.result


def searchable_text(tool: JSONObject) -> str:
    """fastmcp's text a tool is found by: its name, description, parameter names and
    their descriptions."""
    parts = [str(tool.get("name", ""))]
    if tool.get("description"):
        parts.append(str(tool["description"]))
    schema = tool.get("inputSchema")
    if isinstance(schema, dict) and schema:
        for name, info in (schema.get("properties") or {}).items():
            parts.append(name)
            if isinstance(info, dict) and info.get("description"):
                parts.append(str(info["description"]))
    return " ".join(parts)


class _Lists:
    """The ``tools/list`` filter of a search transform (a table hook of the server)."""

    def __init__(self, server: FastMCPView, transform: BaseSearchTransform) -> None:
        self.server = server
        self.transform = transform
        self.inner: ServerHandler | None = None

    async def catalog(self, rctx: ServerRequestContext) -> list[JSONObject]:
        """Every tool ``rctx``'s caller may see, but the transform's own."""
        import orjson

        inner = self.inner
        if inner is None:
            return []
        own = self.transform.synthetic
        tools: list[JSONObject] = []
        params: JSONObject = {}
        meta = rctx.params.get("_meta") if type(rctx.params) is dict else None
        if meta is not None:
            params["_meta"] = meta
        for _ in range(10_000):
            request = rctx
            if rctx.method != "tools/list":
                request = _child_request(rctx, self.server.native, "tools/list", params)
            page = orjson.loads(orjson.dumps(await inner(params, request)))
            tools.extend(t for t in page.get("tools") or () if t.get("name") not in own)
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
            params = {**params, "cursor": cursor}
        return tools

    def install(self, table: dict[str, ServerHandler]) -> None:
        inner = table.get("tools/list")
        if inner is None:
            return
        self.inner = inner
        native = self.server.native
        transform = self.transform

        async def list_tools(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            if type(params) is dict and params.get("cursor") is not None:
                raise McpError(INVALID_PARAMS, "Invalid cursor")
            tools = await self.catalog(rctx)
            shown = [t for t in tools if t.get("name") in transform.always_visible]
            for name in (transform.search_tool_name, transform.call_tool_name):
                entry = native.tools.tools.get(name)
                if entry is not None:
                    shown.append(entry.definition)
            return {"tools": shown}

        table["tools/list"] = list_tools


class BaseSearchTransform(Transform):
    """Replaces the tool listing with a search tool and a ``call_tool`` proxy."""

    def __init__(
        self,
        *,
        max_results: int = 5,
        always_visible: list[str] | None = None,
        search_tool_name: str = "search_tools",
        call_tool_name: str = "call_tool",
        search_result_serializer: SearchResultSerializer | None = None,
    ) -> None:
        self.max_results = max_results
        self.always_visible = set(always_visible or [])
        self.search_tool_name = search_tool_name
        self.call_tool_name = call_tool_name
        self.serializer = search_result_serializer or serialize_tools_for_output_json
        self.synthetic = frozenset({search_tool_name, call_tool_name})
        self._lists: _Lists | None = None

    def search(self, tools: Sequence[JSONObject], query: str) -> list[JSONObject]:
        """The tools matching ``query``, best first."""
        raise NotImplementedError

    async def _found(self, query: str, ctx: Context) -> Any:
        lists = self._lists
        if lists is None:
            return self.serializer([])
        tools = await lists.catalog(ctx.native._request)
        hidden = [t for t in tools if t.get("name") not in self.always_visible]
        result = self.serializer(self.search(hidden, query))
        if hasattr(result, "__await__"):
            result = await result
        return result

    def _search_tool(self, server: FastMCPView) -> None:
        raise NotImplementedError

    def install(self, server: FastMCPView) -> None:
        """Register the search tool and the proxy on ``server`` and filter its list."""
        native = server.native
        if native._tool_search is not None:
            raise ValueError("a tool search transform is already added to this server")
        self._search_tool(server)
        transform = self
        lists = self._lists = _Lists(server, self)

        async def call_tool(
            name: Annotated[str, Field(description="The name of the tool to call")],
            arguments: Annotated[
                dict[str, Any] | None, Field(description="Arguments to pass to the tool")
            ] = None,
            ctx: Context = None,  # type: ignore[assignment]
        ) -> ToolResult:
            """Call a tool by name with the given arguments.

            Use this to execute tools discovered via search_tools.
            """
            from mcpkit.server.component_tools import _ask

            if name in transform.synthetic:
                raise ValueError(
                    f"'{name}' is a synthetic search tool and cannot be called via the "
                    "call_tool proxy"
                )
            request = ctx.native._request
            if not any(t.get("name") == name for t in await lists.catalog(request)):
                raise LookupError(f"Unknown tool: {name!r}")
            params: JSONObject = {"name": name, "arguments": arguments or {}}
            return ToolResult(await _ask(native, ctx.native, "tools/call", params))

        server.add_tool(call_tool, name=self.call_tool_name)
        native._tool_search = lists
        native._forget_tables()
        native._reinstall()


class RegexSearchTransform(BaseSearchTransform):
    """Finds tools whose name, description or parameters match a case-insensitive regular
    expression (Rust's engine, as pydantic runs it; at most 1000 characters, a second)."""

    _max_pattern_length = 1000
    _search_time_budget = 1.0

    def _search_tool(self, server: FastMCPView) -> None:
        found = self._found

        async def search_tools(
            pattern: Annotated[
                str,
                Field(
                    description="Case-insensitive regex pattern for tool names, descriptions, "
                    "and parameters, up to 1000 characters; lookarounds and backreferences "
                    "are not supported"
                ),
            ],
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str | list[dict[str, Any]]:
            """Search for tools matching a regex pattern.

            Returns matching tool definitions in the same format as list_tools.
            Invalid, unsupported, or overlong patterns return an empty list.
            """
            result: str | list[dict[str, Any]] = await found(pattern, ctx)
            return result

        server.add_tool(search_tools, name=self.search_tool_name)

    def search(self, tools: Sequence[JSONObject], query: str) -> list[JSONObject]:
        if len(query) > self._max_pattern_length:
            return []
        deadline = time.monotonic() + self._search_time_budget
        try:
            matcher = SchemaValidator(
                core_schema.str_schema(pattern=f"(?i){query}", regex_engine="rust-regex")
            )
        except SchemaError:
            return []
        matches: list[JSONObject] = []
        for tool in tools:
            if time.monotonic() > deadline:
                break
            try:
                matcher.validate_python(searchable_text(tool))
            except ValidationError:
                continue
            matches.append(tool)
            if len(matches) >= self.max_results:
                break
        return matches


def _tokenize(text: str) -> list[str]:
    return re.findall(r"[^\W_]{2,}", unicodedata.normalize("NFKC", text).casefold())


def bm25_rank(documents: list[str], query: str, top_k: int) -> list[int]:
    """fastmcp's BM25 Okapi ranking (k1 1.5, b 0.75): the indices of the ``top_k`` best
    documents scoring above zero, best first (ties in document order)."""
    k1, b = 1.5, 0.75
    tokens = [_tokenize(d) for d in documents]
    n = len(documents)
    terms = _tokenize(query)
    if not terms or not n:
        return []
    lengths = [len(t) for t in tokens]
    avg = sum(lengths) / n
    df: dict[str, int] = {}
    tfs: list[dict[str, int]] = []
    for doc in tokens:
        tf: dict[str, int] = {}
        for token in doc:
            tf[token] = tf.get(token, 0) + 1
        for token in tf:
            df[token] = df.get(token, 0) + 1
        tfs.append(tf)
    scores = [0.0] * n
    for term in terms:
        if term not in df:
            continue
        idf = math.log((n - df[term] + 0.5) / (df[term] + 0.5) + 1.0)
        for i in range(n):
            f = tfs[i].get(term, 0)
            if f:
                scores[i] += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * lengths[i] / avg))
    ranked = sorted(range(n), key=lambda i: scores[i], reverse=True)
    return [i for i in ranked[:top_k] if scores[i] > 0]


class BM25SearchTransform(BaseSearchTransform):
    """Finds tools by BM25 relevance of a natural-language query to their name,
    description and parameters."""

    def _search_tool(self, server: FastMCPView) -> None:
        found = self._found

        async def search_tools(
            query: Annotated[str, Field(description="Natural language query to search for tools")],
            ctx: Context = None,  # type: ignore[assignment]
        ) -> str | list[dict[str, Any]]:
            """Search for tools using natural language.

            Returns matching tool definitions ranked by relevance,
            in the same format as list_tools.
            """
            result: str | list[dict[str, Any]] = await found(query, ctx)
            return result

        server.add_tool(search_tools, name=self.search_tool_name)

    def search(self, tools: Sequence[JSONObject], query: str) -> list[JSONObject]:
        indices = bm25_rank([searchable_text(t) for t in tools], query, self.max_results)
        return [tools[i] for i in indices]
