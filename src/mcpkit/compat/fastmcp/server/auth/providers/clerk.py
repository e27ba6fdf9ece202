"""``fastmcp.server.auth.providers.clerk`` on mcpkit: fastmcp's Clerk classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["ClerkProvider", "ClerkTokenVerifier"]

ClerkProvider = unsupported("ClerkProvider", __name__, "mcpkit.auth.OIDCProvider")
ClerkTokenVerifier = unsupported(
    "ClerkTokenVerifier", __name__, "mcpkit.auth.ResourceServer with a verifier of your own"
)
