"""``fastmcp.server.openapi`` (fastmcp 2.x and 3.x) on mcpkit: the names of
:mod:`mcpkit.compat.fastmcp.server.providers.openapi`, and ``FastMCPOpenAPI``, a server of
an OpenAPI document."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.fastmcp._server import FastMCP
from mcpkit.compat.fastmcp.server.providers.openapi import (
    ComponentFn,
    MCPType,
    OpenAPIProvider,
    OpenAPIResource,
    OpenAPIResourceTemplate,
    OpenAPITool,
    RouteMap,
    RouteMapFn,
)

__all__ = [
    "ComponentFn",
    "FastMCPOpenAPI",
    "MCPType",
    "OpenAPIProvider",
    "OpenAPIResource",
    "OpenAPIResourceTemplate",
    "OpenAPITool",
    "RouteMap",
    "RouteMapFn",
]

_PROVIDER_OPTIONS = ("route_maps", "route_map_fn", "mcp_component_fn", "mcp_names", "tags")


class FastMCPOpenAPI(FastMCP):
    """A server of the document's operations (named ``"OpenAPI FastMCP"`` unless
    ``name``; the options of :class:`OpenAPIProvider`, the rest ``FastMCP``'s)."""

    def __init__(
        self,
        openapi_spec: dict[str, Any],
        client: Any = None,
        name: str | None = None,
        **settings: Any,
    ) -> None:
        chosen = {k: settings.pop(k) for k in _PROVIDER_OPTIONS if k in settings}
        super().__init__(name=name or "OpenAPI FastMCP", **settings)
        self._client = client
        OpenAPIProvider(openapi_spec, client, **chosen).install(self)
