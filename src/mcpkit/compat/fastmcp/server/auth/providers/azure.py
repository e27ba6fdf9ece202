"""``fastmcp.server.auth.providers.azure`` on mcpkit:
fastmcp's Azure (Microsoft Entra ID) classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["AzureJWTVerifier", "AzureProvider"]

AzureProvider = unsupported("AzureProvider", __name__, "mcpkit.auth.EntraIDProvider")
AzureJWTVerifier = unsupported("AzureJWTVerifier", __name__, "mcpkit.auth.JWTVerifier")
