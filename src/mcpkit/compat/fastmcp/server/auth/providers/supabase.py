"""``fastmcp.server.auth.providers.supabase`` on mcpkit: :class:`SupabaseProvider`, a
resource server for a Supabase project's tokens (served)."""

from __future__ import annotations

from typing import Literal

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import RemoteAuthProvider, Route, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["SupabaseProvider"]


class SupabaseProvider(RemoteAuthProvider):
    """Tokens of Supabase Auth (JWTs of the project's JWKS, audience ``authenticated``),
    its authorization server metadata forwarded."""

    def __init__(
        self,
        *,
        project_url: AnyHttpUrl | str,
        base_url: AnyHttpUrl | str,
        auth_route: str = "/auth/v1",
        algorithm: Literal["RS256", "ES256"] = "ES256",
        required_scopes: list[str] | None = None,
        scopes_supported: list[str] | None = None,
        resource_name: str | None = None,
        resource_documentation: AnyHttpUrl | None = None,
        token_verifier: TokenVerifier | None = None,
    ) -> None:
        self.project_url = str(project_url).rstrip("/")
        self.auth_route = auth_route.strip("/")
        issuer = f"{self.project_url}/{self.auth_route}"
        scopes = parse_scopes(required_scopes) if required_scopes is not None else None
        if token_verifier is None:
            token_verifier = JWTVerifier(
                jwks_uri=f"{issuer}/.well-known/jwks.json",
                issuer=issuer,
                algorithm=algorithm,
                audience="authenticated",
                required_scopes=scopes,
            )
        super().__init__(
            token_verifier=token_verifier,
            authorization_servers=[AnyHttpUrl(issuer)],
            base_url=str(base_url).rstrip("/"),
            scopes_supported=scopes_supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
            required_scopes=scopes,
        )

    def routes(self, mcp_path: str) -> dict[str, Route]:
        """Supabase's authorization server metadata, forwarded."""
        issuer = f"{self.project_url}/{self.auth_route}"
        return self.forwarded_metadata(
            [f"{issuer}/.well-known/oauth-authorization-server"], "Supabase"
        )
