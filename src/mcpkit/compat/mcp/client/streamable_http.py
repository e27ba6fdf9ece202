"""``mcp.client.streamable_http`` on mcpkit: ``streamablehttp_client`` (importable, not usable)."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.mcp.client._missing import not_provided

__all__ = ["streamable_http_client", "streamablehttp_client"]


def streamablehttp_client(*args: Any, **kwargs: Any) -> Any:
    """Not provided: ``mcpkit.Client(url)`` instead."""
    not_provided("streamablehttp_client")


streamable_http_client = streamablehttp_client
