"""fastmcp's core server API on mcpkit: ``from fastmcp import FastMCP, Context`` becomes
``from mcpkit.compat.fastmcp import FastMCP, Context``.

See docs/migration.md for what is covered and how to move on to the native API.
"""

from __future__ import annotations

from mcpkit.compat.fastmcp._server import FastMCP
from mcpkit.compat.fastmcp.apps.app import FastMCPApp
from mcpkit.compat.fastmcp.client import Client
from mcpkit.compat.fastmcp.context import Context
from mcpkit.compat.fastmcp.exceptions import ToolError
from mcpkit.compat.fastmcp.settings import Settings, settings
from mcpkit.compat.mcp.server.mcpserver.utilities.types import Audio, Image

__all__ = [
    "Audio",
    "Client",
    "Context",
    "FastMCP",
    "FastMCPApp",
    "Image",
    "Settings",
    "ToolError",
    "settings",
]
