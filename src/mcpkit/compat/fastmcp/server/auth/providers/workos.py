"""``fastmcp.server.auth.providers.workos`` on mcpkit: :class:`AuthKitProvider` (a resource
server for WorkOS AuthKit's tokens), :class:`WorkOSProvider` (fastmcp's OAuth proxy to
AuthKit, served by mcpkit's) and :class:`WorkOSTokenVerifier` (a token checked at the
AuthKit domain's ``/oauth2/userinfo``)."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth._upstream import bearer_get
from mcpkit.compat.fastmcp.server.auth.auth import (
    AccessToken,
    RemoteAuthProvider,
    Route,
    TokenVerifier,
)
from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["AuthKitProvider", "WorkOSProvider", "WorkOSTokenVerifier"]


class WorkOSTokenVerifier(TokenVerifier):
    """Accepts the tokens an AuthKit domain's ``/oauth2/userinfo`` accepts, with
    ``required_scopes``; the user's ``sub`` as subject and client, the profile as claims."""

    def __init__(
        self,
        *,
        authkit_domain: str,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        http_client: Any = None,
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.authkit_domain = authkit_domain.rstrip("/")
        self.timeout_seconds = timeout_seconds

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a token AuthKit accepts, None otherwise."""
        import httpx

        try:
            async with httpx.AsyncClient(timeout=self.timeout_seconds) as client:
                response = await bearer_get(
                    client, self.authkit_domain + "/oauth2/userinfo", token, "FastMCP-WorkOS-OAuth"
                )
            if response.status_code != 200:
                return None
            user = response.json()
        except Exception:
            return None
        scopes = parse_scopes(user.get("scope") or user.get("scopes")) or []
        if self.required_scopes and not all(s in scopes for s in self.required_scopes):
            return None
        return AccessToken(
            token=token,
            client_id=str(user.get("sub", "unknown")),
            scopes=scopes,
            expires_at=None,
            subject=user.get("sub"),
            claims={
                key: user.get(key)
                for key in ("sub", "email", "email_verified", "name", "given_name", "family_name")
            },
        )


class WorkOSProvider(OAuthProxy):
    """fastmcp's WorkOS AuthKit login (``authkit_domain``'s ``/oauth2/authorize`` and
    ``/oauth2/token``), on mcpkit's OAuth proxy."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        authkit_domain: str,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        valid_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        http_client: Any = None,
        **options: Any,
    ) -> None:
        domain = authkit_domain
        if not domain.startswith(("http://", "https://")):
            domain = "https://" + domain
        domain = domain.rstrip("/")
        verifier = WorkOSTokenVerifier(
            authkit_domain=domain, timeout_seconds=timeout_seconds, http_client=http_client
        )
        super().__init__(
            upstream_authorization_endpoint=domain + "/oauth2/authorize",
            upstream_token_endpoint=domain + "/oauth2/token",
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=base_url,
            valid_scopes=parse_scopes(valid_scopes) if valid_scopes is not None else None,
            **options,
        )


class AuthKitProvider(RemoteAuthProvider):
    """Tokens issued by an AuthKit domain (JWTs checked against its JWKS, their audience
    bound to this server's resource URL), its metadata forwarded at
    ``/.well-known/oauth-authorization-server``."""

    def __init__(
        self,
        *,
        authkit_domain: AnyHttpUrl | str,
        base_url: AnyHttpUrl | str,
        resource_base_url: AnyHttpUrl | str | None = None,
        required_scopes: list[str] | None = None,
        scopes_supported: list[str] | None = None,
        resource_name: str | None = None,
        resource_documentation: AnyHttpUrl | None = None,
        token_verifier: TokenVerifier | None = None,
    ) -> None:
        self.authkit_domain = str(authkit_domain).rstrip("/")
        scopes = parse_scopes(required_scopes) if required_scopes is not None else None
        self._auto_bind_audience = token_verifier is None
        if token_verifier is None:
            token_verifier = JWTVerifier(
                jwks_uri=f"{self.authkit_domain}/oauth2/jwks",
                issuer=self.authkit_domain,
                algorithm="RS256",
                required_scopes=scopes,
            )
        super().__init__(
            token_verifier=token_verifier,
            authorization_servers=[self.authkit_domain],
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
        """AuthKit's authorization server metadata, forwarded."""
        return self.forwarded_metadata(
            [f"{self.authkit_domain}/.well-known/oauth-authorization-server"], "AuthKit"
        )
