"""The official SDK's ``mcp`` package on mcpkit, for what a high-level server uses.

Rewrite ``mcp.`` to ``mcpkit.compat.mcp.`` in a server's imports and it runs on mcpkit::

    from mcpkit.compat.mcp.server.mcpserver import Context, MCPServer
    from mcpkit.compat.mcp.types import CallToolResult, TextContent

See docs/migration.md for what is covered and how to move on to the native API.
``types`` is imported when first used (the protocol models cost a server that does not
use them start-up time).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcpkit.compat.mcp.shared.exceptions import MCPError, McpError, UrlElicitationRequiredError

if TYPE_CHECKING:
    from mcpkit.compat.mcp import types as types

__all__ = [
    "Client",
    "ClientSession",
    "ClientSessionGroup",
    "MCPError",
    "McpError",
    "StdioServerParameters",
    "UrlElicitationRequiredError",
    "stdio_client",
    "types",
]

_CLIENT_NAMES = ("Client", "ClientSession", "StdioServerParameters", "stdio_client")


def __getattr__(name: str) -> Any:
    if name == "types":
        return importlib.import_module("mcpkit.compat.mcp.types")
    if name == "ClientSessionGroup":
        return importlib.import_module("mcpkit.compat.mcp.client.session_group").ClientSessionGroup
    if name in _CLIENT_NAMES:
        return getattr(importlib.import_module("mcpkit.compat.mcp.client"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
