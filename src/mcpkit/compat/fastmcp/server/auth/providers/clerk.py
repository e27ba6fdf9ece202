"""``fastmcp.server.auth.providers.clerk`` on mcpkit: :class:`ClerkProvider` (fastmcp's
OAuth proxy to a Clerk instance, served by mcpkit's) and :class:`ClerkTokenVerifier` (a
Clerk token checked at the instance's introspection endpoint, then its profile read at
its userinfo endpoint)."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["ClerkProvider", "ClerkTokenVerifier"]

_AGENT = "FastMCP-Clerk-OAuth"
#: The profile claims of Clerk's userinfo answer a tool sees.
_PROFILE = (
    "email",
    "email_verified",
    "name",
    "picture",
    "given_name",
    "family_name",
    "preferred_username",
    "iss",
)


def _domain(domain: str) -> str:
    """An instance domain without scheme or trailing slash (as the dashboard shows it)."""
    return domain.removeprefix("https://").removeprefix("http://").rstrip("/")


class ClerkTokenVerifier(TokenVerifier):
    """Accepts the tokens the instance's introspection endpoint says are active, for
    ``client_id`` (when given) and with ``required_scopes``; the profile from userinfo
    (its failure not fatal)."""

    def __init__(
        self,
        *,
        domain: str,
        client_id: str | None = None,
        client_secret: str | None = None,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        http_client: Any = None,
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.domain = _domain(domain)
        self.client_id = client_id
        self.client_secret = client_secret
        self.timeout_seconds = timeout_seconds
        self.introspection_url = f"https://{self.domain}/oauth/token_info"
        self.userinfo_url = f"https://{self.domain}/oauth/userinfo"

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a token Clerk says is active, None otherwise."""
        import httpx

        try:
            async with httpx.AsyncClient(timeout=self.timeout_seconds) as client:
                return await self._verify(client, token)
        except Exception:
            return None

    async def _verify(self, client: Any, token: str) -> AccessToken | None:
        form = {"token": token}
        auth = None
        if self.client_id and self.client_secret:
            auth = (self.client_id, self.client_secret)
        elif self.client_id:
            form["client_id"] = self.client_id
        answer = await client.post(
            self.introspection_url, data=form, auth=auth, headers={"User-Agent": _AGENT}
        )
        if answer.status_code != 200:
            return None
        info = answer.json()
        if not info.get("active"):
            return None
        scope = info.get("scope", "")
        scopes = scope.split() if scope else []
        audience = info.get("aud") or info.get("client_id")
        expires_at: int | None = None
        try:
            expires_at = int(info["exp"]) if info.get("exp") is not None else None
        except (TypeError, ValueError):
            expires_at = None
        if self.client_id and audience != self.client_id:
            return None
        if self.required_scopes and not set(self.required_scopes) <= set(scopes):
            return None
        subject = info.get("sub")
        user: dict[str, Any] = {}
        try:
            found = await client.get(
                self.userinfo_url,
                headers={"Authorization": f"Bearer {token}", "User-Agent": _AGENT},
            )
            if found.status_code == 200:
                user = found.json()
                subject = subject or user.get("sub")
        except Exception:
            user = {}
        if not subject:
            return None
        claims: dict[str, Any] = {"sub": subject, "aud": audience}
        claims.update({k: user.get(k) for k in _PROFILE})
        claims["clerk_user_data"] = user or None
        return AccessToken(
            token=token,
            client_id=audience or subject,
            scopes=scopes,
            expires_at=expires_at,
            subject=subject,
            claims=claims,
        )


class ClerkProvider(OAuthProxy):
    """fastmcp's Clerk login (the instance's ``/oauth/authorize`` and ``/oauth/token``),
    on mcpkit's OAuth proxy; ``openid email profile`` required by default."""

    def __init__(
        self,
        *,
        domain: str,
        client_id: str,
        client_secret: str | None = None,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        valid_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        extra_authorize_params: dict[str, str] | None = None,
        http_client: Any = None,
        **options: Any,
    ) -> None:
        domain = _domain(domain)
        verifier = ClerkTokenVerifier(
            domain=domain,
            client_id=client_id,
            client_secret=client_secret,
            required_scopes=(
                parse_scopes(required_scopes)
                if required_scopes is not None
                else ["openid", "email", "profile"]
            ),
            timeout_seconds=timeout_seconds,
            http_client=http_client,
        )
        super().__init__(
            upstream_authorization_endpoint=f"https://{domain}/oauth/authorize",
            upstream_token_endpoint=f"https://{domain}/oauth/token",
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=base_url,
            extra_authorize_params=dict(extra_authorize_params or {}) or None,
            valid_scopes=parse_scopes(valid_scopes) if valid_scopes is not None else None,
            **options,
        )
