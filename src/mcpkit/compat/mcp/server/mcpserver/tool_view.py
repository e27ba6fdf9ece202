"""``server._tool_manager`` on mcpkit: a read-only view of the registered tools under the
official SDK's private names, for servers that enumerate their tools through it
(``_tool_manager.list_tools()``, ``.get_tool(name)``, ``._tools``).

Each tool shows what the client is sent (``name``, ``title``, ``description``,
``parameters``, ``output_schema``, ``annotations``, ``icons``, ``meta``) and the function
(``fn``). Only ``parameters`` can be set (the input schema listed; the arguments are still
checked as the function takes them, as on the SDK): the SDK's internal ``fn_metadata`` (its
argument model) is not there, and setting any other attribute raises, rather than being
silently ignored.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

from mcpkit.server.tools import ToolEntry, ToolRegistry

__all__ = ["ToolManagerView", "ToolView"]

_READ_ONLY = (
    "mcpkit's compat layer serves _tool_manager as a read-only view: register, change or "
    "remove tools with the server's own methods (tool, add_tool, remove_tool)"
)


class ToolView:
    """One registered tool, as the official SDK's ``Tool`` reads (copies: changing them
    changes nothing)."""

    __slots__ = ("_entry", "_registry")

    def __init__(self, entry: ToolEntry, registry: ToolRegistry | None = None) -> None:
        object.__setattr__(self, "_entry", entry)
        object.__setattr__(self, "_registry", registry)

    @property
    def name(self) -> str:
        return str(self._entry.name)

    @property
    def title(self) -> str | None:
        title: str | None = self._entry.definition.get("title")
        return title

    @property
    def description(self) -> str:
        return str(self._entry.definition.get("description", ""))

    @property
    def parameters(self) -> dict[str, Any]:
        schema: dict[str, Any] = copy.deepcopy(self._entry.definition["inputSchema"])
        return schema

    @property
    def output_schema(self) -> dict[str, Any] | None:
        schema: dict[str, Any] | None = copy.deepcopy(self._entry.definition.get("outputSchema"))
        return schema

    @property
    def annotations(self) -> Any:
        from mcpkit.types import ToolAnnotations

        raw = self._entry.definition.get("annotations")
        return None if raw is None else ToolAnnotations.from_wire(raw)

    @property
    def icons(self) -> list[Any] | None:
        from mcpkit.types import Icon

        raw = self._entry.definition.get("icons")
        return None if raw is None else [Icon.from_wire(i) for i in raw]

    @property
    def meta(self) -> dict[str, Any] | None:
        meta: dict[str, Any] | None = copy.deepcopy(self._entry.definition.get("_meta"))
        return meta

    @property
    def fn(self) -> Callable[..., Any]:
        fn: Callable[..., Any] = getattr(self._entry.fn, "__compat_original__", self._entry.fn)
        return fn

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.fn)

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{name!r} is not provided: {_READ_ONLY}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "parameters" and self._registry is not None:
            # the schema listed (as the SDK's Tool.parameters); arguments are checked as
            # the function takes them, there as here
            self._entry.definition["inputSchema"] = copy.deepcopy(value)
            self._registry._definitions_cache = None
            self._registry.paginator.invalidate()
            return
        raise AttributeError(f"cannot set {name!r}: {_READ_ONLY}")

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"


class ToolManagerView:
    """The official SDK's ``ToolManager`` read paths over a native tool registry."""

    __slots__ = ("_registry",)

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry

    @property
    def _tools(self) -> dict[str, ToolView]:
        return {name: ToolView(e, self._registry) for name, e in self._registry.tools.items()}

    def get_tool(self, name: str) -> ToolView | None:
        """The tool named ``name``, if registered."""
        entry = self._registry.tools.get(name)
        return None if entry is None else ToolView(entry, self._registry)

    def list_tools(self) -> list[ToolView]:
        """Every registered tool, in registration order."""
        return [ToolView(e, self._registry) for e in self._registry.tools.values()]

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{name!r} is not provided: {_READ_ONLY}")
