"""``fastmcp.server.auth.providers.propelauth`` on mcpkit: :class:`PropelAuthProvider`, a
resource server for PropelAuth's tokens, checked at its introspection endpoint (served)."""

from __future__ import annotations

from typing import Any, TypedDict

from pydantic import AnyHttpUrl, SecretStr

from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, RemoteAuthProvider, Route
from mcpkit.compat.fastmcp.server.auth.providers.introspection import (
    IntrospectionTokenVerifier,
)

__all__ = ["PropelAuthProvider", "PropelAuthTokenIntrospectionOverrides"]


class PropelAuthTokenIntrospectionOverrides(TypedDict, total=False):
    """What may be set of the introspection verifier."""

    timeout_seconds: int
    cache_ttl_seconds: int | None
    max_cache_size: int | None
    http_client: Any


#: The overrides passed on to the verifier (others are ignored, as fastmcp).
_OVERRIDES = ("timeout_seconds", "cache_ttl_seconds", "max_cache_size", "http_client")


class PropelAuthProvider(RemoteAuthProvider):
    """Tokens PropelAuth's introspection endpoint says are active (and, when ``resource``
    is given, whose ``aud`` is it), its authorization server metadata forwarded."""

    def __init__(
        self,
        *,
        auth_url: AnyHttpUrl | str,
        introspection_client_id: str,
        introspection_client_secret: str | SecretStr,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        scopes_supported: list[str] | None = None,
        resource_name: str | None = None,
        resource_documentation: AnyHttpUrl | None = None,
        resource: AnyHttpUrl | str | None = None,
        token_introspection_overrides: PropelAuthTokenIntrospectionOverrides | None = None,
    ) -> None:
        self.auth_url = str(auth_url).rstrip("/")
        self.resource = None if resource is None else str(resource)
        given = token_introspection_overrides or {}
        overrides: dict[str, Any] = {k: given[k] for k in _OVERRIDES if k in given}  # type: ignore[literal-required]
        verifier = IntrospectionTokenVerifier(
            introspection_url=f"{self.auth_url}/oauth/2.1/introspect",
            client_id=introspection_client_id,
            client_secret=introspection_client_secret,
            required_scopes=required_scopes,
            **overrides,
        )
        super().__init__(
            token_verifier=verifier,
            authorization_servers=[AnyHttpUrl(f"{self.auth_url}/oauth/2.1")],
            base_url=base_url,
            scopes_supported=scopes_supported,
            resource_name=resource_name,
            resource_documentation=resource_documentation,
        )

    def routes(self, mcp_path: str) -> dict[str, Route]:
        """PropelAuth's authorization server metadata, forwarded."""
        where = f"{self.auth_url}/.well-known/oauth-authorization-server/oauth/2.1"
        return self.forwarded_metadata([where], "PropelAuth")

    async def verify_token(self, token: str) -> AccessToken | None:
        """The verifier's verdict, refused when its ``aud`` is not ``resource`` (if set)."""
        found = await self.token_verifier.verify_token(token)
        if found is None or self.resource is None:
            return found
        return found if found.claims.get("aud") == self.resource else None
