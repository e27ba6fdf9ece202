"""``mcp.client.auth.oauth2`` on mcpkit: the SDK's authorization code client,
:class:`OAuthClientProvider`, on :class:`mcpkit.auth.OAuthClientAuth`.

The SDK's ``redirect_handler`` (given the authorization URL) and ``callback_handler``
(returning the redirect's ``AuthorizationCodeResult``, or 1.x's ``(code, state)``) become
mcpkit's ``authorization_handler``; mcpkit's client does the rest as the SDK's does: the
protected resource metadata (RFC 9728, the challenge's ``resource_metadata`` first), the
authorization server's metadata (for a server that publishes no resource metadata, the
2025-03-26 revision's: its origin's; each metadata request naming the latest revision in an
``MCP-Protocol-Version`` header), dynamic registration with the SDK's own registration
document (its ``scope`` the one the flow selected: the challenge's, else the resource's
``scopes_supported``, else the authorization server's) or a client ID metadata document
(``client_metadata_url``), PKCE S256 with ``state`` checked, the code exchanged, the token
refreshed when it expires. Tokens and the registration live in the SDK's ``TokenStorage``.
A refused registration raises ``OAuthRegistrationError``, a refused token request
``OAuthTokenError``, any other refusal (a ``state`` that does not match, another issuer or
resource) ``OAuthFlowError``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from mcpkit.auth.authorization_code import AuthorizationResponse
from mcpkit.auth.client import OAuthClientAuth, same_issuer
from mcpkit.auth.discovery import AuthorizationServerMetadata, Challenge
from mcpkit.auth.errors import OAuthError
from mcpkit.auth.registration import ClientMetadata
from mcpkit.auth.tokens import ClientInfo, OAuthToken
from mcpkit.compat.fastmcp.client.auth.client_credentials import _BoundProvider
from mcpkit.compat.mcp.client.auth import PKCEParameters, TokenStorage
from mcpkit.compat.mcp.client.auth._storage import METADATA_HEADERS, Httpx2Auth, SdkTokenStore
from mcpkit.compat.mcp.client.auth.exceptions import (
    OAuthFlowError,
    OAuthRegistrationError,
    OAuthTokenError,
)
from mcpkit.compat.mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
)

__all__ = ["OAuthClientProvider", "PKCEParameters", "TokenStorage"]

#: What a registration this flow completed may ask for at the token endpoint (the SDK's).
_USABLE_METHODS = (None, "none", "client_secret_post", "client_secret_basic")


class _SdkRegistration(ClientMetadata):
    """The SDK's client metadata, registered as the SDK registers it: its own JSON."""

    def __init__(self, metadata: OAuthClientMetadata) -> None:
        super().__init__(
            client_name=metadata.client_name or "mcpkit",
            redirect_uris=[str(uri) for uri in metadata.redirect_uris or []],
            grant_types=list(metadata.grant_types),
            response_types=list(metadata.response_types),
            token_endpoint_auth_method=metadata.token_endpoint_auth_method,
            scope=metadata.scope,
        )
        self.sdk = metadata

    def to_wire(self, auth_method: str | None) -> dict[str, Any]:
        """The SDK's registration body (no method chosen for it)."""
        return self.sdk.model_dump(by_alias=True, mode="json", exclude_none=True)


class _SdkStore(SdkTokenStore):
    """The SDK's ``TokenStorage``: the token, and the registration (bound to its issuer)."""

    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The stored registration, when it belongs to ``issuer`` (or names none)."""
        info = await self.storage.get_client_info()
        if info is None or (info.issuer is not None and not same_issuer(info.issuer, issuer)):
            return None
        return ClientInfo(
            info.client_id,
            info.client_secret,
            info.token_endpoint_auth_method,
            issuer,
            client_secret_expires_at=(
                float(info.client_secret_expires_at) if info.client_secret_expires_at else None
            ),
            metadata=info.model_dump(mode="json", exclude_none=True),
        )

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Hand a new registration to the storage as the SDK's record."""
        if client is None:
            return
        record = {**client.metadata, "client_id": client.client_id, "issuer": issuer}
        if client.client_secret is not None:
            record["client_secret"] = client.client_secret
        if client.token_endpoint_auth_method is not None:
            record["token_endpoint_auth_method"] = client.token_endpoint_auth_method
        await self.storage.set_client_info(OAuthClientInformationFull.model_validate(record))


