"""``fastmcp.server.auth.providers.huggingface`` on mcpkit: :class:`HuggingFaceProvider`
(fastmcp's OAuth proxy to Hugging Face, served by mcpkit's) and
:class:`HuggingFaceTokenVerifier` (an opaque Hugging Face token checked at its userinfo
endpoint, its scopes from ``whoami-v2`` when userinfo has none)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth._upstream import bearer_get
from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier
from mcpkit.compat.fastmcp.server.auth.oauth_proxy import OAuthProxy
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = [
    "DEFAULT_HUGGINGFACE_SCOPES",
    "HUGGINGFACE_AUTHORIZATION_ENDPOINT",
    "HUGGINGFACE_TOKEN_ENDPOINT",
    "HUGGINGFACE_USERINFO_ENDPOINT",
    "HUGGINGFACE_WHOAMI_ENDPOINT",
    "HuggingFaceProvider",
    "HuggingFaceTokenVerifier",
]

HUGGINGFACE_AUTHORIZATION_ENDPOINT = "https://huggingface.co/oauth/authorize"
HUGGINGFACE_TOKEN_ENDPOINT = "https://huggingface.co/oauth/token"
HUGGINGFACE_USERINFO_ENDPOINT = "https://huggingface.co/oauth/userinfo"
HUGGINGFACE_WHOAMI_ENDPOINT = "https://huggingface.co/api/whoami-v2"
DEFAULT_HUGGINGFACE_SCOPES = ["openid", "profile"]
_AGENT = "FastMCP-HuggingFace-OAuth"


def _scopes(data: Mapping[str, Any]) -> list[str]:
    """The scopes an answer names: ``scope``/``scopes``, else whoami's
    ``auth.accessToken.scopes`` (names or ``{"name": ...}``)."""
    value = data.get("scope") or data.get("scopes")
    if isinstance(value, str):
        return parse_scopes(value) or []
    if isinstance(value, list):
        return [str(s).strip() for s in value if str(s).strip()]
    auth = data.get("auth")
    token = auth.get("accessToken") if isinstance(auth, Mapping) else None
    if not isinstance(token, Mapping):
        return []
    nested = token.get("scopes") or token.get("scope")
    if isinstance(nested, str):
        return parse_scopes(nested) or []
    if isinstance(nested, list):
        names = [str(s.get("name") if isinstance(s, Mapping) else s).strip() for s in nested]
        return [n for n in names if n]
    return []


class HuggingFaceTokenVerifier(TokenVerifier):
    """Accepts the tokens Hugging Face's userinfo endpoint accepts, with
    ``required_scopes``; the user's ``sub`` as subject and client, the profile (and
    ``whoami-v2``'s answer when it was asked) as claims."""

    def __init__(
        self,
        *,
        required_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        http_client: Any = None,
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.timeout_seconds = timeout_seconds

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a token Hugging Face accepts, None otherwise."""
        import httpx

        try:
            async with httpx.AsyncClient(timeout=self.timeout_seconds) as client:
                info = await bearer_get(client, HUGGINGFACE_USERINFO_ENDPOINT, token, _AGENT)
                if info.status_code != 200:
                    return None
                user = info.json()
                sub = user.get("sub")
                if not sub:
                    return None
                scopes = _scopes(user)
                whoami: dict[str, Any] | None = None
                required = set(self.required_scopes)
                if not scopes or not required <= set(scopes):
                    answer = await bearer_get(client, HUGGINGFACE_WHOAMI_ENDPOINT, token, _AGENT)
                    whoami = answer.json() if answer.status_code == 200 else None
                    if whoami:
                        scopes = list(dict.fromkeys([*scopes, *_scopes(whoami)]))
        except (httpx.HTTPError, ValueError):
            return None
        scopes = scopes or list(DEFAULT_HUGGINGFACE_SCOPES)
        if not required <= set(scopes):
            return None
        return AccessToken(
            token=token,
            client_id=str(sub),
            scopes=scopes,
            expires_at=None,
            subject=str(sub),
            claims={
                "sub": str(sub),
                "name": user.get("name"),
                "preferred_username": (
                    user.get("preferred_username") or user.get("nickname") or user.get("name")
                ),
                "email": user.get("email"),
                "email_verified": user.get("email_verified"),
                "profile": user.get("profile"),
                "picture": user.get("picture"),
                "organizations": user.get("organizations"),
                "huggingface_userinfo": user,
                "huggingface_whoami": whoami,
            },
        )


class HuggingFaceProvider(OAuthProxy):
    """fastmcp's Hugging Face login, on mcpkit's OAuth proxy: ``openid`` and ``profile``
    asked for and required by default, the granted scopes those of the provider's token
    response."""

    def __init__(
        self,
        *,
        client_id: str,
        client_secret: str | None = None,
        base_url: AnyHttpUrl | str,
        required_scopes: list[str] | None = None,
        valid_scopes: list[str] | None = None,
        timeout_seconds: int = 10,
        http_client: Any = None,
        **options: Any,
    ) -> None:
        required = (
            parse_scopes(required_scopes)
            if required_scopes is not None
            else list(DEFAULT_HUGGINGFACE_SCOPES)
        ) or []
        valid = parse_scopes(valid_scopes)
        verifier = HuggingFaceTokenVerifier(
            timeout_seconds=timeout_seconds, http_client=http_client
        )
        super().__init__(
            upstream_authorization_endpoint=HUGGINGFACE_AUTHORIZATION_ENDPOINT,
            upstream_token_endpoint=HUGGINGFACE_TOKEN_ENDPOINT,
            upstream_client_id=client_id,
            upstream_client_secret=client_secret,
            token_verifier=verifier,
            base_url=base_url,
            valid_scopes=valid,
            **options,
        )
        # The requirement is the provider's own (the verifier reads opaque tokens).
        self.required_scopes = required
        self.valid_scopes = list(valid or required)
        server = self.engine.server
        server.scopes_supported = list(self.valid_scopes)
        server.default_scopes = tuple(self.valid_scopes)
        server.metadata["scopes_supported"] = list(self.valid_scopes)
        self.engine.upstream_scopes = tuple(required)

    @property
    def alternate_verification(self) -> bool:
        """Hugging Face's tokens are opaque: the scopes are the token response's."""
        return True
