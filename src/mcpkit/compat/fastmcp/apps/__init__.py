"""``fastmcp.apps`` on mcpkit: MCP Apps configuration for tools and resources
(:class:`AppConfig`, :class:`PrefabAppConfig`, :class:`ResourceCSP`,
:class:`ResourcePermissions`)."""

from __future__ import annotations

from mcpkit.compat.fastmcp.apps.app import FastMCPApp
from mcpkit.compat.fastmcp.apps.config import (
    UI_EXTENSION_ID,
    UI_MIME_TYPE,
    AppConfig,
    PrefabAppConfig,
    ResourceCSP,
    ResourcePermissions,
    app_config_to_meta_dict,
    resolve_ui_mime_type,
)

__all__ = [
    "UI_EXTENSION_ID",
    "UI_MIME_TYPE",
    "AppConfig",
    "FastMCPApp",
    "PrefabAppConfig",
    "ResourceCSP",
    "ResourcePermissions",
    "app_config_to_meta_dict",
    "resolve_ui_mime_type",
]
