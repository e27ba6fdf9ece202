"""``fastmcp.server.auth.providers.introspection`` on mcpkit: :class:`IntrospectionTokenVerifier`
(RFC 7662), asking the endpoint through :class:`mcpkit.auth.IntrospectionVerifier` and
judging its answer by fastmcp's rules."""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import AnyHttpUrl, SecretStr

from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["ClientAuthMethod", "IntrospectionTokenVerifier"]

ClientAuthMethod = Literal["client_secret_basic", "client_secret_post"]


class IntrospectionTokenVerifier(TokenVerifier):
    """Accepts the tokens an introspection endpoint says are active (unexpired, for one of
    ``audience`` when given, with ``required_scopes``); answers are kept
    ``cache_ttl_seconds`` (none by default, as fastmcp)."""

    def __init__(
        self,
        *,
        introspection_url: str,
        client_id: str,
        client_secret: str | SecretStr,
        client_auth_method: ClientAuthMethod = "client_secret_basic",
        timeout_seconds: int = 10,
        required_scopes: list[str] | None = None,
        audience: str | list[str] | None = None,
        base_url: AnyHttpUrl | str | None = None,
        cache_ttl_seconds: int | None = None,
        max_cache_size: int | None = None,
        http_client: Any = None,
    ) -> None:
        from mcpkit.auth.introspection import IntrospectionVerifier

        scopes = parse_scopes(required_scopes) if required_scopes is not None else None
        super().__init__(base_url=base_url, required_scopes=scopes)
        if client_auth_method not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(
                f"Invalid client_auth_method: {client_auth_method!r}. "
                "Must be 'client_secret_basic' or 'client_secret_post'."
            )
        if audience is not None:
            audiences = [audience] if isinstance(audience, str) else audience
            if not audiences or any(not isinstance(a, str) or not a for a in audiences):
                raise ValueError("audience must contain nonempty strings")
        secret = (
            client_secret.get_secret_value()
            if isinstance(client_secret, SecretStr)
            else client_secret
        )
        self.introspection_url = introspection_url
        self.client_id = client_id
        self.client_secret = secret
        self.client_auth_method = client_auth_method
        self.audience = audience
        self.timeout_seconds = timeout_seconds
        self._verifier = IntrospectionVerifier(
            introspection_url,
            client_id=client_id,
            client_secret=secret,
            auth_method=client_auth_method,
            cache_ttl=float(cache_ttl_seconds or 0),
            negative_cache_ttl=0.0,
            max_cache_size=max_cache_size or 10_000,
            timeout=float(timeout_seconds),
            allow_insecure_http=True,
        )

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of an active token, None otherwise (the endpoint's
        whole answer as its claims)."""
        try:
            found = await self._verifier.verify_token(token)
        except Exception:
            return None
        doc = found.claims
        client_id = doc.get("client_id") or doc.get("sub", "unknown")
        exp = doc.get("exp")
        if exp and exp < time.time():
            return None
        if self.audience is not None and not _audience_ok(doc.get("aud"), self.audience):
            return None
        scopes = _scopes(doc.get("scope"))
        if self.required_scopes and not set(self.required_scopes) <= set(scopes):
            return None
        return AccessToken(
            token=token,
            client_id=str(client_id),
            scopes=scopes,
            expires_at=int(exp) if exp is not None else None,
            subject=doc.get("sub"),
            claims=doc,
        )


def _audience_ok(aud: Any, expected: str | list[str]) -> bool:
    values = [aud] if isinstance(aud, str) else aud
    if not isinstance(values, list) or not values:
        return False
    if any(not isinstance(v, str) or not v for v in values):
        return False
    wanted = [expected] if isinstance(expected, str) else expected
    return any(w in values for w in wanted)


def _scopes(value: Any) -> list[str]:
    if isinstance(value, str):
        return [s.strip() for s in value.split() if s.strip()]
    if isinstance(value, list):
        return [str(s) for s in value if s]
    return []
