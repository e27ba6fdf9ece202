"""fastmcp's ``OpenAPIProvider``: every operation of an OpenAPI document made a tool, a
resource or a resource template (by the route maps), named and described as fastmcp names
and describes them, and served by a :class:`~mcpkit.compat.fastmcp.FastMCP` on its native
server (:meth:`OpenAPIProvider.install`)."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from mcpkit.compat.fastmcp._mount import default_title
from mcpkit.compat.fastmcp.schemas import dereferenced
from mcpkit.compat.fastmcp.server.providers.openapi.components import (
    OpenAPIComponent,
    OpenAPIResource,
    OpenAPIResourceTemplate,
    OpenAPITool,
)
from mcpkit.compat.fastmcp.server.providers.openapi.routing import (
    DEFAULT_ROUTE_MAPPINGS,
    ComponentFn,
    MCPType,
    RouteMap,
    RouteMapFn,
    determine_route_type,
)
from mcpkit.compat.fastmcp.utilities.openapi import (
    HTTPRoute,
    extract_output_schema_from_responses,
    parse_openapi_to_http_routes,
)
from mcpkit.server.resources import ResourceNotFound
from mcpkit.server.tool_options import ToolOptions
from mcpkit.server.tools import ToolEntry

__all__ = ["OpenAPIProvider"]

logger = logging.getLogger("mcpkit.compat.fastmcp.openapi")

DEFAULT_TIMEOUT = 30.0
_VARIABLE = re.compile(r"\{([^{}]+)\}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SUCCESS = ("200", "201", "202", "204")
_JSON_TYPES = (
    "application/json",
    "application/vnd.api+json",
    "application/hal+json",
    "application/ld+json",
    "text/json",
)


def _slugify(text: str) -> str:
    """Letters, digits and underscores (separators made underscores, runs of them one)."""
    slug = re.sub(r"[\s\-\.]+", "_", text or "")
    slug = re.sub(r"[^a-zA-Z0-9_]", "", slug)
    return re.sub(r"_+", "_", slug).strip("_")


def _mime_type(route: HTTPRoute) -> str:
    """The media type of the primary success response (a JSON one preferred)."""
    info = next((route.responses[c] for c in _SUCCESS if c in route.responses), None)
    if info is None:
        info = next((r for c, r in route.responses.items() if c.startswith("2")), None)
    if info is None or not info.content_schema:
        return "application/json"
    kinds = list(info.content_schema)
    if len(kinds) == 1:
        return kinds[0]
    return next((t for t in _JSON_TYPES if t in info.content_schema), kinds[0])


class _ResultEntry(ToolEntry):
    """A tool whose function returns the ``CallToolResult`` dict itself."""

    __slots__ = ()

    def to_result(self, value: Any) -> dict[str, Any]:
        """``value``, already the result."""
        result: dict[str, Any] = value
        return result


class OpenAPIProvider:
    """The components of an OpenAPI document, each sending its request with ``client``
    (an ``httpx2`` or ``httpx`` ``AsyncClient``; without one, a client for the document's
    first server URL with a 30 second timeout)."""

    def __init__(
        self,
        openapi_spec: dict[str, Any],
        client: Any = None,
        *,
        route_maps: list[RouteMap] | None = None,
        route_map_fn: RouteMapFn | None = None,
        mcp_component_fn: ComponentFn | None = None,
        mcp_names: dict[str, str] | None = None,
        tags: set[str] | None = None,
        validate_output: bool = True,
    ) -> None:
        self._client = client if client is not None else self._default_client(openapi_spec)
        self._component_fn = mcp_component_fn
        self._validate_output = validate_output
        self._used: dict[str, Counter[str]] = {
            kind: Counter() for kind in ("tool", "resource", "resource_template")
        }
        self._tools: dict[str, OpenAPITool] = {}
        self._resources: dict[str, OpenAPIResource] = {}
        self._templates: dict[str, OpenAPIResourceTemplate] = {}
        try:
            routes = parse_openapi_to_http_routes(openapi_spec)
        except Exception as exc:
            raise ValueError(f"Invalid OpenAPI specification: {exc}") from exc
        maps = [*(route_maps or []), *DEFAULT_ROUTE_MAPPINGS]
        for route in routes:
            route_map = determine_route_type(route, maps)
            kind = route_map.mcp_type
            if route_map_fn is not None:
                try:
                    chosen = route_map_fn(route, kind)
                except Exception as exc:
                    logger.warning(
                        "Error in route_map_fn for %s %s: %s. Using default values.",
                        route.method,
                        route.path,
                        exc,
                    )
                else:
                    if chosen is not None:
                        kind = chosen
            name = self._name(route, mcp_names)
            route_tags = set(route.tags) | route_map.mcp_tags | (tags or set())
            if kind == MCPType.TOOL:
                self._add_tool(route, name, route_tags)
            elif kind == MCPType.RESOURCE:
                self._add_resource(route, name, route_tags)
            elif kind == MCPType.RESOURCE_TEMPLATE:
                self._add_template(route, name, route_tags)

    @staticmethod
    def _default_client(spec: dict[str, Any]) -> Any:
        servers = spec.get("servers") or []
        if not servers or not servers[0].get("url"):
            raise ValueError(
                "No server URL found in OpenAPI spec. Either add a 'servers' entry to the "
                "spec or provide an httpx2.AsyncClient explicitly."
            )
        url = servers[0]["url"]
        for var, value in (servers[0].get("variables") or {}).items():
            url = url.replace("{" + var + "}", value.get("default", ""))
        return _client_module().AsyncClient(base_url=url, timeout=DEFAULT_TIMEOUT)

    def _name(self, route: HTTPRoute, names: dict[str, str] | None) -> str:
        names = names or {}
        if route.operation_id:
            if route.operation_id in names:
                name = names[route.operation_id]
            else:
                name = route.operation_id.split("__")[0]
        else:
            name = route.summary or f"{route.method}_{route.path}"
        name = _slugify(name) or _slugify(f"{route.method}_{route.path}")
        return name[:56]

    def _unique(self, name: str, kind: Literal["tool", "resource", "resource_template"]) -> str:
        used = self._used[kind]
        used[name] += 1
        if used[name] == 1:
            return name
        new = f"{name}_{used[name]}"
        while new in used:
            used[name] += 1
            new = f"{name}_{used[name]}"
        used[new] += 1
        return new

    def _customised(self, route: HTTPRoute, component: OpenAPIComponent) -> None:
        if self._component_fn is None:
            return
        try:
            self._component_fn(route, component)
        except Exception as exc:
            logger.warning("Error in component_fn for %s: %s", component.name, exc)

    def _add_tool(self, route: HTTPRoute, name: str, tags: set[str]) -> None:
        output = extract_output_schema_from_responses(
            route.responses, route.response_schemas, route.openapi_version
        )
        if not self._validate_output and output is not None:
            permissive: dict[str, Any] = {"type": "object", "additionalProperties": True}
            if output.get("x-fastmcp-wrap-result"):
                permissive["x-fastmcp-wrap-result"] = True
                permissive["properties"] = {"result": {}}
            output = permissive
        tool = OpenAPITool(
            self._client,
            route,
            name=self._unique(name, "tool"),
            description=route.description
            or route.summary
            or f"Executes {route.method} {route.path}",
            parameters=route.flat_param_schema,
            output_schema=output,
            tags=set(route.tags or []) | tags,
        )
        self._customised(route, tool)
        self._tools[tool.name] = tool

    def _add_resource(self, route: HTTPRoute, name: str, tags: set[str]) -> None:
        unique = self._unique(name, "resource")
        resource = OpenAPIResource(
            self._client,
            route,
            uri=f"resource://{unique}",
            name=unique,
            description=route.description or route.summary or f"Represents {route.path}",
            mime_type=_mime_type(route),
            tags=set(route.tags or []) | tags,
        )
        self._customised(route, resource)
        self._resources[resource.uri] = resource

    def _add_template(self, route: HTTPRoute, name: str, tags: set[str]) -> None:
        unique = self._unique(name, "resource_template")
        path_params = [p for p in route.parameters if p.location == "path"]
        uri = f"resource://{unique}"
        if path_params:
            uri += "/" + "/".join("{" + n + "}" for n in sorted(p.name for p in path_params))
        parameters = {
            "type": "object",
            "properties": {
                p.name: {
                    **p.schema_,
                    **(
                        {"description": p.description}
                        if p.description and "description" not in p.schema_
                        else {}
                    ),
                }
                for p in path_params
            },
            "required": [p.name for p in path_params if p.required],
        }
        template = OpenAPIResourceTemplate(
            self._client,
            route,
            uri_template=uri,
            name=unique,
            description=route.description or route.summary or f"Template for {route.path}",
            parameters=parameters,
            tags=set(route.tags or []) | tags,
            mime_type=_mime_type(route),
        )
        self._customised(route, template)
        self._templates[template.uri_template] = template

    # -- serving --------------------------------------------------------------------------

    def install(self, server: Any) -> None:
        """Serve the components from ``server`` (its own come first in the lists)."""
        registration = server.native.registration
        mask = bool(getattr(server, "_mask", False))
        settings = getattr(server, "settings", None)
        strict = isinstance(settings, dict) and bool(settings.get("strict_input_validation"))
        for tool in self._tools.values():
            entry = registration.add_tool(
                _calling(tool, mask, strict),
                ToolOptions(
                    name=tool.name,
                    title=tool.title or default_title(tool.name),
                    description=tool.description,
                    annotations=tool.annotations,
                    icons=tool.icons,
                    meta=tool.listed_meta(),
                    input_schema={"type": "object"},
                    tags=tool.tags or None,
                ),
            )
            entry.__class__ = _ResultEntry
            entry.definition["inputSchema"] = dereferenced(dict(tool.parameters))
            if tool.output_schema is not None:
                entry.definition["outputSchema"] = dereferenced(dict(tool.output_schema))
        for resource in self._resources.values():
            registration.add_resource(
                _reading(resource, mask),
                resource.uri,
                self._listing(resource, resource.mime_type),
            )
        for template in self._templates.values():
            # A path parameter's name may not be a URI template variable name (``user-id``):
            # served under a stand-in name, listed as fastmcp lists it.
            names = dict.fromkeys(_VARIABLE.findall(template.uri_template))
            safe = {n: n if _IDENTIFIER.fullmatch(n) else f"_p{i}" for i, n in enumerate(names)}
            served = template.uri_template
            for name, stand_in in safe.items():
                served = served.replace("{" + name + "}", "{" + stand_in + "}")
            entry = registration.add_resource(
                _reading_template(template, mask, {v: k for k, v in safe.items()}),
                served,
                self._listing(template, template.mime_type),
            )
            entry.definition["uriTemplate"] = template.uri_template

    @staticmethod
    def _listing(component: OpenAPIComponent, mime_type: str) -> dict[str, Any]:
        return {
            "name": component.name,
            "title": component.title,
            "description": component.description,
            "mime_type": mime_type,
            "icons": component.icons,
            "meta": component.listed_meta(),
            "tags": component.tags or None,
        }


def _client_module() -> Any:
    """fastmcp 4.x's HTTP client library, ``httpx2``, when installed; else ``httpx``."""
    try:
        import httpx2
    except ImportError:
        import httpx

        return httpx
    return httpx2


