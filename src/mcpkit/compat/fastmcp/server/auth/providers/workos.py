"""``fastmcp.server.auth.providers.workos`` on mcpkit: fastmcp's WorkOS classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["AuthKitProvider", "WorkOSProvider", "WorkOSTokenVerifier"]

WorkOSProvider = unsupported("WorkOSProvider", __name__, "mcpkit.auth.WorkOSProvider")
AuthKitProvider = unsupported(
    "AuthKitProvider", __name__, "mcpkit.auth.ResourceServer with mcpkit.auth.JWTVerifier"
)
WorkOSTokenVerifier = unsupported("WorkOSTokenVerifier", __name__, "mcpkit.auth.WorkOSProvider")
