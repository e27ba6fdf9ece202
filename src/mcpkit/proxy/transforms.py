"""Tool transforms on a proxy: a new tool made from an upstream one.

```python
proxy = ProxyServer(upstream)
proxy.transform_tool("search", name="find", args={"limit": ArgTransform(hide=True, default=3)})
```

The upstream's tools are known only once they are listed, so :class:`ProxyTransforms`
records each transform and makes it (as :func:`mcpkit.server.transforms.transform_tool`
does for a local tool) when the proxy lists the upstream's tools: when it starts (a
transform of a tool the upstream does not have, or of an argument it does not take, fails
the start with ``ValueError``) and again after the upstream's tool list changes (a transform
that no longer fits is then dropped, with a warning). The new tool is listed right after its
original in the upstream's ``tools/list`` pages (the original left out when
``keep_original=False``; calling it is then an unknown tool), and a call of it runs the
proxy's own tool (arguments validated, ``wrap`` run) whose ``call_next`` forwards the
original's ``tools/call`` with the original's argument names, as any forwarded call. It
takes no Context of the proxy: an upstream question on the 2026-07-28 wire (an
``InputRequiredResult``) is raised from ``call_next`` and answered to the client as it is,
and the client's retry runs the new tool again with the upstream's ``requestState``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject
from mcpkit.server.context import Context
from mcpkit.server.mrtr import InputRequired
from mcpkit.server.tools import ToolEntry

if TYPE_CHECKING:
    from mcpkit.server.core import ServerCore as Server
    from mcpkit.server.session import ServerHandler, ServerRequestContext

__all__ = ["ProxyTransforms"]

logger = logging.getLogger("mcpkit.proxy")
#: The ``tools/call`` of a transformed tool being served.
_REQUEST: ContextVar[ServerRequestContext | None] = ContextVar("proxy_transform_call", default=None)
#: Calls an upstream tool: (tools/call params, the request) -> its result.
Forward = Callable[[JSONObject, "ServerRequestContext"], Awaitable[Any]]


@dataclass(slots=True)
class _Spec:
    source: str
    keep_original: bool
    options: dict[str, Any] = field(default_factory=dict)


class ProxyTransforms:
    """The transforms of one proxy: recorded, made from the upstream's definitions
    (:meth:`resolve`), served around its forwarded ``tools/list`` and ``tools/call``
    (:meth:`install`)."""

    def __init__(self, server: Server[Any], forward: Forward) -> None:
        self.server = server
        self.forward = forward
        self.specs: dict[str, _Spec] = {}  # by the new tool's name
        #: Upstream tool -> the new tools made from it (as made last).
        self.made: dict[str, list[str]] = {}
        #: Upstream tools left out of the list (``keep_original=False``).
        self.hidden: frozenset[str] = frozenset()
        #: Whether the upstream's tools were listed (a transform is then made at once).
        self.primed = False

    def add(self, source: str, name: str, keep_original: bool, options: dict[str, Any]) -> None:
        """Record a transform (made at the next :meth:`resolve`)."""
        if name == source:
            raise ValueError(f"the new tool needs a name of its own (name=...), not {source!r}")
        if name in self.specs:
            raise ValueError(f"a tool named {name!r} is already a transform")
        self.specs[name] = _Spec(source, keep_original, options)

    def source(self, name: str) -> tuple[JSONObject, Any, None] | None:
        """The upstream tool ``name``'s definition and how to call it (for
        :func:`mcpkit.server.transforms.transform_tool`), None when it is not known."""
        from mcpkit.proxy.tools import UpstreamTool

        known = self.server.tools.tools.get(name)
        if not isinstance(known, UpstreamTool):
            return None
        forward = self.forward

        async def forward_upstream(arguments: dict[str, Any], ctx: Context | None) -> JSONObject:
            request = _REQUEST.get()
            if request is None:
                raise McpError(INTERNAL_ERROR, f"{name!r} was called outside a tools/call")
            params = request.params
            body: JSONObject = dict(params) if isinstance(params, dict) else {}
            body["name"] = name
            body["arguments"] = arguments
            result: JSONObject = await forward(body, request)
            if isinstance(result, dict) and result.get("resultType") == "input_required":
                # the upstream asks: this round goes to the client as it is
                needed = InputRequired(result.get("inputRequests"), result.get("requestState"))
                needed.result = result
                raise needed
            return result

        # no Context: the upstream's rounds are the client's (its requestState is not ours)
        forward_upstream.contextless = True
        return {**known.definition, "name": name}, forward_upstream, None

    def resolve(self, *, strict: bool, listed: Collection[str] | None = None) -> None:
        """Make every transform from the upstream's tools as the proxy knows them now
        (``listed``: the names the upstream lists now, when known); ``strict``: one that
        does not fit raises ``ValueError``, else it is dropped."""
        from mcpkit.server.transforms import transform_tool

        tools = self.server.tools.tools
        made: dict[str, list[str]] = {}
        hidden: set[str] = set()
        for name, spec in self.specs.items():
            if isinstance(tools.get(name), ToolEntry):  # made before: made again
                del tools[name]
            try:
                gone = listed is not None and spec.source not in listed
                if gone or self.source(spec.source) is None:
                    raise ValueError(f"the upstream has no tool named {spec.source!r} to transform")
                transform_tool(self.server, spec.source, name=name, **spec.options)
            except ValueError as exc:
                if strict:
                    raise
                logger.warning("Tool transform %r dropped: %s", name, exc)
                self.server.tools._changed()
                continue
            made.setdefault(spec.source, []).append(name)
            if not spec.keep_original:
                hidden.add(spec.source)
        self.made, self.hidden = made, frozenset(hidden)

    def install(self, table: dict[str, ServerHandler]) -> None:
        """Serve the new tools around ``table``'s forwarded ``tools/list`` and ``tools/call``."""
        inner_list, inner_call = table.get("tools/list"), table.get("tools/call")
        if inner_list is None or inner_call is None:
            return
        tools = self.server.tools.tools
        own_call = self.server.tools.call_tool

        async def list_tools(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            result = await inner_list(params, rctx)
            page = result.get("tools") if isinstance(result, dict) else None
            if not isinstance(page, list) or not self.made:
                return result
            listed: list[Any] = []
            for tool in page:
                name = tool.get("name") if isinstance(tool, dict) else None
                if name not in self.hidden:
                    listed.append(tool)
                for new in self.made.get(name, ()) if isinstance(name, str) else ():
                    entry = tools.get(new)
                    if isinstance(entry, ToolEntry):
                        listed.append(entry.definition)
            return {**result, "tools": listed}

        async def call_tool(params: JSONObject | None, rctx: ServerRequestContext) -> Any:
            name = params.get("name") if type(params) is dict else None
            if isinstance(name, str):
                if name in self.specs and isinstance(tools.get(name), ToolEntry):
                    token = _REQUEST.set(rctx)
                    try:
                        return await own_call(params, rctx)
                    finally:
                        _REQUEST.reset(token)
                if name in self.hidden:
                    raise McpError(INVALID_PARAMS, f"Unknown tool: {name}")
            return await inner_call(params, rctx)

        table["tools/list"] = list_tools
        table["tools/call"] = call_tool
