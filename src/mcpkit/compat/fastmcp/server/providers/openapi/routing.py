"""Route maps: which kind of component an operation becomes (the first map whose methods,
path pattern and tags all match; a tool when none does)."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from re import Pattern
from typing import TYPE_CHECKING, Any, Literal

from mcpkit.compat.fastmcp.utilities.openapi import HttpMethod, HTTPRoute

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp.server.providers.openapi.components import OpenAPIComponent

__all__ = ["DEFAULT_ROUTE_MAPPINGS", "ComponentFn", "MCPType", "RouteMap", "RouteMapFn"]

RouteMapFn = Callable[[HTTPRoute, "MCPType"], "MCPType | None"]
ComponentFn = Callable[[HTTPRoute, "OpenAPIComponent"], Any]


class MCPType(enum.Enum):
    """The kind of component an operation becomes."""

    TOOL = "TOOL"
    RESOURCE = "RESOURCE"
    RESOURCE_TEMPLATE = "RESOURCE_TEMPLATE"
    EXCLUDE = "EXCLUDE"


@dataclass(kw_only=True)
class RouteMap:
    """Operations of ``methods`` (``"*"``: any) whose path matches ``pattern`` (searched)
    and that carry every one of ``tags`` become ``mcp_type``, tagged ``mcp_tags``."""

    methods: list[HttpMethod] | Literal["*"] = field(default="*")
    pattern: Pattern[str] | str = field(default=r".*")
    tags: set[str] = field(default_factory=set)
    mcp_type: MCPType
    mcp_tags: set[str] = field(default_factory=set)


#: Without maps of its own, every operation is a tool.
DEFAULT_ROUTE_MAPPINGS = [RouteMap(mcp_type=MCPType.TOOL)]


def determine_route_type(route: HTTPRoute, mappings: list[RouteMap]) -> RouteMap:
    """The first of ``mappings`` that matches ``route`` (a tool map when none does)."""
    for route_map in mappings:
        if route_map.methods != "*" and route.method not in route_map.methods:
            continue
        pattern = route_map.pattern
        found = (
            pattern.search(route.path)
            if isinstance(pattern, Pattern)
            else re.search(pattern, route.path)
        )
        if found and set(route_map.tags) <= set(route.tags or ()):
            return route_map
    return RouteMap(mcp_type=MCPType.TOOL)
