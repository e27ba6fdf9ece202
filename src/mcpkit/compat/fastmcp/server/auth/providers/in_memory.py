"""``fastmcp.server.auth.providers.in_memory`` on mcpkit:
fastmcp's in-memory authorization server classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["InMemoryOAuthProvider"]

InMemoryOAuthProvider = unsupported(
    "InMemoryOAuthProvider", __name__, "mcpkit.auth.AuthorizationServer"
)
