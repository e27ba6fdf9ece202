"""``mcp.client.session`` on mcpkit: ``ClientSession`` (importable, not usable)."""

from __future__ import annotations

from mcpkit.compat.mcp.client._missing import Missing

__all__ = ["ClientSession"]


class ClientSession(Missing):
    """The official client's session: use :class:`mcpkit.Client` instead."""
