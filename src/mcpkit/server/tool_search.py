"""Tool search: a server with hundreds of tools lists a few and lets the model search the rest.

```python
app = Server("big", tool_search=ToolSearch(pinned=["help"]))
```

``tools/list`` then answers only the pinned tools and the search tool (``search_tools``);
``search_tools(query, limit)`` ranks every tool the client could see (its own, mounted and
proxied servers', after scope and visibility rules) by BM25 over names, titles,
descriptions and argument names and descriptions, and answers the best ones' full
definitions (``structuredContent.tools``, and the same as JSON text).

Search is discovery, not access control: a tool left out of the list is still called by its
name, found or not, in both eras, so the rule is the same for a 2025-11-25 session and the
stateless 2026-07-28 wire and no list changes are sent (use ``scopes=`` or disabling to keep
a tool from someone). A server without tool search installs nothing.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.context import Context
from mcpkit.server.mount import _child_request

if TYPE_CHECKING:
    from mcpkit.server.core import ServerCore as Server
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = ["ToolSearch", "rank"]

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_K1 = 1.2
_B = 0.75


def _tokens(text: str) -> list[str]:
    """Lower-case words of ``text``, ``snake_case`` and ``camelCase`` split."""
    return [w.lower() for w in _WORD.findall(text)]


def _document(tool: JSONObject) -> list[str]:
    """The words a tool is found by: its name three times, its title twice (they say most),
    its description, its arguments' names and descriptions."""
    words = _tokens(str(tool.get("name", ""))) * 3
    words += _tokens(str(tool.get("title") or "")) * 2
    words += _tokens(str(tool.get("description") or ""))
    schema = tool.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    for arg, prop in (props or {}).items():
        words += _tokens(str(arg))
        if isinstance(prop, dict):
            words += _tokens(str(prop.get("description") or ""))
    return words


def rank(query: str, tools: Iterable[JSONObject], limit: int) -> list[JSONObject]:
    """The ``limit`` tools that match ``query`` best (BM25), best first; none for a query
    without words or tools without any of them."""
    terms = set(_tokens(query))
    docs = [(tool, _document(tool)) for tool in tools]
    if not terms or not docs:
        return []
    avg = sum(len(d) for _, d in docs) / len(docs) or 1.0
    df: Counter[str] = Counter()
    for _, words in docs:
        df.update(terms.intersection(words))
    n = len(docs)
    scored: list[tuple[float, int, JSONObject]] = []
    for i, (tool, words) in enumerate(docs):
        counts = Counter(w for w in words if w in terms)
        score = 0.0
        for term, tf in counts.items():
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            score += idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * len(words) / avg))
        if score > 0:
            scored.append((-score, i, tool))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [tool for _, _, tool in scored[:limit]]


@dataclass(frozen=True, slots=True)
class ToolSearch:
    """``Server(tool_search=ToolSearch(...))``: ``pinned`` tools stay listed beside the
    search tool ``name``, which answers at most ``max_results`` definitions (the caller may
    ask for fewer); ``description`` replaces the search tool's."""

    pinned: Collection[str] = field(default=())
    name: str = "search_tools"
    max_results: int = 10
    description: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.pinned, str):
            raise TypeError("pinned is a collection of tool names, not one string")
        if self.max_results < 1:
            raise ValueError("max_results must be at least 1")

    def enable_on(self, server: Any) -> Installed:
        """Turn tool search on for ``server`` (what ``Server(tool_search=self)`` does)."""
        return enable(server, self)


_DESCRIPTION = (
    "Search this server's tools: most are not listed. Describe what you want to do in a few "
    "words; the best matching tools' definitions come back, and any of them can then be "
    "called by its name."
)


def _decoded(page: Any) -> JSONObject:
    loaded: JSONObject = orjson.loads(orjson.dumps(page))  # pages may hold pre-encoded parts
    return loaded


class Installed:
    """Tool search on one server: the search tool and the ``tools/list`` filter."""

    def __init__(self, server: Server[Any], options: ToolSearch) -> None:
        self.server = server
        self.options = options
        self.listed = frozenset(options.pinned) | {options.name}
        #: The unfiltered ``tools/list`` handler of the table installed last.
        self.inner: ServerHandler | None = None
        search = self.search
        limit = options.max_results

        async def search_tools(query: str, ctx: Context, limit: int = limit) -> Any:
            return await search(query, limit, ctx)

        server.add_tool(
            search_tools,
            name=options.name,
            description=options.description or _DESCRIPTION,
            annotations={"readOnlyHint": True, "openWorldHint": False},
            input_schema={
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the tool should do"},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": limit,
                        "default": limit,
                        "description": "Most tools to return",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        )
        server.tools.tools[options.name].passthrough_type = dict

    async def everything(
        self, params: JSONObject | None, rctx: ServerRequestContext
    ) -> tuple[JSONObject, list[Any]]:
        """Every tool the client may see, every page of the inner ``tools/list`` followed,
        and the first page (for what else a list result carries)."""
        inner = self.inner
        if inner is None:
            return {}, []
        meta = params.get("_meta") if type(params) is dict else None
        base: JSONObject = {"_meta": meta} if meta is not None else {}
        page_params: JSONObject = dict(base)
        tools: list[Any] = []
        first: JSONObject | None = None
        for _ in range(10_000):
            request = rctx
            if rctx.method != "tools/list":  # asked by the search tool: a list request here
                request = _child_request(rctx, self.server, "tools/list", page_params)
            page = _decoded(await inner(page_params, request))
            if first is None:
                first = page
            tools.extend(page.get("tools") or ())
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
            page_params = {**base, "cursor": cursor}
        return first or {}, tools

    async def search(self, query: str, limit: int, ctx: Context) -> JSONObject:
        request = ctx._request
        _, tools = await self.everything(request.params, request)
        own = self.options.name
        found = rank(query, (t for t in tools if t.get("name") != own), limit)
        structured = {"tools": found}
        return {
            "content": [{"type": "text", "text": orjson.dumps(structured).decode()}],
            "structuredContent": structured,
        }

    def install(self, table: dict[str, ServerHandler]) -> None:
        """Serve ``table``'s ``tools/list`` as the pinned tools and the search tool."""
        inner = table.get("tools/list")
        if inner is None:
            return
        self.inner = inner
        listed = self.listed

        async def list_tools(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            if type(params) is dict and params.get("cursor") is not None:
                raise McpError(INVALID_PARAMS, "Invalid cursor")  # it never gives one
            first, tools = await self.everything(params, rctx)
            result = {k: v for k, v in first.items() if k != "nextCursor"}
            shown = [t for t in tools if t.get("name") in listed]
            if not any(t.get("name") == self.options.name for t in shown):  # a proxy's list
                entry = self.server.tools.tools.get(self.options.name)
                if entry is not None:
                    shown.insert(0, entry.definition)
            result["tools"] = shown
            return result

        table["tools/list"] = list_tools
        call = table.get("tools/call")
        own_call = self.server.tools.call_tool
        if call is not None and call != own_call:  # a proxy forwards every call: not this one
            search_name = self.options.name

            async def call_tool(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
                if type(params) is dict and params.get("name") == search_name:
                    return await own_call(params, rctx)
                return await call(params, rctx)

            table["tools/call"] = call_tool


def enable(server: Server[Any], options: ToolSearch) -> Installed:
    """Turn tool search on for ``server`` (once)."""
    if server._tool_search is not None:
        raise ValueError("tool search is already on for this server")
    installed = Installed(server, options)
    server._tool_search = installed
    server._forget_tables()
    server._reinstall()
    return installed
