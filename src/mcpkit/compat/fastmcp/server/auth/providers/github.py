"""``fastmcp.server.auth.providers.github`` on mcpkit: :class:`GitHubProvider` (fastmcp's
OAuth proxy to GitHub, served by mcpkit's) and :class:`GitHubTokenVerifier` (a GitHub
token checked at GitHub's API: ``/user`` for who, ``/user/repos``'s ``X-OAuth-Scopes``
for its scopes)."""

from __future__ import annotations

from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth._upstream import TokenCache, bearer_get
from mcpkit.compat.fastmcp.server.auth.auth import (
    AccessToken,
    TokenVerificationError,
    TokenVerifier,
)
from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["GitHubProvider", "GitHubTokenVerifier"]

_API = "https://api.github.com"
_ACCEPT = "application/vnd.github.v3+json"
_AGENT = "FastMCP-GitHub-OAuth"


class GitHubTokenVerifier(TokenVerifier):
    """Accepts the GitHub tokens GitHub's API accepts, with ``required_scopes``; the
    user's id as subject and client, ``login``, ``name``, ``email``... as claims."""

    def __init__(
        self,
        *,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        cache_ttl_seconds: int | None = None,
        max_cache_size: int | None = None,
        http_client: Any = None,
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.timeout_seconds = timeout_seconds
        self._http_client = http_client
        self._cache = TokenCache(cache_ttl_seconds, max_cache_size)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a token GitHub accepts (None: refused;
        :class:`TokenVerificationError`: GitHub unavailable)."""
        import httpx

        cached = self._cache.get(token)
        if cached is not None:
            return cached
        try:
            async with httpx.AsyncClient(timeout=self.timeout_seconds) as client:
                user = await bearer_get(client, _API + "/user", token, _AGENT, _ACCEPT)
                if user.status_code >= 500 or user.status_code == 429:
                    raise TokenVerificationError(
                        f"GitHub token verification unavailable: HTTP {user.status_code}"
                    )
                if user.status_code != 200:
                    return None
                data = user.json()
                user_id = data["id"]
                repos = await bearer_get(client, _API + "/user/repos", token, _AGENT, _ACCEPT)
        except httpx.HTTPError as exc:
            raise TokenVerificationError(
                "GitHub token verification unavailable due to a transport error"
            ) from exc
        except (ValueError, TypeError, KeyError) as exc:
            raise TokenVerificationError(
                "GitHub token verification returned an invalid user response"
            ) from exc
        if repos.status_code >= 500 or repos.status_code == 429:
            raise TokenVerificationError(
                f"GitHub scope verification unavailable: HTTP {repos.status_code}"
            )
        if repos.status_code != 200:
            return None
        header = repos.headers.get("x-oauth-scopes", "").strip() or "user"
        scopes = [s.strip() for s in header.split(",") if s.strip()]
        if self.required_scopes and not set(self.required_scopes) <= set(scopes):
            return None
        result = AccessToken(
            token=token,
            client_id=str(user_id),
            scopes=scopes,
            expires_at=None,
            subject=str(user_id),
            claims={
                "sub": str(user_id),
                "login": data.get("login"),
                "name": data.get("name"),
                "email": data.get("email"),
                "avatar_url": data.get("avatar_url"),
                "github_user_data": data,
            },
        )
        self._cache.set(token, result)
        return result


class GitHubProvider(OAuthProxy):
    """fastmcp's GitHub login (an OAuth App's ``client_id``/``client_secret``, the
    callback ``base_url + redirect_path``), on mcpkit's OAuth proxy."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        cache_ttl_seconds: int | None = None,
        max_cache_size: int | None = None,
        http_client: Any = None,
        **options: Any,
    ) -> None:
        verifier = GitHubTokenVerifier(
            required_scopes=(
                parse_scopes(required_scopes) if required_scopes is not None else ["user"]
            ),
            timeout_seconds=timeout_seconds,
            cache_ttl_seconds=cache_ttl_seconds,
            max_cache_size=max_cache_size,
            http_client=http_client,
        )
        super().__init__(
            upstream_authorization_endpoint="https://github.com/login/oauth/authorize",
            upstream_token_endpoint="https://github.com/login/oauth/access_token",
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=base_url,
            **options,
        )
