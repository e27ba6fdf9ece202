"""``fastmcp.server.auth.providers.auth0`` on mcpkit: :class:`Auth0JWTVerifier` (served);
``Auth0Provider`` and ``Auth0MCPProvider`` import, and constructing one raises
NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

__all__ = ["Auth0JWTVerifier", "Auth0MCPProvider", "Auth0Provider"]

Auth0Provider = unsupported("Auth0Provider", __name__, "mcpkit.auth.Auth0Provider")
Auth0MCPProvider = unsupported(
    "Auth0MCPProvider", __name__, "mcpkit.auth.ResourceServer with mcpkit.auth.JWTVerifier"
)


class Auth0JWTVerifier(JWTVerifier):
    """A :class:`JWTVerifier` reading Auth0's ``permissions`` claim as scopes too."""

    def _extract_scopes(self, claims: dict[str, Any]) -> list[str]:
        scopes = super()._extract_scopes(claims)
        permissions = claims.get("permissions")
        if isinstance(permissions, str):
            return scopes + permissions.split()
        if isinstance(permissions, list):
            return scopes + [str(p) for p in permissions]
        return scopes
