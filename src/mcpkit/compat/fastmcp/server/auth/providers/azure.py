"""``fastmcp.server.auth.providers.azure`` on mcpkit: :class:`AzureJWTVerifier` (served);
``AzureProvider`` imports, and constructing it raises NotImplementedError naming
:class:`mcpkit.auth.EntraIDProvider`."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

__all__ = ["OIDC_SCOPES", "AzureJWTVerifier", "AzureProvider"]

AzureProvider = unsupported("AzureProvider", __name__, "mcpkit.auth.EntraIDProvider")

#: Scopes asked for as they are (not under the application's URI).
OIDC_SCOPES = frozenset({"openid", "profile", "email", "offline_access"})


class AzureJWTVerifier(JWTVerifier):
    """Microsoft Entra ID access tokens of one application: the tenant's keys and issuer
    (no issuer check for a multi-tenant app), the audience the client ID or its URI, the
    scopes checked in short form and advertised under the application's URI."""

    def __init__(
        self,
        *,
        client_id: str,
        tenant_id: str,
        required_scopes: list[str] | None = None,
        identifier_uri: str | None = None,
        base_authority: str = "login.microsoftonline.com",
    ) -> None:
        self._identifier_uri = identifier_uri or f"api://{client_id}"
        multi_tenant = tenant_id in ("organizations", "consumers", "common")
        super().__init__(
            jwks_uri=f"https://{base_authority}/{tenant_id}/discovery/v2.0/keys",
            issuer=None if multi_tenant else f"https://{base_authority}/{tenant_id}/v2.0",
            audience=[client_id, self._identifier_uri],
            algorithm="RS256",
            required_scopes=required_scopes,
        )

    @property
    def scopes_supported(self) -> list[str]:
        """The scopes as clients ask Entra ID for them (under the application's URI)."""
        return self.get_challenge_scopes()

    def get_challenge_scopes(self, required_scopes: list[str] | None = None) -> list[str]:
        """The scopes under the application's URI (OIDC scopes and full URIs as they are)."""
        scopes = self.required_scopes if required_scopes is None else required_scopes
        return [
            s if s in OIDC_SCOPES or "://" in s or "/" in s else f"{self._identifier_uri}/{s}"
            for s in scopes
        ]
