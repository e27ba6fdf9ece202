"""What a proxy knows of the upstream's tools.

:class:`UpstreamTools` keeps each tool's definition in the proxy's tool registry (as an
:class:`UpstreamTool`: the HTTP layer checks a call's ``Mcp-Param-*`` headers against its
``x-mcp-header`` parameters, as for a tool of its own), the ``taskSupport`` of each, and the
tools that must run as 2025-11-25 tasks; :meth:`UpstreamTools.plain` offers those to a
2026-07-28 client that did not opt in to the tasks extension as plain tools.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from mcpkit.http_headers import HeaderParam, definition_header_params
from mcpkit.jsonrpc import JSONObject
from mcpkit.server.caching import CacheHints

__all__ = ["UpstreamTool", "UpstreamTools"]


@dataclass
class UpstreamTool:
    """What the proxy knows of an upstream tool: its definition (the HTTP layer checks a
    call's ``Mcp-Param-*`` headers against its ``x-mcp-header`` parameters, as for a tool
    of its own). Kept in the proxy's ``tools.tools`` by name."""

    definition: JSONObject
    cache: CacheHints | None = None
    accepts_tasks: bool = False

    def header_params(self) -> tuple[HeaderParam, ...] | None:
        """The ``x-mcp-header`` parameters of its definition (as a local tool's)."""
        return definition_header_params(self.definition)


class UpstreamTools:
    """The upstream's tools as the proxy learnt them (``registry()``: the proxy's tool
    registry, by name)."""

    def __init__(self, registry: Callable[[], MutableMapping[str, Any]]) -> None:
        self._registry = registry
        #: Upstream tool -> its ``taskSupport``.
        self.task_support: dict[str, str] = {}
        #: The tools that must run as 2025-11-25 tasks.
        self.task_only: set[str] = set()

    def accepts_tasks(self, name: Any) -> bool:
        """Whether the tool ``name`` may run as a task."""
        return self.task_support.get(str(name)) in ("optional", "required")

    def know(self, tools: list[Any]) -> None:
        """Keep the definitions of ``tools`` (a ``tools/list``'s)."""
        known = self._registry()
        for tool in tools:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                current = known.get(tool["name"])
                if current is not None and not isinstance(current, UpstreamTool):
                    continue  # a tool of the proxy's own (its search tool, a transform)
                known[tool["name"]] = UpstreamTool(tool)
                self.learn_task_support(tool)

    def learn_task_support(self, tool: Any) -> None:
        """Note the ``taskSupport`` of ``tool`` (a definition)."""
        execution = tool.get("execution") if isinstance(tool, dict) else None
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        if isinstance(support, str):
            self.task_support[str(tool.get("name"))] = support
            if support == "required":
                self.task_only.add(str(tool.get("name")))

    def plain(self, result: Any, *, keep_tasks: bool = False) -> Any:
        """A handshake-era ``tools/list`` for a 2026-07-28 client: to a client that opted
        in to the tasks extension as it is; to others the tools that must run as
        2025-11-25 tasks are offered as plain tools (the proxy runs the task and answers
        with its result)."""
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            return result
        for tool in tools:
            self.learn_task_support(tool)
        if keep_tasks:
            return result
        listed = []
        for tool in tools:
            execution = tool.get("execution") if isinstance(tool, dict) else None
            if isinstance(execution, dict) and "taskSupport" in execution:
                rest = {k: v for k, v in execution.items() if k != "taskSupport"}
                tool = {k: v for k, v in tool.items() if k != "execution"}
                if rest:
                    tool["execution"] = rest
            listed.append(tool)
        return {**result, "tools": listed}
