"""``fastmcp.server.auth.providers.propelauth`` on mcpkit: fastmcp's PropelAuth classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["PropelAuthProvider"]

PropelAuthProvider = unsupported(
    "PropelAuthProvider", __name__, "mcpkit.auth.ResourceServer with mcpkit.auth.JWTVerifier"
)
