"""``fastmcp.server.auth.providers.scalekit`` on mcpkit: :class:`ScalekitProvider`, a
resource server for a Scalekit environment's tokens (served)."""

from __future__ import annotations

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import RemoteAuthProvider, Route, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["ScalekitProvider"]


class ScalekitProvider(RemoteAuthProvider):
    """Tokens of a Scalekit environment for one resource (JWTs of the environment's keys,
    issued by the environment or the resource, audience the resource ID), its authorization
    server metadata forwarded."""

    def __init__(
        self,
        *,
        environment_url: AnyHttpUrl | str,
        resource_id: str,
        base_url: AnyHttpUrl | str | None = None,
        mcp_url: AnyHttpUrl | str | None = None,
        client_id: str | None = None,
        required_scopes: list[str] | None = None,
        scopes_supported: list[str] | None = None,
        resource_name: str | None = None,
        resource_documentation: AnyHttpUrl | None = None,
        token_verifier: TokenVerifier | None = None,
    ) -> None:
        resolved = base_url or mcp_url
        if not resolved:
            raise ValueError("Either base_url or mcp_url must be provided")
        self.environment_url = str(environment_url).rstrip("/")
        self.resource_id = resource_id
        scopes = parse_scopes(required_scopes) if required_scopes is not None else []
        if token_verifier is None:
            token_verifier = JWTVerifier(
                jwks_uri=f"{self.environment_url}/keys",
                issuer=[self.environment_url, f"{self.environment_url}/resources/{resource_id}"],
                algorithm="RS256",
                audience=resource_id,
                required_scopes=scopes or None,
            )
        super().__init__(
            token_verifier=token_verifier,
            authorization_servers=[AnyHttpUrl(f"{self.environment_url}/resources/{resource_id}")],
            base_url=str(resolved),
            scopes_supported=scopes_supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
            required_scopes=scopes if required_scopes is not None else None,
        )

    def routes(self, mcp_path: str) -> dict[str, Route]:
        """Scalekit's authorization server metadata for the resource, forwarded."""
        where = (
            f"{self.environment_url}/.well-known/oauth-authorization-server/resources/"
            f"{self.resource_id}"
        )
        return self.forwarded_metadata([where], "Scalekit")