def _calling(
    tool: OpenAPITool, mask: bool, strict: bool
) -> Callable[[dict[str, Any]], Awaitable[Any]]:
    async def call(arguments: dict[str, Any]) -> Any:
        return await tool.call(arguments, mask, strict)

    return call


def _reading(resource: OpenAPIResource, mask: bool) -> Callable[[], Awaitable[Any]]:
    async def read() -> Any:
        return await resource.read(resource.uri, mask)

    return read


def _reading_template(
    template: OpenAPIResourceTemplate, mask: bool, names: dict[str, str]
) -> Callable[..., Awaitable[Any]]:
    async def read(**served: Any) -> Any:
        if any(value == "" for value in served.values()):  # fastmcp matches none empty
            raise ResourceNotFound()
        params = {names.get(k, k): v for k, v in served.items()}
        uri = template.uri_template
        for key, value in params.items():
            uri = uri.replace("{" + key + "}", str(value))
        return await template.resource_for(uri, params).read(uri, mask)

    return read


_PROVIDER_OPTIONS = (
    "route_maps",
    "route_map_fn",
    "mcp_component_fn",
    "mcp_names",
    "tags",
    "validate_output",
)


def from_openapi(
    cls: Any, spec: dict[str, Any], client: Any, name: str, options: dict[str, Any]
) -> Any:
    """``FastMCP.from_openapi``: a server named ``name`` serving the document."""
    chosen = {k: options.pop(k) for k in _PROVIDER_OPTIONS if k in options}
    provider = OpenAPIProvider(spec, client, **chosen)
    server = cls(name=name, **options)
    provider.install(server)
    return server


def from_fastapi(cls: Any, app: Any, name: str | None, options: dict[str, Any]) -> Any:
    """``FastMCP.from_fastapi``: the app called in process (an ASGI transport, base URL
    ``http://fastapi``), the server named after the app's title unless ``name``."""
    client_module = _client_module()
    kwargs = dict(options.pop("httpx_client_kwargs", None) or {})
    kwargs.setdefault("base_url", "http://fastapi")
    client = client_module.AsyncClient(transport=client_module.ASGITransport(app=app), **kwargs)
    options.pop("validate_output", None)
    chosen = {k: options.pop(k) for k in _PROVIDER_OPTIONS if k in options}
    provider = OpenAPIProvider(app.openapi(), client, **chosen)
    server = cls(name=name or app.title, **options)
    provider.install(server)
    return server
