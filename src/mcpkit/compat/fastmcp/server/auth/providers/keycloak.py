"""``fastmcp.server.auth.providers.keycloak`` on mcpkit: :class:`KeycloakAuthProvider`, a
resource server for a Keycloak realm's tokens (served)."""

from __future__ import annotations

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import RemoteAuthProvider, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["KeycloakAuthProvider"]


class KeycloakAuthProvider(RemoteAuthProvider):
    """Tokens of a Keycloak realm (JWTs checked against the realm's certificates, issuer
    the realm, ``openid`` required unless other scopes are given); the realm is the
    authorization server the metadata names."""

    def __init__(
        self,
        *,
        realm_url: AnyHttpUrl | str,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | str | None = None,
        audience: str | list[str] | None = None,
        token_verifier: TokenVerifier | None = None,
    ) -> None:
        self.realm_url = str(realm_url).rstrip("/")
        scopes = parse_scopes(required_scopes) if required_scopes is not None else ["openid"]
        if token_verifier is None:
            token_verifier = JWTVerifier(
                jwks_uri=f"{self.realm_url}/protocol/openid-connect/certs",
                issuer=self.realm_url,
                algorithm="RS256",
                required_scopes=scopes,
                audience=audience,
            )
        super().__init__(
            token_verifier=token_verifier,
            authorization_servers=[AnyHttpUrl(self.realm_url)],
            base_url=str(base_url).rstrip("/"),
            required_scopes=parse_scopes(required_scopes) if required_scopes is not None else None,
        )
