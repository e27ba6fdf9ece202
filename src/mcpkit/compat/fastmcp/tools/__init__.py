"""``fastmcp.tools`` on mcpkit: :class:`Tool` (``Tool.from_function(fn, ...)`` then
``mcp.add_tool(tool)``) and :class:`ToolResult` (content and structured content returned
as they are)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Tool", "ToolResult"]


@dataclass
class Tool:
    """A function and the options it is registered with."""

    fn: Callable[..., Any]
    name: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], name: str | None = None, **options: Any) -> Tool:
        """A tool of ``fn`` with :meth:`FastMCP.tool`'s options."""
        return cls(fn, name, options)


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
