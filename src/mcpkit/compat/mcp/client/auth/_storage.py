"""mcpkit's token store over the SDK's ``TokenStorage`` (``get_tokens`` / ``set_tokens``)."""

from __future__ import annotations

import importlib
import time
from typing import Any

from mcpkit.auth.tokens import ClientInfo, OAuthToken, TokenStore
from mcpkit.compat.mcp.types.version import LATEST_PROTOCOL_VERSION

__all__ = ["METADATA_HEADERS", "Httpx2Auth", "SdkTokenStore"]

#: The header the SDK's providers send with their metadata requests (the latest revision).
METADATA_HEADERS = {"mcp-protocol-version": LATEST_PROTOCOL_VERSION}


def _httpx2_auth() -> Any:
    """``httpx2.Auth`` where httpx2 is installed (so ``httpx2.AsyncClient(auth=...)`` takes
    the providers), else ``object``."""
    try:
        return importlib.import_module("httpx2").Auth
    except ImportError:
        return object


#: A base the providers add so the SDK's HTTP client accepts them as its ``auth=``.
Httpx2Auth: Any = _httpx2_auth()


class SdkTokenStore(TokenStore):
    """The provider's one token in the SDK's ``storage`` (the client is configured, not
    registered, so no registration is kept)."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage

    async def get_token(self, resource: str, issuer: str | None = None) -> OAuthToken | None:
        """The stored token (its expiry unknown: the SDK keeps ``expires_in`` alone)."""
        stored = await self.storage.get_tokens()
        if stored is None:
            return None
        return OAuthToken(
            access_token=stored.access_token,
            token_type=stored.token_type,
            refresh_token=stored.refresh_token,
            scope=stored.scope,
        )

    async def set_token(
        self, resource: str, token: OAuthToken | None, *, issuer: str | None = None
    ) -> None:
        """Hand a new token to the storage as the SDK's ``OAuthToken``."""
        if token is None:
            return
        from mcpkit.compat.mcp.shared.auth import OAuthToken as SdkToken

        expires_in = None
        if token.expires_at is not None:
            expires_in = max(0, round(token.expires_at - time.time()))
        await self.storage.set_tokens(
            SdkToken(
                access_token=token.access_token,
                token_type="Bearer",
                expires_in=expires_in,
                scope=token.scope,
                refresh_token=token.refresh_token,
            )
        )

    async def get_client(self, issuer: str) -> ClientInfo | None:
        """None: the client is configured."""
        return None

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Nothing to keep: the client is configured."""
