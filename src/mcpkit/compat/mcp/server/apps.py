"""``mcp.server.apps`` on mcpkit: 2.x's MCP Apps helpers. :class:`Apps` is an extension
(``MCPServer(extensions=[apps])``) binding tools to ``ui://`` HTML resources: a tool gets
``_meta.ui.resourceUri`` (and ``visibility``), its resource is served as
``text/html;profile=mcp-app`` with ``_meta.ui`` (CSP, permissions, domain, border).
:func:`client_supports_apps` tells whether the client declared the extension with that MIME
type. (mcpkit's own MCP Apps support: ``docs/apps.md``.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from mcpkit.compat.mcp.server.extension import Extension, ResourceBinding, ToolBinding
from mcpkit.compat.mcp.server.mcpserver.resources import Resource, TextResource

__all__ = [
    "APP_MIME_TYPE",
    "EXTENSION_ID",
    "Apps",
    "ResourceCsp",
    "ResourcePermissions",
    "Visibility",
    "client_supports_apps",
]

EXTENSION_ID = "io.modelcontextprotocol/ui"
APP_MIME_TYPE = "text/html;profile=mcp-app"
Visibility = Literal["model", "app"]
F = TypeVar("F", bound=Callable[..., Any])


class ResourcePermissions(BaseModel):
    """The iframe permissions a ``ui://`` resource asks for (``_meta.ui.permissions``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    camera: dict[str, Any] | None = None
    microphone: dict[str, Any] | None = None
    geolocation: dict[str, Any] | None = None
    clipboard_write: dict[str, Any] | None = None


class ResourceCsp(BaseModel):
    """The Content-Security-Policy domains of a ``ui://`` resource (``_meta.ui.csp``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    connect_domains: list[str] | None = None
    resource_domains: list[str] | None = None
    frame_domains: list[str] | None = None
    base_uri_domains: list[str] | None = None


def _ui_uri(uri: str) -> None:
    if not uri.startswith("ui://"):
        raise ValueError(f"MCP Apps URIs must use the ui:// scheme, got {uri!r}")


class Apps(Extension):
    """The MCP Apps extension: ``@apps.tool(resource_uri=...)`` and
    ``add_html_resource(...)``, then ``MCPServer(extensions=[apps])``."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self._tools: list[tuple[ToolBinding, str]] = []
        self._resources: list[ResourceBinding] = []

    def tool(
        self,
        *,
        resource_uri: str,
        visibility: Sequence[Visibility] | None = None,
        meta: dict[str, Any] | None = None,
        **tool_kwargs: Any,
    ) -> Callable[[F], F]:
        """Register a tool bound to the ``ui://`` resource ``resource_uri``
        (``tool_kwargs`` as ``MCPServer.add_tool`` takes them)."""
        _ui_uri(resource_uri)
        if meta and "ui" in meta:
            raise ValueError(
                "Apps.tool() owns _meta['ui']; pass resource_uri=/visibility= instead of a "
                "'ui' meta key"
            )
        ui: dict[str, Any] = {"resourceUri": resource_uri}
        if visibility is not None:
            ui["visibility"] = list(visibility)

        def decorator(fn: F) -> F:
            binding = ToolBinding(fn=fn, meta={**(meta or {}), "ui": ui}, kwargs=tool_kwargs)
            self._tools.append((binding, resource_uri))
            return fn

        return decorator

    def add_html_resource(
        self,
        uri: str,
        html: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        csp: ResourceCsp | None = None,
        permissions: ResourcePermissions | None = None,
        domain: str | None = None,
        prefers_border: bool | None = None,
    ) -> None:
        """Serve ``html`` at the ``ui://`` URI ``uri`` as an app resource."""
        ui: dict[str, Any] = {}
        if csp is not None:
            ui["csp"] = csp.model_dump(by_alias=True, exclude_none=True)
        if permissions is not None:
            ui["permissions"] = permissions.model_dump(by_alias=True, exclude_none=True)
        if domain is not None:
            ui["domain"] = domain
        if prefers_border is not None:
            ui["prefersBorder"] = prefers_border
        self.add_resource(
            TextResource(
                uri=uri,
                name=name or uri,
                title=title,
                description=description,
                mime_type=APP_MIME_TYPE,
                meta={"ui": ui} if ui else None,
                text=html,
            )
        )

    def add_resource(self, resource: Resource) -> None:
        """Serve a resource object at a ``ui://`` URI (its MIME type the app one)."""
        _ui_uri(resource.uri)
        if "mime_type" not in resource.model_fields_set:
            resource = resource.model_copy(update={"mime_type": APP_MIME_TYPE})
        elif resource.mime_type != APP_MIME_TYPE:
            raise ValueError(
                f"MCP Apps resources are served as {APP_MIME_TYPE!r}, got {resource.mime_type!r}"
            )
        self._resources.append(ResourceBinding(resource=resource))

    def tools(self) -> Sequence[ToolBinding]:
        """The bound tools (``ValueError`` for one bound to a resource not added)."""
        registered = {binding.resource.uri for binding in self._resources}
        for tool, uri in self._tools:
            if uri not in registered:
                raise ValueError(
                    f"Apps tool {tool.fn.__name__!r} binds resource_uri {uri!r}, but no such "
                    "resource is registered; add it with add_html_resource() or add_resource()"
                )
        return [tool for tool, _ in self._tools]

    def resources(self) -> Sequence[ResourceBinding]:
        """The app resources."""
        return self._resources


def client_supports_apps(ctx: Any) -> bool:
    """True when the client declared the MCP Apps extension with the app MIME type
    (``ctx``: a tool's ``Context`` or a ``ServerRequestContext``)."""
    session = getattr(ctx, "session", None)
    capabilities = getattr(ctx, "client_capabilities", None)
    if capabilities is None and session is not None:
        capabilities = session.client_capabilities
    extensions = getattr(capabilities, "extensions", None) if capabilities else None
    settings = extensions.get(EXTENSION_ID) if isinstance(extensions, dict) else None
    if not isinstance(settings, dict):
        return False
    mime_types = settings.get("mimeTypes")
    return isinstance(mime_types, list | tuple) and APP_MIME_TYPE in mime_types
