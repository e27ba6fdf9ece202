"""``fastmcp.server.providers.openapi`` on mcpkit: :class:`OpenAPIProvider`, the route
maps (:class:`RouteMap`, :class:`MCPType`) and the components it makes."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.providers.openapi.components import (
    OpenAPIResource,
    OpenAPIResourceTemplate,
    OpenAPITool,
)
from mcpkit.compat.fastmcp.server.providers.openapi.provider import OpenAPIProvider
from mcpkit.compat.fastmcp.server.providers.openapi.routing import (
    ComponentFn,
    MCPType,
    RouteMap,
    RouteMapFn,
)

__all__ = [
    "ComponentFn",
    "MCPType",
    "OpenAPIProvider",
    "OpenAPIResource",
    "OpenAPIResourceTemplate",
    "OpenAPITool",
    "RouteMap",
    "RouteMapFn",
]
