"""``mcp.server.fastmcp.utilities.types`` on mcpkit: ``Image`` and ``Audio``."""

from __future__ import annotations

from mcpkit.compat.mcp.server.mcpserver.utilities.types import Audio, Image

__all__ = ["Audio", "Image"]
