"""``mcp.client.auth`` on mcpkit: the official client's OAuth names.

``OAuthClientProvider`` (the authorization code flow, :mod:`.oauth2`) and the
machine-to-machine providers (``mcp.client.auth.extensions.client_credentials``) are served on
:class:`mcpkit.auth.OAuthClientAuth`; ``TokenStorage`` is the SDK's protocol."""

from __future__ import annotations

import secrets
import string
from typing import Protocol

from pydantic import BaseModel, Field

from mcpkit.compat.mcp.client.auth.exceptions import (
    OAuthFlowError,
    OAuthRegistrationError,
    OAuthTokenError,
)
from mcpkit.compat.mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthToken,
)

__all__ = [
    "AuthorizationCodeResult",
    "OAuthClientProvider",
    "OAuthFlowError",
    "OAuthRegistrationError",
    "OAuthTokenError",
    "PKCEParameters",
    "TokenStorage",
]


class TokenStorage(Protocol):
    """Where a provider keeps its tokens and its client's registration."""

    async def get_tokens(self) -> OAuthToken | None: ...

    async def set_tokens(self, tokens: OAuthToken) -> None: ...

    async def get_client_info(self) -> OAuthClientInformationFull | None: ...

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None: ...


class PKCEParameters(BaseModel):
    """A PKCE verifier and its challenge."""

    code_verifier: str = Field(..., min_length=43, max_length=128)
    code_challenge: str = Field(..., min_length=43, max_length=128)

    @classmethod
    def generate(cls) -> PKCEParameters:
        """A new verifier (128 characters, as the SDK draws it) and its S256 challenge."""
        from mcpkit.auth.pkce import s256

        alphabet = string.ascii_letters + string.digits + "-._~"
        verifier = "".join(secrets.choice(alphabet) for _ in range(128))
        return cls(code_verifier=verifier, code_challenge=s256(verifier))


def __getattr__(name: str) -> object:
    # oauth2 imports TokenStorage from here: loaded on first use.
    if name == "OAuthClientProvider":
        from mcpkit.compat.mcp.client.auth.oauth2 import OAuthClientProvider

        return OAuthClientProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
