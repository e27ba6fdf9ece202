"""``fastmcp.server.auth.providers.keycloak`` on mcpkit: fastmcp's Keycloak classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["KeycloakAuthProvider"]

KeycloakAuthProvider = unsupported("KeycloakAuthProvider", __name__, "mcpkit.auth.KeycloakProvider")
