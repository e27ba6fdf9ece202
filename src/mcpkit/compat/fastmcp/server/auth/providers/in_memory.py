"""``fastmcp.server.auth.providers.in_memory`` on mcpkit: fastmcp's in-memory authorization
server (for tests and demos), served by mcpkit as any :class:`OAuthProvider` is.

It approves every authorization at once, issues opaque tokens (``test_auth_code_...``,
``test_access_token_...``, ``test_refresh_token_...``: an hour for access tokens, no expiry
for refresh tokens, five minutes for codes), rotates refresh tokens and revokes a token
with its counterpart, as fastmcp's does.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from pydantic import AnyHttpUrl

from mcpkit.compat.fastmcp.server.auth.auth import OAuthProvider
from mcpkit.compat.mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcpkit.compat.mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcpkit.compat.mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["InMemoryOAuthProvider"]

DEFAULT_AUTH_CODE_EXPIRY_SECONDS = 5 * 60
DEFAULT_ACCESS_TOKEN_EXPIRY_SECONDS = 60 * 60
DEFAULT_REFRESH_TOKEN_EXPIRY_SECONDS: int | None = None


class InMemoryOAuthProvider(OAuthProvider):
    """An authorization server keeping its clients, codes and tokens in memory."""

    def __init__(
        self,
        *,
        base_url: AnyHttpUrl | str | None = None,
        resource_base_url: AnyHttpUrl | str | None = None,
        issuer_url: AnyHttpUrl | str | None = None,
        service_documentation_url: AnyHttpUrl | str | None = None,
        client_registration_options: ClientRegistrationOptions | None = None,
        revocation_options: RevocationOptions | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url or "http://fastmcp.example.com",
            resource_base_url=resource_base_url,
            issuer_url=issuer_url,
            service_documentation_url=service_documentation_url,
            client_registration_options=client_registration_options,
            revocation_options=revocation_options,
            required_scopes=required_scopes,
        )
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.auth_codes: dict[str, AuthorizationCode] = {}
        self.access_tokens: dict[str, AccessToken] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self._access_to_refresh_map: dict[str, str] = {}
        self._refresh_to_access_map: dict[str, str] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        """The registered client ``client_id``."""
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        """Keep ``client_info`` (a known client ID is registered again)."""
        options = self.client_registration_options
        if client_info.scope is not None and options and options.valid_scopes is not None:
            invalid = set(client_info.scope.split()) - set(options.valid_scopes)
            if invalid:
                raise ValueError(f"Requested scopes are not valid: {', '.join(invalid)}")
        self.clients[client_info.client_id] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        """Approve at once: the redirect carrying a new code (scopes narrowed to the
        client's registered ones)."""
        if client.client_id not in self.clients:
            raise AuthorizeError(
                "unauthorized_client", f"Client '{client.client_id}' not registered."
            )
        code = f"test_auth_code_{secrets.token_hex(16)}"
        scopes = params.scopes if params.scopes is not None else []
        if client.scope:
            allowed = set(client.scope.split())
            scopes = [s for s in scopes if s in allowed]
        self.auth_codes[code] = AuthorizationCode(
            code=code,
            client_id=client.client_id,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            scopes=scopes,
            expires_at=time.time() + DEFAULT_AUTH_CODE_EXPIRY_SECONDS,
            code_challenge=params.code_challenge,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        """The client's unexpired code."""
        code = self.auth_codes.get(authorization_code)
        if code is None or code.client_id != client.client_id:
            return None
        if code.expires_at < time.time():
            del self.auth_codes[authorization_code]
            return None
        return code

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        """Consume the code: a new access and refresh token pair."""
        if authorization_code.code not in self.auth_codes:
            raise TokenError("invalid_grant", "Authorization code not found or already used.")
        del self.auth_codes[authorization_code.code]
        return self._issue(client.client_id, authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        """The client's unexpired refresh token."""
        found = self.refresh_tokens.get(refresh_token)
        if found is None or found.client_id != client.client_id:
            return None
        if found.expires_at is not None and found.expires_at < time.time():
            self._revoke_internal(refresh_token_str=found.token)
            return None
        return found

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        """Rotate: the pair of ``refresh_token`` revoked, a new one for ``scopes``."""
        if not set(scopes) <= set(refresh_token.scopes):
            raise TokenError(
                "invalid_scope", "Requested scopes exceed those authorized by the refresh token."
            )
        self._revoke_internal(refresh_token_str=refresh_token.token)
        return self._issue(client.client_id, scopes)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access = f"test_access_token_{secrets.token_hex(32)}"
        refresh = f"test_refresh_token_{secrets.token_hex(32)}"
        refresh_expiry = DEFAULT_REFRESH_TOKEN_EXPIRY_SECONDS
        self.access_tokens[access] = AccessToken(
            token=access,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(time.time() + DEFAULT_ACCESS_TOKEN_EXPIRY_SECONDS),
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh,
            client_id=client_id,
            scopes=scopes,
            expires_at=None if refresh_expiry is None else int(time.time() + refresh_expiry),
        )
        self._access_to_refresh_map[access] = refresh
        self._refresh_to_access_map[refresh] = access
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=DEFAULT_ACCESS_TOKEN_EXPIRY_SECONDS,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )

    async def load_access_token(self, token: str) -> AccessToken | None:
        """The unexpired access token ``token``."""
        found = self.access_tokens.get(token)
        if found is None:
            return None
        if found.expires_at is not None and found.expires_at < time.time():
            self._revoke_internal(access_token_str=found.token)
            return None
        return found

    def _revoke_internal(
        self, access_token_str: str | None = None, refresh_token_str: str | None = None
    ) -> None:
        """Forget a token and its counterpart."""
        if access_token_str:
            self.access_tokens.pop(access_token_str, None)
            paired = self._access_to_refresh_map.pop(access_token_str, None)
            if paired:
                self.refresh_tokens.pop(paired, None)
                self._refresh_to_access_map.pop(paired, None)
        if refresh_token_str:
            self.refresh_tokens.pop(refresh_token_str, None)
            paired = self._refresh_to_access_map.pop(refresh_token_str, None)
            if paired:
                self.access_tokens.pop(paired, None)
                self._access_to_refresh_map.pop(paired, None)

    async def revoke_token(self, token: Any) -> None:
        """Revoke an access or refresh token and its counterpart."""
        if isinstance(token, AccessToken):
            self._revoke_internal(access_token_str=token.token)
        elif isinstance(token, RefreshToken):
            self._revoke_internal(refresh_token_str=token.token)
