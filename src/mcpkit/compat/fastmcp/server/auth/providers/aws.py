"""``fastmcp.server.auth.providers.aws`` on mcpkit: :class:`AWSCognitoTokenVerifier` and
:class:`AWSCognitoProvider` (fastmcp's OIDC proxy to a Cognito user pool, served by
mcpkit's OAuth proxy)."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.oidc_proxy import OIDCProxy
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

__all__ = ["AWSCognitoProvider", "AWSCognitoTokenVerifier"]


class AWSCognitoTokenVerifier(JWTVerifier):
    """Cognito access tokens: the ``audience`` is checked against their ``client_id``
    claim (they carry no ``aud``), and the claims kept are ``sub``, ``username`` and
    ``cognito:groups``, as fastmcp keeps them."""

    def __init__(self, *, audience: str | list[str] | None = None, **kwargs: Any) -> None:
        self._expected_client_id = audience
        super().__init__(audience=None, **kwargs)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a valid Cognito token, None otherwise."""
        found = await super().verify_token(token)
        if found is None:
            return None
        expected = self._expected_client_id
        if expected:
            client_id = found.claims.get("client_id")
            if not (client_id in expected if isinstance(expected, list) else client_id == expected):
                return None
        return AccessToken(
            token=found.token,
            client_id=found.client_id,
            scopes=found.scopes,
            expires_at=found.expires_at,
            subject=found.subject,
            claims={
                "sub": found.claims.get("sub"),
                "username": found.claims.get("username"),
                "cognito:groups": found.claims.get("cognito:groups", []),
            },
        )


class AWSCognitoProvider(OIDCProxy):
    """fastmcp's Cognito login: the user pool ``user_pool_id`` of ``aws_region``, its
    discovery document read when constructed, its access tokens checked by
    :class:`AWSCognitoTokenVerifier` (``openid`` required by default)."""

    def __init__(
        self,
        *,
        user_pool_id: str,
        client_id: str,
        client_secret: str,
        base_url: AnyHttpUrl | str,
        aws_region: str = "eu-central-1",
        redirect_path: str = "/auth/callback",
        required_scopes: list[str] | None = None,
        **options: Any,
    ) -> None:
        from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

        self.user_pool_id = user_pool_id
        self.aws_region = aws_region
        self.client_id_expected = client_id
        config_url = (
            f"https://cognito-idp.{aws_region}.amazonaws.com/{user_pool_id}"
            "/.well-known/openid-configuration"
        )
        super().__init__(
            config_url=config_url,
            client_id=client_id,
            client_secret=client_secret,
            algorithm="RS256",
            required_scopes=(
                parse_scopes(required_scopes) if required_scopes is not None else ["openid"]
            ),
            base_url=base_url,
            redirect_path=redirect_path,
            **options,
        )

    def get_token_verifier(
        self,
        *,
        algorithm: str | None = None,
        audience: str | None = None,
        required_scopes: list[str] | None = None,
        timeout_seconds: int | None = None,
    ) -> TokenVerifier:
        """The pool's :class:`AWSCognitoTokenVerifier` (its app client as audience)."""
        return AWSCognitoTokenVerifier(
            issuer=str(self.oidc_config["issuer"]),
            audience=audience or self.client_id_expected,
            algorithm=algorithm,
            jwks_uri=str(self.oidc_config["jwks_uri"]),
            required_scopes=required_scopes,
        )
