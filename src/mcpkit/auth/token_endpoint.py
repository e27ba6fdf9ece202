"""Requests to an authorization server's token endpoint, and the DPoP key they bind to.

:class:`TokenEndpoint` sends one grant's form (authorization code, refresh, client
credentials, JWT bearer) with the client's authentication (``client_secret_basic``/``_post``,
``private_key_jwt``, or none) and, where DPoP applies (RFC 9449), a proof signed with this
client's key: again once with the server's nonce when it asks for one, and again once on a
new connection when a kept-alive one was closed under the request. The answer becomes an
:class:`~mcpkit.auth.tokens.OAuthToken` (``Bearer`` or ``DPoP``), or an
:class:`~mcpkit.auth.errors.OAuthError` that says what the server answered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from mcpkit.auth.discovery import AuthorizationServerMetadata
from mcpkit.auth.dpop import DPoPKey
from mcpkit.auth.errors import OAuthError
from mcpkit.auth.registration import (
    PrivateKey,
    apply_client_auth,
    choose_auth_method,
    token_lifetime,
)
from mcpkit.auth.tokens import ClientInfo, OAuthToken
from mcpkit.fetch import Fetcher

__all__ = ["ClientAssertionProvider", "TokenEndpoint"]

#: Makes a ``private_key_jwt`` client assertion for an audience (the authorization server's
#: issuer): a key held elsewhere, or a workload identity's token.
ClientAssertionProvider = Callable[[str], Awaitable[str]]


class TokenEndpoint:
    """The token requests of one OAuth client. ``dpop``: True always, False never, None when
    the resource server challenged with the ``DPoP`` scheme (:attr:`dpop_challenged`) and the
    authorization server advertises ES256. ``private_key`` signs ``private_key_jwt`` client
    assertions, or ``client_assertion`` makes them; ``send_client_id=False`` leaves the
    ``client_id`` parameter out where the credentials name the client."""

    def __init__(
        self,
        *,
        dpop: bool | None = None,
        private_key: PrivateKey | None = None,
        client_assertion: ClientAssertionProvider | None = None,
        send_client_id: bool = True,
    ) -> None:
        self.dpop = dpop
        self.private_key = private_key
        self.client_assertion = client_assertion
        self.send_client_id = send_client_id
        #: The key DPoP proofs are signed with (made on first use).
        self.dpop_key: DPoPKey | None = None
        #: Whether the resource server has challenged with the ``DPoP`` scheme.
        self.dpop_challenged = False
        #: The authorization server's last DPoP nonce.
        self.nonce: str | None = None

    def dpop_for(self, meta: AuthorizationServerMetadata) -> DPoPKey | None:
        """The DPoP key to use with ``meta``'s token endpoint (None: plain bearer tokens)."""
        if self.dpop is False:
            return None
        algs = meta.get("dpop_signing_alg_values_supported")
        if self.dpop is None and not (
            self.dpop_challenged and isinstance(algs, list) and "ES256" in algs
        ):
            return None
        if self.dpop_key is None:
            self.dpop_key = DPoPKey()
        return self.dpop_key

    def auth_method(self, meta: AuthorizationServerMetadata, client: ClientInfo) -> str:
        """How ``client`` authenticates at ``meta``'s token endpoint."""
        if client.token_endpoint_auth_method:
            return client.token_endpoint_auth_method
        has_key = self.private_key is not None or self.client_assertion is not None
        return choose_auth_method(meta, has_secret=bool(client.client_secret), has_key=has_key)

    async def request(
        self,
        fetcher: Fetcher,
        meta: AuthorizationServerMetadata,
        client: ClientInfo,
        form: dict[str, str],
        *,
        requested_scope: str | None,
        resource: str,
    ) -> OAuthToken:
        """Send ``form`` to ``meta``'s token endpoint as ``client``; the token it issued
        (its scope, when the answer names none, is ``requested_scope``)."""
        endpoint = meta.token_endpoint
        assert endpoint is not None
        dpop = self.dpop_for(meta)
        nonce_retried = reconnected = False
        while True:
            body = dict(form)
            headers = {"accept": "application/json"}
            method = self.auth_method(meta, client)
            assertion = None
            if method == "private_key_jwt" and self.client_assertion is not None:
                assertion = await self.client_assertion(meta.issuer)
            apply_client_auth(
                body,
                headers,
                client,
                method,
                audience=meta.issuer,
                private_key=self.private_key,
                assertion=assertion,
                send_client_id=self.send_client_id,
            )
            if dpop is not None:
                headers["DPoP"] = dpop.proof("POST", endpoint, nonce=self.nonce)
            try:
                response = await fetcher.request(
                    "POST", endpoint, what="token endpoint", data=body, headers=headers
                )
            except (httpx.ReadError, httpx.RemoteProtocolError) as exc:
                # The server closed a kept-alive connection as the request went out on it (a
                # slow step between metadata and token requests outlives an idle timeout):
                # once more, on a new connection, with a fresh assertion and proof.
                if not reconnected:
                    reconnected = True
                    continue
                raise OAuthError(f"Token request to {endpoint} failed: {reason(exc)}") from exc
            except httpx.HTTPError as exc:
                raise OAuthError(f"Token request to {endpoint} failed: {reason(exc)}") from exc
            try:
                doc: Any = response.json()
            except ValueError:
                doc = None
            nonce = response.headers.get("dpop-nonce")
            if dpop is not None and nonce:
                self.nonce = nonce
                if (
                    not nonce_retried
                    and response.status_code == 400
                    and isinstance(doc, dict)
                    and doc.get("error") == "use_dpop_nonce"
                ):
                    nonce_retried = True
                    continue  # RFC 9449 section 8: again, with the server's nonce
            break
        return _token(endpoint, response.status_code, doc, dpop, meta, requested_scope, resource)


def _token(
    endpoint: str,
    status: int,
    doc: Any,
    dpop: DPoPKey | None,
    meta: AuthorizationServerMetadata,
    requested_scope: str | None,
    resource: str,
) -> OAuthToken:
    """The token a token endpoint answered (OAuthError for an error or a malformed answer)."""
    if status != 200 or not isinstance(doc, dict):
        error = doc.get("error") if isinstance(doc, dict) else None
        detail = doc.get("error_description") if isinstance(doc, dict) else None
        raise OAuthError(
            f"Token request to {endpoint} failed: HTTP {status}"
            + (f" {error}" if error else "")
            + (f" ({detail})" if detail else ""),
            error=error if isinstance(error, str) else None,
        )
    access = doc.get("access_token")
    token_type = doc.get("token_type")
    if not isinstance(access, str) or not access:
        raise OAuthError(f"The token response from {endpoint} has no access_token")
    kind = token_type.lower() if isinstance(token_type, str) else None
    if kind == "dpop" and dpop is not None:
        token_type = "DPoP"
    elif kind == "bearer":
        token_type = "Bearer"
    else:
        raise OAuthError(f"Unsupported token type {token_type!r} from {endpoint}")
    refresh = doc.get("refresh_token")
    scope = doc.get("scope")
    return OAuthToken(
        access_token=access,
        token_type=token_type,
        expires_at=token_lifetime(doc),
        refresh_token=refresh if isinstance(refresh, str) and refresh else None,
        scope=scope if isinstance(scope, str) else requested_scope,
        issuer=meta.issuer,
        resource=resource,
    )


def reason(exc: httpx.HTTPError) -> str:
    """An HTTP failure for a message: its text, or its type (a timeout's text is empty)."""
    return str(exc) or type(exc).__name__
