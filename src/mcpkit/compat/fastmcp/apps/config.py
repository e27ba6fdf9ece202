"""fastmcp's MCP Apps configuration: :class:`AppConfig` (a tool's or resource's
``_meta.ui``), :class:`ResourceCSP`, :class:`ResourcePermissions` and
:class:`PrefabAppConfig` (``app=True`` with options), written to the wire as fastmcp
writes them (camelCase, unset fields left out)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "PREFAB_PLACEHOLDER_URI",
    "UI_EXTENSION_ID",
    "UI_MIME_TYPE",
    "AppConfig",
    "PrefabAppConfig",
    "ResourceCSP",
    "ResourcePermissions",
    "app_config_to_meta_dict",
    "merge_domains",
    "resolve_ui_mime_type",
    "resource_ui_meta",
]

#: The MCP Apps extension's identifier.
UI_EXTENSION_ID = "io.modelcontextprotocol/ui"
#: The MIME type of an MCP App's HTML resource.
UI_MIME_TYPE = "text/html;profile=mcp-app"
#: The URI a Prefab tool names before its renderer resource is known.
PREFAB_PLACEHOLDER_URI = "ui://prefab/renderer.html"

_OPEN = ConfigDict(populate_by_name=True, extra="allow")


def _alias(name: str, description: str) -> Any:
    return Field(
        default=None, validation_alias=name, serialization_alias=name, description=description
    )


class ResourceCSP(BaseModel):
    """The origins an app's iframe may reach (its Content Security Policy)."""

    model_config = _OPEN

    connect_domains: list[str] | None = _alias("connectDomains", "connect-src origins")
    resource_domains: list[str] | None = _alias("resourceDomains", "script/img/style origins")
    frame_domains: list[str] | None = _alias("frameDomains", "frame-src origins")
    base_uri_domains: list[str] | None = _alias("baseUriDomains", "base-uri origins")


class ResourcePermissions(BaseModel):
    """The browser features an app's iframe asks for (each set to ``{}``)."""

    model_config = _OPEN

    camera: dict[str, Any] | None = None
    microphone: dict[str, Any] | None = None
    geolocation: dict[str, Any] | None = None
    clipboard_write: dict[str, Any] | None = _alias("clipboardWrite", "clipboard-write")


class AppConfig(BaseModel):
    """How a tool or resource takes part in MCP Apps (``_meta.ui``). On a tool:
    ``resource_uri`` (the UI to render) and ``visibility`` (``"app"``, ``"model"``)."""

    model_config = _OPEN

    resource_uri: str | None = _alias("resourceUri", "the UI resource (tools only)")
    visibility: list[Literal["app", "model"]] | None = None
    csp: ResourceCSP | None = None
    permissions: ResourcePermissions | None = None
    domain: str | None = None
    prefers_border: bool | None = _alias("prefersBorder", "a visible border")


def merge_domains(base: list[str] | None, extra: list[str] | None) -> list[str] | None:
    """``base`` then the origins of ``extra`` it lacks (None when both are empty)."""
    if base is None and extra is None:
        return None
    out = list(base or [])
    out.extend(d for d in extra or [] if d not in out)
    return out or None


class PrefabAppConfig(AppConfig):
    """``app=True`` with options: the Prefab renderer, its CSP merged with ``csp``."""

    def model_post_init(self, context: Any, /) -> None:
        """Name the renderer and merge its CSP with the given one."""
        if self.resource_uri is None:
            self.resource_uri = PREFAB_PLACEHOLDER_URI
        try:
            from prefab_ui.renderer import get_renderer_csp
        except ImportError:  # pragma: no cover - prefab-ui is what this config is for
            return
        renderer: dict[str, Any] = get_renderer_csp() or {}
        if not renderer:
            return
        given = self.csp or ResourceCSP()
        data = given.model_dump(exclude_none=True)
        data["connect_domains"] = merge_domains(
            renderer.get("connect_domains"), given.connect_domains
        )
        data["resource_domains"] = merge_domains(
            renderer.get("resource_domains"), given.resource_domains
        )
        self.csp = ResourceCSP(**data)


def app_config_to_meta_dict(app: AppConfig | dict[str, Any]) -> dict[str, Any]:
    """The ``_meta.ui`` dict of ``app`` (a dict is taken as written)."""
    if isinstance(app, AppConfig):
        return app.model_dump(by_alias=True, exclude_none=True)
    return app


def resolve_ui_mime_type(uri: str, mime_type: str | None) -> str | None:
    """The MIME type of a resource at ``uri``: the MCP App type for a ``ui://`` URI
    named without one, else ``mime_type``."""
    if mime_type is None and uri.lower().startswith("ui://"):
        return UI_MIME_TYPE
    return mime_type


def resource_ui_meta(app: Any, meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """A resource's ``meta`` with ``app`` (its ``AppConfig``) as ``ui``; a resource is the
    UI itself, so ``resource_uri`` and ``visibility`` are refused (ValueError)."""
    if app is None or app is False:
        return meta
    if isinstance(app, AppConfig):
        if app.resource_uri is not None:
            raise ValueError(
                "resource_uri cannot be set on resources — the resource itself is the UI. "
                "Use resource_uri on tools to point to a UI resource."
            )
        if app.visibility is not None:
            raise ValueError("visibility cannot be set on resources — it only applies to tools.")
    return {**(meta or {}), "ui": True if app is True else app_config_to_meta_dict(app)}
