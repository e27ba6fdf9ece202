"""``fastmcp.server.auth.providers.workos`` on mcpkit: :class:`AuthKitProvider` (a resource
server for WorkOS AuthKit's tokens, served); ``WorkOSProvider`` and ``WorkOSTokenVerifier``
import, and constructing one raises NotImplementedError naming
:class:`mcpkit.auth.WorkOSProvider`."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported
from mcpkit.compat.fastmcp.server.auth.auth import RemoteAuthProvider, Route, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["AuthKitProvider", "WorkOSProvider", "WorkOSTokenVerifier"]

WorkOSProvider = unsupported("WorkOSProvider", __name__, "mcpkit.auth.WorkOSProvider")
WorkOSTokenVerifier = unsupported("WorkOSTokenVerifier", __name__, "mcpkit.auth.WorkOSProvider")


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
