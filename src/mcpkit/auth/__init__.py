"""OAuth 2.1 authorization for MCP over HTTP (the spec's ``basic/authorization``).

Client side: :class:`OAuthClientAuth` (an ``httpx.Auth``; pass it as ``auth=`` to
:class:`mcpkit.Client`), :class:`ClientMetadata`, :class:`PrivateKey`, the token stores.
Server side (resource server): :class:`ResourceServer`, :class:`AccessToken`,
:class:`TokenVerifier`. Names load on first use, so importing :mod:`mcpkit.auth` is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit._lazy import load_export

if TYPE_CHECKING:
    from mcpkit.auth.client import (
        AuthorizationHandler,
        AuthorizationResponse,
        OAuthClientAuth,
        headless_authorization_handler,
    )
    from mcpkit.auth.errors import (
        AuthorizationServerMismatchError,
        IssuerMismatchError,
        OAuthError,
        ResourceMismatchError,
    )
    from mcpkit.auth.registration import ClientMetadata, PrivateKey
    from mcpkit.auth.server import AccessToken, ResourceServer, TokenVerifier
    from mcpkit.auth.tokens import (
        ClientInfo,
        MemoryTokenStore,
        OAuthToken,
        SQLiteTokenStore,
        TokenStore,
    )

_WHERE = {
    "AuthorizationHandler": "client",
    "AuthorizationResponse": "client",
    "OAuthClientAuth": "client",
    "headless_authorization_handler": "client",
    "AuthorizationServerMismatchError": "errors",
    "IssuerMismatchError": "errors",
    "OAuthError": "errors",
    "ResourceMismatchError": "errors",
    "ClientMetadata": "registration",
    "PrivateKey": "registration",
    "AccessToken": "server",
    "ResourceServer": "server",
    "TokenVerifier": "server",
    "ClientInfo": "tokens",
    "MemoryTokenStore": "tokens",
    "OAuthToken": "tokens",
    "SQLiteTokenStore": "tokens",
    "TokenStore": "tokens",
}

__all__ = [
    "AccessToken",
    "AuthorizationHandler",
    "AuthorizationResponse",
    "AuthorizationServerMismatchError",
    "ClientInfo",
    "ClientMetadata",
    "IssuerMismatchError",
    "MemoryTokenStore",
    "OAuthClientAuth",
    "OAuthError",
    "OAuthToken",
    "PrivateKey",
    "ResourceMismatchError",
    "ResourceServer",
    "SQLiteTokenStore",
    "TokenStore",
    "TokenVerifier",
    "headless_authorization_handler",
]


def __getattr__(name: str) -> Any:
    return load_export(__name__, name, _WHERE, globals(), "mcpkit.auth.")
