"""``mcp.client.auth.extensions.client_credentials`` on mcpkit: the official SDK's
machine-to-machine providers on :class:`mcpkit.auth.OAuthClientAuth` with
``grant_type="client_credentials"`` (the same flow as fastmcp's providers, which wrap these).

:class:`ClientCredentialsOAuthProvider` authenticates with a client ID and secret
(``client_secret_basic`` by default, or ``client_secret_post``),
:class:`PrivateKeyJWTOAuthProvider` with an RFC 7523 ``private_key_jwt`` assertion from its
``assertion_provider`` (given the authorization server's issuer as the audience). On the
first 401 the MCP server's protected resource metadata and its authorization server's
metadata are discovered and the token endpoint is sent the SDK's request: ``grant_type``,
``resource``, ``scope`` (the given ``scope``, else the one the server names). ``issuer``
binds the credentials to that authorization server. Tokens are handed to ``storage``.
Give a provider to ``httpx2.AsyncClient(auth=...)`` and that client to
``streamable_http_client(url, http_client=...)``.
"""

from __future__ import annotations

from typing import Literal

from mcpkit.compat.fastmcp.client.auth.client_credentials import (
    AssertionProvider,
    SignedJWTParameters,
    _BoundProvider,
    _ClientCredentials,
    static_assertion_provider,
)
from mcpkit.compat.mcp.client.auth import TokenStorage
from mcpkit.compat.mcp.client.auth._storage import METADATA_HEADERS, Httpx2Auth, SdkTokenStore

__all__ = [
    "ClientCredentialsOAuthProvider",
    "PrivateKeyJWTOAuthProvider",
    "SignedJWTParameters",
    "static_assertion_provider",
]


def _checked_issuer(issuer: str | None) -> str | None:
    if issuer is not None and not issuer.startswith(("http://", "https://")):
        raise ValueError(
            f"issuer must be the authorization server's http(s) issuer URL, got {issuer!r}"
        )
    return issuer


class ClientCredentialsOAuthProvider(_BoundProvider, Httpx2Auth):  # type: ignore[misc]
    """The SDK's ``client_credentials`` provider with a client ID and secret."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        client_secret: str,
        token_endpoint_auth_method: Literal[
            "client_secret_basic", "client_secret_post"
        ] = "client_secret_basic",
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        self._inner = _ClientCredentials(
            server_url,
            scopes=scope,
            client_id=client_id,
            client_secret=client_secret,
            client_issuer=_checked_issuer(issuer),
            token_endpoint_auth_method=token_endpoint_auth_method,
            send_client_id=False,
            store=SdkTokenStore(storage),
            allow_insecure_http=True,
            metadata_headers=METADATA_HEADERS,
        )


class PrivateKeyJWTOAuthProvider(_BoundProvider, Httpx2Auth):  # type: ignore[misc]
    """The SDK's ``client_credentials`` provider authenticating with ``private_key_jwt``."""

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        assertion_provider: AssertionProvider,
        scope: str | None = None,
        issuer: str | None = None,
    ) -> None:
        self._assertion_provider = assertion_provider
        self._inner = _ClientCredentials(
            server_url,
            scopes=scope,
            client_id=client_id,
            client_issuer=_checked_issuer(issuer),
            token_endpoint_auth_method="private_key_jwt",
            client_assertion=self._assertion,
            send_client_id=False,
            store=SdkTokenStore(storage),
            allow_insecure_http=True,
            metadata_headers=METADATA_HEADERS,
        )

    async def _assertion(self, issuer: str) -> str:
        from pydantic import AnyHttpUrl

        # The audience as the SDK writes the issuer (a URL without a path gets its "/").
        return await self._assertion_provider(str(AnyHttpUrl(issuer)))
