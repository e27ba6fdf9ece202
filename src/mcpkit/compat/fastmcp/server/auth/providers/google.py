"""``fastmcp.server.auth.providers.google`` on mcpkit: :class:`GoogleProvider` (fastmcp's
OAuth proxy to Google, served by mcpkit's) and :class:`GoogleTokenVerifier` (a Google
token checked at Google's ``tokeninfo``, the profile from ``userinfo``)."""

from __future__ import annotations

import time
from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth._upstream import TokenCache, bearer_get
from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["GOOGLE_SCOPE_ALIASES", "GoogleProvider", "GoogleTokenVerifier"]

_AGENT = "FastMCP-Google-OAuth"
#: The scope shorthands Google answers in full form.
GOOGLE_SCOPE_ALIASES: dict[str, str] = {
    "email": "https://www.googleapis.com/auth/userinfo.email",
    "profile": "https://www.googleapis.com/auth/userinfo.profile",
}


def _normalize(scope: str) -> str:
    return GOOGLE_SCOPE_ALIASES.get(scope, scope)


class GoogleTokenVerifier(TokenVerifier):
    """Accepts the Google tokens ``tokeninfo`` accepts (for ``audience`` when given), with
    ``required_scopes`` (shorthands in full form); the user's ``sub`` as subject and
    client, the profile as claims."""

    def __init__(
        self,
        *,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        cache_ttl_seconds: int | None = None,
        max_cache_size: int | None = None,
        http_client: Any = None,
        audience: str | list[str] | None = None,
    ) -> None:
        scopes = [_normalize(s) for s in required_scopes] if required_scopes else required_scopes
        super().__init__(required_scopes=scopes)
        self.timeout_seconds = timeout_seconds
        self.audience = audience
        self._cache = TokenCache(cache_ttl_seconds, max_cache_size)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a token Google accepts, None otherwise."""
        import httpx

        cached = self._cache.get(token)
        if cached is not None:
            return cached
        try:
            async with httpx.AsyncClient(timeout=self.timeout_seconds) as client:
                info = await bearer_get(
                    client, "https://oauth2.googleapis.com/tokeninfo", token, _AGENT
                )
                if info.status_code != 200:
                    return None
                data = info.json()
                user: dict[str, Any] = {}
                try:
                    profile = await bearer_get(
                        client, "https://www.googleapis.com/oauth2/v2/userinfo", token, _AGENT
                    )
                    if profile.status_code == 200:
                        user = profile.json()
                except httpx.HTTPError:
                    pass
        except Exception:
            return None
        aud, sub = data.get("aud"), data.get("sub")
        if not aud or not sub:
            return None
        if self.audience is not None:
            allowed = self.audience if isinstance(self.audience, list) else [self.audience]
            if aud not in allowed:
                return None
        scope = data.get("scope", "")
        scopes = scope.split() if scope else []
        if self.required_scopes and not set(self.required_scopes) <= set(scopes):
            return None
        expires_at = None
        try:
            if data.get("expires_in") is not None:
                expires_at = int(time.time()) + int(data["expires_in"])
        except (TypeError, ValueError):
            pass
        result = AccessToken(
            token=token,
            client_id=sub,
            scopes=scopes,
            expires_at=expires_at,
            subject=sub,
            claims={
                "sub": sub,
                "aud": aud,
                "email": data.get("email") or user.get("email"),
                "email_verified": data.get("email_verified") or user.get("verified_email"),
                "name": user.get("name"),
                "picture": user.get("picture"),
                "given_name": user.get("given_name"),
                "family_name": user.get("family_name"),
                "locale": user.get("locale"),
                "google_user_data": user or None,
            },
        )
        self._cache.set(token, result)
        return result


class GoogleProvider(OAuthProxy):
    """fastmcp's Google login (``access_type=offline``, ``prompt=consent`` by default),
    on mcpkit's OAuth proxy."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str | None = None,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        valid_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        cache_ttl_seconds: int | None = None,
        max_cache_size: int | None = None,
        extra_authorize_params: dict[str, str] | None = None,
        http_client: Any = None,
        **options: Any,
    ) -> None:
        verifier = GoogleTokenVerifier(
            required_scopes=(
                parse_scopes(required_scopes) if required_scopes is not None else ["openid"]
            ),
            timeout_seconds=timeout_seconds,
            cache_ttl_seconds=cache_ttl_seconds,
            max_cache_size=max_cache_size,
            http_client=http_client,
            audience=client_id,
        )
        valid = parse_scopes(valid_scopes) if valid_scopes is not None else None
        super().__init__(
            upstream_authorization_endpoint="https://accounts.google.com/o/oauth2/v2/auth",
            upstream_token_endpoint="https://oauth2.googleapis.com/token",
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=base_url,
            extra_authorize_params={
                "access_type": "offline",
                "prompt": "consent",
                **(extra_authorize_params or {}),
            },
            valid_scopes=[_normalize(s) for s in valid] if valid is not None else None,
            **options,
        )
