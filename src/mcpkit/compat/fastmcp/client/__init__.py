"""``fastmcp.client`` on mcpkit: ``Client`` is importable, so a server file that names it
(to try itself in its ``__main__`` block, say) loads; using it raises NotImplementedError
pointing at :class:`mcpkit.Client`."""

from __future__ import annotations

from typing import Any

__all__ = ["Client"]


class Client:
    """fastmcp's client: use :class:`mcpkit.Client` instead."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "fastmcp.Client is not provided by mcpkit's compat layer: connect with "
            "`async with mcpkit.Client(target) as client:` (a command line, a URL or a "
            "server object: `mcp.native` of a FastMCP)"
        )
