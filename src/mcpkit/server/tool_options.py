"""Tool options: the one list of what a tool is registered with.

:class:`ToolOptions` is the value ``@app.tool(...)``, :meth:`mcpkit.Server.add_tool`,
:meth:`mcpkit.server.tools.ToolRegistry.add` and the compatibility layers hand on;
:class:`ToolKwargs` types the same keywords on the decorators
(``**options: Unpack[ToolKwargs]``), and a test keeps the two equal.

```python
options = ToolOptions(title="Forecast", timeout=10, tags={"weather"})
app.add_tool(forecast, **options.keywords())      # the same as @app.tool(title=..., ...)
```

What each option means is told at :meth:`mcpkit.Server.tool` and in docs/server.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from mcpkit.server.caching import CacheHints, CacheScope

__all__ = ["TaskStart", "TaskSupport", "ToolKwargs", "ToolOptions", "item_hints"]

TaskSupport = Literal["forbidden", "optional", "required"]
TaskStart = Literal["call", "explicit"]


def item_hints(ttl_ms: int | None, scope: CacheScope | None) -> CacheHints | None:
    """The caching hints of one tool, resource, prompt or skill (None: the server's)."""
    if ttl_ms is None and scope is None:
        return None
    return CacheHints(ttl_ms or 0, scope or "private")


class ToolKwargs(TypedDict, total=False):
    """The keywords of ``@app.tool(...)`` besides ``name`` (see :class:`ToolOptions`)."""

    title: str | None
    description: str | None
    annotations: Any
    icons: list[Any] | None
    meta: dict[str, Any] | None
    task_support: TaskSupport | None
    input_schema: dict[str, Any] | None
    output_schema: dict[str, Any] | None
    structured_output: bool | None
    ttl_ms: int | None
    cache_scope: CacheScope | None
    task_start: TaskStart
    ui: str | None
    visibility: Iterable[str] | str | None
    max_concurrency: int | None
    max_queued: int | None
    inline_refs: bool | None
    timeout: float | None
    tags: Iterable[str] | None
    scopes: Iterable[str] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOptions:
    """How one tool is registered; every field optional (None: the server's default or
    what the function says). Checked when made: a wrong ``task_support``/``task_start`` is a
    ValueError."""

    name: str | None = None
    title: str | None = None
    description: str | None = None
    annotations: Any = None
    icons: list[Any] | None = None
    meta: dict[str, Any] | None = None
    task_support: TaskSupport | None = None
    input_schema: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    structured_output: bool | None = None
    ttl_ms: int | None = None
    cache_scope: CacheScope | None = None
    task_start: TaskStart = "call"
    ui: str | None = None
    visibility: Iterable[str] | str | None = None
    max_concurrency: int | None = None
    max_queued: int | None = None
    inline_refs: bool | None = None
    timeout: float | None = None
    tags: Iterable[str] | None = None
    scopes: Iterable[str] | None = None

    def __post_init__(self) -> None:
        if self.task_support not in (None, "forbidden", "optional", "required"):
            raise ValueError("task_support must be 'forbidden', 'optional' or 'required'")
        if self.task_start not in ("call", "explicit"):
            raise ValueError("task_start must be 'call' or 'explicit'")

    @classmethod
    def of(cls, **options: Any) -> ToolOptions:
        """Options from keywords (``name`` and those of :class:`ToolKwargs`): a TypeError
        names a keyword that is not a tool option."""
        unknown = options.keys() - _FIELDS
        if unknown:
            raise TypeError(f"unknown tool option(s): {', '.join(sorted(unknown))}")
        return cls(**options)

    @property
    def cache(self) -> CacheHints | None:
        """The tool's own caching hints (``ttl_ms``/``cache_scope``), or None."""
        return item_hints(self.ttl_ms, self.cache_scope)

    def replace(self, **changes: Any) -> ToolOptions:
        """A copy with ``changes``."""
        return dataclasses.replace(self, **changes)

    def keywords(self) -> dict[str, Any]:
        """The options set (not at their defaults), as keywords of :meth:`Server.tool`
        (with ``name``)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }


_FIELDS = frozenset(f.name for f in dataclasses.fields(ToolOptions))
