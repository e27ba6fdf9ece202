"""``mcp.client.sse`` on mcpkit: ``sse_client`` (importable, not usable)."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.mcp.client._missing import not_provided

__all__ = ["sse_client"]


def sse_client(*args: Any, **kwargs: Any) -> Any:
    """Not provided: ``mcpkit.Client(url)`` instead."""
    not_provided("sse_client")
