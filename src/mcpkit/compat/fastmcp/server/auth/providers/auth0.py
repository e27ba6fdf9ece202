"""``fastmcp.server.auth.providers.auth0`` on mcpkit: :class:`Auth0JWTVerifier` and
:class:`Auth0Provider` (fastmcp's OIDC proxy to an Auth0 tenant, served by mcpkit's OAuth
proxy); ``Auth0MCPProvider`` imports, and constructing it raises NotImplementedError naming
mcpkit's own."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported
from mcpkit.compat.fastmcp.server.auth.oidc_proxy import OIDCProxy
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

__all__ = ["Auth0JWTVerifier", "Auth0MCPProvider", "Auth0Provider"]

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
