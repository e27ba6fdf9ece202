"""A tool's schemas with their keys in the order the official SDK 2.x sends them.

2.x keeps the schema pydantic generated (its keys sorted) and sends each tool through the
wire model of the request's revision, whose declared fields come first: ``$schema``,
``properties``, ``required``, ``type`` on the handshake era; ``$schema``, ``type`` for an
input schema and ``$schema`` for an output schema on 2026-07-28; the other keys follow as
they were. The order means nothing to JSON, but a client that prints a schema shows it.
mcpkit keeps the generated schemas sorted (``official_schemas``) and an ``MCPServer``
reorders its ``tools/list`` pages per revision (:class:`SdkWireOrder`), each page once.
"""

from __future__ import annotations

from typing import Any

import orjson

from mcpkit.server.middleware.base import Middleware

__all__ = ["SdkWireOrder"]

#: The declared fields of 2.x's wire models, by (revision era, schema).
_FIRST = {
    ("legacy", "inputSchema"): ("$schema", "properties", "required", "type"),
    ("legacy", "outputSchema"): ("$schema", "properties", "required", "type"),
    ("modern", "inputSchema"): ("$schema", "type"),
    ("modern", "outputSchema"): ("$schema",),
}

#: Pages reordered, by the identity of the pre-encoded page (kept while it is cached).
_LIMIT = 16


def _ordered(schema: dict[str, Any], first: tuple[str, ...]) -> dict[str, Any]:
    head = {key: schema[key] for key in first if key in schema}
    return head | {key: value for key, value in schema.items() if key not in head}


def _tools(tools: list[Any], era: str) -> list[Any]:
    out = []
    for tool in tools:
        if isinstance(tool, dict):
            tool = dict(tool)
            for key in ("inputSchema", "outputSchema"):
                schema = tool.get(key)
                if isinstance(schema, dict):
                    tool[key] = _ordered(schema, _FIRST[era, key])
        out.append(tool)
    return out


class SdkWireOrder(Middleware):
    """``tools/list`` answered with each tool's schema keys in 2.x's order for the
    request's revision (a pre-encoded page reordered once per revision)."""

    def __init__(self) -> None:
        self._pages: dict[tuple[int, str], tuple[Any, Any]] = {}

    async def on_list_tools(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        tools = result.get("tools") if isinstance(result, dict) else None
        if tools is None:
            return result
        era = ctx.era
        if isinstance(tools, orjson.Fragment):
            key = (id(tools), era)
            kept = self._pages.get(key)
            if kept is None or kept[0] is not tools:
                if len(self._pages) >= _LIMIT:
                    self._pages.clear()
                reordered = orjson.Fragment(
                    orjson.dumps(_tools(orjson.loads(orjson.dumps(tools)), era))
                )
                kept = self._pages[key] = (tools, reordered)
            return {**result, "tools": kept[1]}
        if isinstance(tools, list):
            return {**result, "tools": _tools(tools, era)}
        return result
