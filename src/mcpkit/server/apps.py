"""Moved to :mod:`mcpkit.server.mcp_apps` (MCP Apps on the server); this path still
imports for code written against it."""

from mcpkit.server.mcp_apps import (
    EXTENSION_ID,
    MIME_TYPE,
    AppsServer,
    advertise,
    check_links,
    client_supports_apps,
    install_visibility,
    register_ui,
    tool_meta,
)

__all__ = [
    "EXTENSION_ID",
    "MIME_TYPE",
    "AppsServer",
    "advertise",
    "check_links",
    "client_supports_apps",
    "install_visibility",
    "register_ui",
    "tool_meta",
]
