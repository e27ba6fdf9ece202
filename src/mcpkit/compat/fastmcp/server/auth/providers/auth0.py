"""``fastmcp.server.auth.providers.auth0`` on mcpkit: :class:`Auth0JWTVerifier` and
:class:`Auth0Provider` (fastmcp's OIDC proxy to an Auth0 tenant, served by mcpkit's OAuth
proxy) and :class:`Auth0MCPProvider` (a resource server for Auth0's tokens, Auth0 the
authorization server)."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import RemoteAuthProvider, Route, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.oidc_proxy import (
    OIDCProxy,
    check_configuration,
    oidc_configuration,
)
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

__all__ = ["Auth0JWTVerifier", "Auth0MCPProvider", "Auth0Provider"]


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


class Auth0Provider(OIDCProxy):
    """fastmcp's Auth0 login: the tenant's discovery document at ``config_url``, its API
    ``audience`` asked for and checked in access tokens (``openid`` required by
    default)."""

    def __init__(
        self,
        *,
        config_url: AnyHttpUrl | str,
        client_id: str,
        client_secret: str,
        audience: str,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        **options: Any,
    ) -> None:
        from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

        super().__init__(
            config_url=config_url,
            client_id=client_id,
            client_secret=client_secret,
            audience=audience,
            base_url=base_url,
            required_scopes=(
                parse_scopes(required_scopes) if required_scopes is not None else ["openid"]
            ),
            **options,
        )


class Auth0MCPProvider(RemoteAuthProvider):
    """Tokens of an Auth0 tenant (Auth0's "Auth for MCP": Auth0 registers the clients):
    JWTs of the tenant's keys and issuer, their audience bound to this server's resource
    URL, the tenant's authorization server metadata forwarded."""

    def __init__(
        self,
        *,
        config_url: AnyHttpUrl | str,
        base_url: AnyHttpUrl | str,
        resource_base_url: AnyHttpUrl | str | None = None,
        required_scopes: list[str] | None = None,
        scopes_supported: list[str] | None = None,
        resource_name: str | None = None,
        resource_documentation: AnyHttpUrl | None = None,
        token_verifier: TokenVerifier | None = None,
        timeout_seconds: int | None = 10,
    ) -> None:
        from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

        config = oidc_configuration(str(config_url), timeout_seconds)
        check_configuration(config)
        self.issuer = str(config["issuer"]).rstrip("/")
        scopes = parse_scopes(required_scopes) if required_scopes is not None else None
        self._auto_bind_audience = token_verifier is None
        if token_verifier is None:
            token_verifier = Auth0JWTVerifier(
                jwks_uri=str(config["jwks_uri"]),
                issuer=str(config["issuer"]),
                algorithm="RS256",
                required_scopes=scopes,
            )
        super().__init__(
            token_verifier=token_verifier,
            authorization_servers=[AnyHttpUrl(self.issuer)],
            base_url=str(base_url).rstrip("/"),
            resource_base_url=resource_base_url,
            scopes_supported=scopes_supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
            required_scopes=scopes,
        )

    def set_mcp_path(self, mcp_path: str | None) -> None:
        """Bind the default verifier's audience to the resource URL."""
        super().set_mcp_path(mcp_path)
        verifier: Any = self.token_verifier
        if self._auto_bind_audience and self._resource_url is not None:
            verifier.audience = str(self._resource_url)

    def routes(self, mcp_path: str) -> dict[str, Route]:
        """The tenant's authorization server metadata, forwarded."""
        return self.forwarded_metadata(
            [f"{self.issuer}/.well-known/oauth-authorization-server"], "Auth0"
        )
