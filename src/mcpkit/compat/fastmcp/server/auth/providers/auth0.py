"""``fastmcp.server.auth.providers.auth0`` on mcpkit: fastmcp's Auth0 classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["Auth0JWTVerifier", "Auth0MCPProvider", "Auth0Provider"]

Auth0Provider = unsupported("Auth0Provider", __name__, "mcpkit.auth.Auth0Provider")
Auth0JWTVerifier = unsupported("Auth0JWTVerifier", __name__, "mcpkit.auth.JWTVerifier")
Auth0MCPProvider = unsupported(
    "Auth0MCPProvider", __name__, "mcpkit.auth.ResourceServer with mcpkit.auth.JWTVerifier"
)