class _AuthorizationCode(OAuthClientAuth):
    """mcpkit's authorization code client with the SDK's scope selection, registration
    document and errors."""

    client_metadata: _SdkRegistration

    def _select_scopes(self, challenge: Challenge) -> list[str] | None:
        """mcpkit's choice, else (as the SDK) the authorization server's ``scopes_supported``."""
        chosen = super()._select_scopes(challenge)
        if chosen is None and self._meta is not None and self._meta.scopes_supported:
            chosen = list(self._meta.scopes_supported)
        return chosen

    async def _authorize(self, http: httpx.AsyncClient, scopes: list[str] | None) -> None:
        meta = self._meta
        wanted = self._offline_access(meta, scopes) if meta is not None else scopes
        # The SDK registers with the scope it is about to ask for.
        self.client_metadata.sdk.scope = " ".join(wanted) if wanted else None
        await super()._authorize(http, scopes)

    async def _ensure_client(
        self, http: httpx.AsyncClient, meta: AuthorizationServerMetadata
    ) -> ClientInfo:
        try:
            client = await super()._ensure_client(http, meta)
        except OAuthError as exc:
            raise OAuthRegistrationError(str(exc)) from exc
        if client.source == "dcr":
            method = client.token_endpoint_auth_method
            if method not in _USABLE_METHODS:
                raise OAuthRegistrationError(
                    "Authorization server registered the client with unsupported "
                    f"token_endpoint_auth_method {method!r}"
                )
            if method in ("client_secret_post", "client_secret_basic") and not (
                client.client_secret
            ):
                raise OAuthRegistrationError(
                    f"Authorization server registered the client for {method!r} but issued "
                    "no client_secret"
                )
        return client

    async def _token_request(
        self,
        http: httpx.AsyncClient,
        meta: AuthorizationServerMetadata,
        client: ClientInfo,
        form: dict[str, str],
        requested_scope: str | None,
    ) -> OAuthToken:
        try:
            return await super()._token_request(http, meta, client, form, requested_scope)
        except OAuthError as exc:
            if form.get("grant_type") == "refresh_token":
                raise  # a refused refresh authorizes again, as the SDK's does
            raise OAuthTokenError(f"Token exchange failed: {exc}") from exc


def _authorization_handler(
    redirect_handler: Callable[[str], Awaitable[None]] | None,
    callback_handler: Callable[[], Awaitable[Any]] | None,
) -> Callable[[str], Awaitable[AuthorizationResponse]]:
    """mcpkit's ``authorization_handler`` from the SDK's two handlers."""

    async def handle(url: str) -> AuthorizationResponse:
        if redirect_handler is None:
            raise OAuthFlowError("No redirect handler provided for authorization code grant")
        if callback_handler is None:
            raise OAuthFlowError("No callback handler provided for authorization code grant")
        await redirect_handler(url)
        result = await callback_handler()
        if isinstance(result, tuple):  # 1.x: (code, state)
            code, state = result
            return AuthorizationResponse(code or "", state)
        if isinstance(result, AuthorizationCodeResult) or hasattr(result, "code"):
            return AuthorizationResponse(
                result.code or "", result.state, getattr(result, "iss", None)
            )
        raise OAuthFlowError(f"The callback handler returned {type(result).__name__}")

    return handle


def _valid_client_metadata_url(url: str) -> bool:
    """An HTTPS URL with a path other than ``/`` (the SDK's rule)."""
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.netloc) and parts.path not in ("", "/")


class OAuthClientProvider(_BoundProvider, Httpx2Auth):  # type: ignore[misc]
    """The SDK's authorization code client with PKCE (``httpx2.AsyncClient(auth=...)``).

    ``timeout`` (1.x; how long the handlers may take) is accepted.
    ``validate_resource_url`` is not provided: mcpkit checks the resource as RFC 8707 says.
    """

    def __init__(
        self,
        server_url: str,
        client_metadata: OAuthClientMetadata,
        storage: TokenStorage,
        redirect_handler: Callable[[str], Awaitable[None]] | None = None,
        callback_handler: Callable[[], Awaitable[Any]] | None = None,
        client_metadata_url: str | float | None = None,
        validate_resource_url: Callable[[str, str | None], Awaitable[None]] | None = None,
        *,
        timeout: float = 300.0,
    ) -> None:
        if isinstance(client_metadata_url, (int, float)):  # 1.x's positional ``timeout``
            timeout, client_metadata_url = float(client_metadata_url), None
        if client_metadata_url is not None and not _valid_client_metadata_url(client_metadata_url):
            raise ValueError(
                "client_metadata_url must be a valid HTTPS URL with a non-root pathname, "
                f"got: {client_metadata_url}"
            )
        if validate_resource_url is not None:
            raise NotImplementedError(
                "validate_resource_url is not provided on mcpkit: the protected resource "
                "metadata's resource is checked as RFC 8707 says"
            )
        self.timeout = timeout
        self.storage = storage
        self._inner = _AuthorizationCode(
            server_url,
            authorization_handler=_authorization_handler(redirect_handler, callback_handler),
            client_metadata=_SdkRegistration(client_metadata),
            client_metadata_url=client_metadata_url,
            store=_SdkStore(storage),
            allow_insecure_http=True,
            legacy_discovery=True,
            metadata_headers=METADATA_HEADERS,
        )

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """mcpkit's flow for ``request``; its refusals raised as the SDK's errors."""
        flow = super().async_auth_flow(request)
        try:
            response = yield await flow.__anext__()
            while True:
                try:
                    request = await flow.asend(response)
                except StopAsyncIteration:
                    return
                response = yield request
        except OAuthError as exc:
            raise OAuthFlowError(str(exc)) from exc
