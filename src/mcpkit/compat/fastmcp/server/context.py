"""``fastmcp.server.context`` on mcpkit: the :class:`Context`."""

from __future__ import annotations

from mcpkit.compat.fastmcp.context import Context

__all__ = ["Context"]
