"""``fastmcp.server.auth.providers.discord`` on mcpkit: :class:`DiscordProvider` (fastmcp's
OAuth proxy to Discord, served by mcpkit's) and :class:`DiscordTokenVerifier` (a Discord
token checked at ``/api/oauth2/@me``, for one application)."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth._upstream import bearer_get
from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["DiscordProvider", "DiscordTokenVerifier"]


class DiscordTokenVerifier(TokenVerifier):
    """Accepts the unexpired Discord tokens of application ``expected_client_id`` with
    ``required_scopes``; the user's id as subject, the user as claims."""

    def __init__(
        self,
        *,
        expected_client_id: str,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        http_client: Any = None,
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.expected_client_id = expected_client_id
        self.timeout_seconds = timeout_seconds

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a token Discord accepts, None otherwise."""
        import httpx

        try:
            async with httpx.AsyncClient(timeout=self.timeout_seconds) as client:
                response = await bearer_get(
                    client, "https://discord.com/api/oauth2/@me", token, "FastMCP-Discord-OAuth"
                )
            if response.status_code != 200:
                return None
            info = response.json()
            expires_at = None
            if info.get("expires"):
                moment = datetime.fromisoformat(str(info["expires"]).replace("Z", "+00:00"))
                expires_at = int(moment.timestamp())
                if expires_at <= int(time.time()):
                    return None
        except Exception:
            return None
        scopes = list(info.get("scopes", []))
        if self.required_scopes and not set(self.required_scopes) <= set(scopes):
            return None
        user = info.get("user", {})
        client_id = str((info.get("application") or {}).get("id", "unknown"))
        if client_id != self.expected_client_id:
            return None
        return AccessToken(
            token=token,
            client_id=client_id,
            scopes=scopes,
            expires_at=expires_at,
            subject=user.get("id"),
            claims={
                "sub": user.get("id"),
                "username": user.get("username"),
                "discriminator": user.get("discriminator"),
                "avatar": user.get("avatar"),
                "email": user.get("email"),
                "verified": user.get("verified"),
                "locale": user.get("locale"),
                "discord_user": user,
                "discord_token_info": info,
            },
        )


class DiscordProvider(OAuthProxy):
    """fastmcp's Discord login, on mcpkit's OAuth proxy."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        http_client: Any = None,
        **options: Any,
    ) -> None:
        verifier = DiscordTokenVerifier(
            expected_client_id=client_id,
            required_scopes=(
                parse_scopes(required_scopes) if required_scopes is not None else ["identify"]
            ),
            timeout_seconds=timeout_seconds,
            http_client=http_client,
        )
        super().__init__(
            upstream_authorization_endpoint="https://discord.com/oauth2/authorize",
            upstream_token_endpoint="https://discord.com/api/oauth2/token",
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=base_url,
            **options,
        )
