"""Moved to :mod:`mcpkit.server.mcp_apps` (MCP Apps on the server); this path still
imports for code written against it, with every name that module exports."""

from mcpkit.server import mcp_apps as _moved
from mcpkit.server.mcp_apps import *  # noqa: F403

__all__ = list(_moved.__all__)
