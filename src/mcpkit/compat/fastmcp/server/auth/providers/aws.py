"""``fastmcp.server.auth.providers.aws`` on mcpkit: :class:`AWSCognitoTokenVerifier`
(served); ``AWSCognitoProvider`` imports, and constructing it raises NotImplementedError
naming :class:`mcpkit.auth.CognitoProvider`."""

from __future__ import annotations

from typing import Any

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported
from mcpkit.compat.fastmcp.server.auth.auth import AccessToken
from mcpkit.compat.fastmcp.server.auth.providers.jwt import JWTVerifier

__all__ = ["AWSCognitoProvider", "AWSCognitoTokenVerifier"]

AWSCognitoProvider = unsupported("AWSCognitoProvider", __name__, "mcpkit.auth.CognitoProvider")


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
