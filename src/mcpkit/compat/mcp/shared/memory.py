"""``mcp.shared.memory`` on mcpkit: the official SDK's in-memory test connection is not
provided (a module importing it for a self-test still loads); use ``mcpkit.Client(server)``
with :attr:`native` to talk to a server in memory."""

from __future__ import annotations

from typing import Any

__all__ = ["create_connected_server_and_client_session"]


def create_connected_server_and_client_session(*args: Any, **kwargs: Any) -> Any:
    """Not provided: connect ``mcpkit.Client(server.native)`` instead."""
    raise NotImplementedError(
        "mcp.shared.memory is not provided by mcpkit's compat layer: use "
        "`async with mcpkit.Client(server.native) as client:`"
    )
