"""``mcp.server.fastmcp`` on mcpkit: the official SDK's 1.x high-level ``FastMCP`` (the
same server as 2.x's ``MCPServer``, with 1.x's constructor, settings and error texts)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit.compat.mcp.server.fastmcp.server import Context, FastMCP
from mcpkit.compat.mcp.server.mcpserver.utilities.types import Audio, Image

if TYPE_CHECKING:
    from mcpkit.types import Icon as Icon

__all__ = ["Audio", "Context", "FastMCP", "Icon", "Image"]


def __getattr__(name: str) -> Any:
    if name == "Icon":
        from mcpkit.types import Icon

        return Icon
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
