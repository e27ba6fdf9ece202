"""``fastmcp.server.auth.providers.descope`` on mcpkit: fastmcp's Descope classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["DescopeProvider"]

DescopeProvider = unsupported(
    "DescopeProvider", __name__, "mcpkit.auth.ResourceServer with mcpkit.auth.JWTVerifier"
)
