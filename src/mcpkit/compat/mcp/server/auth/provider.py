"""``mcp.server.auth.provider`` on mcpkit: the authorization server provider protocol (what
a provider implements: clients, authorization codes, refresh and access tokens) and the
objects and errors it exchanges with the endpoints serving it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, Protocol, TypeVar
from urllib.parse import parse_qs, urlencode, urlparse, urlunparse

from pydantic import AnyUrl, BaseModel

from mcpkit.compat.mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = [
    "AccessToken",
    "AuthorizationCode",
    "AuthorizationParams",
    "AuthorizeError",
    "IdentityAssertionParams",
    "OAuthAuthorizationServerProvider",
    "ProviderTokenVerifier",
    "RefreshToken",
    "RegistrationError",
    "TokenError",
    "TokenVerifier",
    "construct_redirect_uri",
]


class AuthorizationParams(BaseModel):
    """A validated authorization request."""

    state: str | None
    scopes: list[str] | None
    code_challenge: str
    redirect_uri: AnyUrl
    redirect_uri_provided_explicitly: bool
    resource: str | None = None


class AuthorizationCode(BaseModel):
    """An issued authorization code and what it grants."""

    code: str
    scopes: list[str]
    expires_at: float
    client_id: str
    code_challenge: str
    redirect_uri: AnyUrl
    redirect_uri_provided_explicitly: bool
    resource: str | None = None
    subject: str | None = None


class RefreshToken(BaseModel):
    """An issued refresh token."""

    token: str
    client_id: str
    scopes: list[str]
    expires_at: int | None = None
    resource: str | None = None
    subject: str | None = None


class IdentityAssertionParams(BaseModel):
    """A SEP-990 identity-assertion request (the RFC 7523 jwt-bearer grant): the ID-JAG
    presented, and the scopes and resource the client asked for."""

    assertion: str
    scopes: list[str] | None = None
    resource: str | None = None


class AccessToken(BaseModel):
    """An issued access token."""

    token: str
    client_id: str
    scopes: list[str]
    expires_at: int | None = None
    resource: str | None = None
    subject: str | None = None
    claims: dict[str, Any] | None = None


RegistrationErrorCode = Literal[
    "invalid_redirect_uri",
    "invalid_client_metadata",
    "invalid_software_statement",
    "unapproved_software_statement",
]
AuthorizationErrorCode = Literal[
    "invalid_request",
    "unauthorized_client",
    "access_denied",
    "unsupported_response_type",
    "invalid_scope",
    "server_error",
    "temporarily_unavailable",
    "invalid_target",
]
TokenErrorCode = Literal[
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
    "invalid_target",
]


@dataclass(frozen=True)
class RegistrationError(Exception):
    """A registration the provider refuses (answered 400 with this error)."""

    error: RegistrationErrorCode
    error_description: str | None = None


@dataclass(frozen=True)
class AuthorizeError(Exception):
    """An authorization the provider refuses (redirected back with this error)."""

    error: AuthorizationErrorCode
    error_description: str | None = None


@dataclass(frozen=True)
class TokenError(Exception):
    """A token request the provider refuses (answered with this error)."""

    error: TokenErrorCode
    error_description: str | None = None


class TokenVerifier(Protocol):
    """Anything that turns a bearer token into an :class:`AccessToken` (or None)."""

    async def verify_token(self, token: str) -> AccessToken | None: ...


CodeT = TypeVar("CodeT", bound=AuthorizationCode)
RefreshT = TypeVar("RefreshT", bound=RefreshToken)
AccessT = TypeVar("AccessT", bound=AccessToken)


class OAuthAuthorizationServerProvider(Protocol, Generic[CodeT, RefreshT, AccessT]):
    """What an authorization server's endpoints ask of its provider."""

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None: ...

    async def register_client(self, client_info: OAuthClientInformationFull) -> None: ...

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str: ...

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> CodeT | None: ...

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: CodeT
    ) -> OAuthToken: ...

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshT | None: ...

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshT, scopes: list[str]
    ) -> OAuthToken: ...

    async def load_access_token(self, token: str) -> AccessT | None: ...

    async def revoke_token(self, token: AccessT | RefreshT) -> None: ...

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        """An access token for a validated ID-JAG (``AuthSettings(identity_assertion_enabled=
        True)``); by default every such request is refused as an unsupported grant."""
        raise TokenError(
            error="unsupported_grant_type",
            error_description="The JWT bearer grant is not supported by this authorization server",
        )


class ProviderTokenVerifier:
    """A provider's access tokens as a token verifier (its ``load_access_token``)."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider

    async def verify_token(self, token: str) -> AccessToken | None:
        """The provider's record of ``token`` (None: unknown)."""
        found: AccessToken | None = await self.provider.load_access_token(token)
        return found


def construct_redirect_uri(redirect_uri_base: str, **params: str | None) -> str:
    """``redirect_uri_base`` with ``params`` (those not None) added to its query."""
    parsed = urlparse(redirect_uri_base)
    query = [(k, v) for k, vs in parse_qs(parsed.query).items() for v in vs]
    query.extend((k, v) for k, v in params.items() if v is not None)
    return urlunparse(parsed._replace(query=urlencode(query)))
