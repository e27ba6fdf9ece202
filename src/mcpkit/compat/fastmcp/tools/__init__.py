"""``fastmcp.tools`` on mcpkit: :class:`Tool` (``Tool.from_function(fn, ...)`` then
``mcp.add_tool(tool)``, or a subclass with ``run`` a provider serves), the standalone
:func:`tool` decorator, and :class:`ToolResult` (content and structured content returned
as they are)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit.compat.fastmcp._components import FunctionTool, Tool, marked

__all__ = ["FunctionTool", "Tool", "ToolResult", "tool"]


def tool(name_or_fn: str | Callable[..., Any] | None = None, **options: Any) -> Any:
    """fastmcp's standalone ``@tool`` (bare, ``@tool("name")`` or ``@tool(...)`` with
    ``@mcp.tool``'s options): the function stays as it is, marked for a
    ``FileSystemProvider`` (or ``LocalProvider``) to find."""
    if callable(name_or_fn):
        return marked("tool", name_or_fn, options)
    if name_or_fn is not None:
        options["name"] = name_or_fn
    return lambda fn: marked("tool", fn, options)


class ToolResult:
    """What a tool may return to choose its result: ``content`` (a string, content blocks,
    or anything JSON-able) and ``structured_content`` (a dict), and ``meta``."""

    def __init__(
        self,
        content: Any = None,
        structured_content: dict[str, Any] | Any = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if content is None and structured_content is None:
            raise ValueError("Either content or structured_content must be provided")
        self.content = content
        self.structured_content = structured_content
        self.meta = meta

    def to_result(self) -> dict[str, Any]:
        """The ``CallToolResult`` dict."""
        from mcpkit.compat._adapt import compact_json_text, official_content
        from mcpkit.server.content import to_content

        source = self.content if self.content is not None else self.structured_content
        content = (
            official_content(source, compact_json_text)
            if not isinstance(source, str)
            else to_content(source)
        )
        result: dict[str, Any] = {"content": content}
        if self.structured_content is not None:
            structured = self.structured_content
            if not isinstance(structured, dict):
                import pydantic_core

                structured = pydantic_core.to_jsonable_python(structured)
            result["structuredContent"] = structured
        if self.meta is not None:
            result["_meta"] = self.meta
        return result
