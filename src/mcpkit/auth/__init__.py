"""OAuth 2.1 authorization for MCP over HTTP (the spec's ``basic/authorization``).

Client side: :class:`OAuthClientAuth` (an ``httpx.Auth``; pass it as ``auth=`` to
:class:`mcpkit.Client`), :class:`ClientMetadata`, :class:`PrivateKey`, the token stores.
Embedded authorization server: :class:`AuthorizationServer` (state in :class:`MemoryAuthStore`,
:class:`SQLiteAuthStore` or :class:`RedisAuthStore`; clients by registration or by
:class:`ClientMetadataDocuments`); in front of an identity provider
without dynamic registration, :class:`OAuthProxy` (logins pending and upstream tokens in
:class:`MemoryProxyStore`, :class:`SQLiteProxyStore` or :class:`RedisProxyStore`) and its presets
(:class:`GitHubProvider`, :class:`GoogleProvider`, :class:`EntraIDProvider`,
:class:`OktaProvider`, :class:`Auth0Provider`, :class:`KeycloakProvider`,
:class:`WorkOSProvider`, :class:`CognitoProvider`, :class:`OIDCProvider`).
Server side (resource server): :class:`ResourceServer`, :class:`AccessToken`,
:class:`APIKeyVerifier` (API keys, with or without OAuth),
:class:`TokenVerifier`, and the verifiers :class:`JWTVerifier` (JWT access tokens, keys from
a JWKS), :class:`IntrospectionVerifier` (RFC 7662) and :class:`DPoPVerifier` (RFC 9449
proofs). Names load on first use, so importing :mod:`mcpkit.auth` is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpkit._lazy import load_export

if TYPE_CHECKING:
    from mcpkit.auth.api_keys import APIKey, APIKeyVerifier, hash_api_key
    from mcpkit.auth.as_store import AuthStore, MemoryAuthStore, SQLiteAuthStore
    from mcpkit.auth.as_store_redis import RedisAuthStore
    from mcpkit.auth.authorization_server import AuthorizationRequest, AuthorizationServer
    from mcpkit.auth.cimd import ClientMetadataDocuments, ClientMetadataError
    from mcpkit.auth.client import (
        AuthorizationHandler,
        AuthorizationResponse,
        OAuthClientAuth,
        headless_authorization_handler,
    )
    from mcpkit.auth.dpop_verifier import DPoPVerifier, MemoryReplayCache, ReplayCache
    from mcpkit.auth.errors import (
        AuthorizationServerMismatchError,
        IssuerMismatchError,
        OAuthError,
        ResourceMismatchError,
    )
    from mcpkit.auth.introspection import IntrospectionVerifier
    from mcpkit.auth.jwks import RemoteJWKS, StaticKeys
    from mcpkit.auth.jwt_verifier import JWTVerifier
    from mcpkit.auth.oauth_proxy import OAuthProxy, UpstreamError
    from mcpkit.auth.presets import (
        Auth0Provider,
        CognitoProvider,
        EntraIDProvider,
        GitHubProvider,
        GoogleProvider,
        KeycloakProvider,
        OIDCProvider,
        OktaProvider,
        WorkOSProvider,
    )
    from mcpkit.auth.proxy_store import (
        MemoryProxyStore,
        ProxyStore,
        RedisProxyStore,
        SQLiteProxyStore,
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
    from mcpkit.auth.verification import (
        InvalidDPoPProofError,
        InvalidTokenError,
        UseDPoPNonceError,
        VerifierUnavailableError,
    )

_WHERE = {
    "APIKey": "api_keys",
    "APIKeyVerifier": "api_keys",
    "hash_api_key": "api_keys",
    "AuthStore": "as_store",
    "MemoryAuthStore": "as_store",
    "SQLiteAuthStore": "as_store",
    "RedisAuthStore": "as_store_redis",
    "ClientMetadataDocuments": "cimd",
    "ClientMetadataError": "cimd",
    "AuthorizationRequest": "authorization_server",
    "AuthorizationServer": "authorization_server",
    "AuthorizationHandler": "client",
    "AuthorizationResponse": "client",
    "OAuthClientAuth": "client",
    "headless_authorization_handler": "client",
    "DPoPVerifier": "dpop_verifier",
    "MemoryReplayCache": "dpop_verifier",
    "ReplayCache": "dpop_verifier",
    "AuthorizationServerMismatchError": "errors",
    "IssuerMismatchError": "errors",
    "OAuthError": "errors",
    "ResourceMismatchError": "errors",
    "IntrospectionVerifier": "introspection",
    "RemoteJWKS": "jwks",
    "StaticKeys": "jwks",
    "JWTVerifier": "jwt_verifier",
    "OAuthProxy": "oauth_proxy",
    "UpstreamError": "oauth_proxy",
    "Auth0Provider": "presets",
    "CognitoProvider": "presets",
    "EntraIDProvider": "presets",
    "GitHubProvider": "presets",
    "GoogleProvider": "presets",
    "KeycloakProvider": "presets",
    "OIDCProvider": "presets",
    "OktaProvider": "presets",
    "WorkOSProvider": "presets",
    "MemoryProxyStore": "proxy_store",
    "ProxyStore": "proxy_store",
    "RedisProxyStore": "proxy_store",
    "SQLiteProxyStore": "proxy_store",
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
    "InvalidDPoPProofError": "verification",
    "InvalidTokenError": "verification",
    "UseDPoPNonceError": "verification",
    "VerifierUnavailableError": "verification",
}

__all__ = [
    "APIKey",
    "APIKeyVerifier",
    "AccessToken",
    "Auth0Provider",
    "AuthStore",
    "AuthorizationHandler",
    "AuthorizationRequest",
    "AuthorizationResponse",
    "AuthorizationServer",
    "AuthorizationServerMismatchError",
    "ClientInfo",
    "ClientMetadata",
    "ClientMetadataDocuments",
    "ClientMetadataError",
    "CognitoProvider",
    "DPoPVerifier",
    "EntraIDProvider",
    "GitHubProvider",
    "GoogleProvider",
    "IntrospectionVerifier",
    "InvalidDPoPProofError",
    "InvalidTokenError",
    "IssuerMismatchError",
    "JWTVerifier",
    "KeycloakProvider",
    "MemoryAuthStore",
    "MemoryProxyStore",
    "MemoryReplayCache",
    "MemoryTokenStore",
    "OAuthClientAuth",
    "OAuthError",
    "OAuthProxy",
    "OAuthToken",
    "OIDCProvider",
    "OktaProvider",
    "PrivateKey",
    "ProxyStore",
    "RedisAuthStore",
    "RedisProxyStore",
    "RemoteJWKS",
    "ReplayCache",
    "ResourceMismatchError",
    "ResourceServer",
    "SQLiteAuthStore",
    "SQLiteProxyStore",
    "SQLiteTokenStore",
    "StaticKeys",
    "TokenStore",
    "TokenVerifier",
    "UpstreamError",
    "UseDPoPNonceError",
    "VerifierUnavailableError",
    "WorkOSProvider",
    "hash_api_key",
    "headless_authorization_handler",
]


def __getattr__(name: str) -> Any:
    return load_export(__name__, name, _WHERE, globals(), "mcpkit.auth.")
