"""``mcp.client.auth.extensions.identity_assertion`` on mcpkit: the SDK's SEP-990 client
(``IdentityAssertionOAuthProvider``), presenting an ID-JAG from the enterprise identity
provider to the MCP server's authorization server with the RFC 7523 jwt-bearer grant.

As the SDK's, the authorization server is configuration: its metadata is read from the
configured ``issuer``'s well-known documents (mcpkit's discovery order, the document's
``issuer`` checked) and the MCP server is never asked which server to use; the token
endpoint must be on the issuer's origin. On a 401 (or a 403 ``insufficient_scope``, asking
for the union of scopes) the ``assertion_provider(issuer, resource)`` is asked for a fresh
ID-JAG and the token endpoint is sent ``grant_type``, ``assertion``, ``client_id``,
``resource`` and ``scope``, the client authenticated by ``client_secret_post`` (default) or
``client_secret_basic``. The requests go through the HTTP client the provider is given to;
the token is handed to ``storage``. A refused token request raises ``OAuthTokenError``.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, Literal
from urllib.parse import quote

import httpx

from mcpkit.auth.client import same_issuer
from mcpkit.auth.discovery import as_metadata_urls, bearer_challenge, origin_of
from mcpkit.compat.mcp.client.auth import TokenStorage
from mcpkit.compat.mcp.client.auth._storage import Httpx2Auth
from mcpkit.compat.mcp.client.auth.exceptions import OAuthFlowError, OAuthTokenError
from mcpkit.compat.mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthToken
from mcpkit.compat.mcp.shared.auth_utils import resource_url_from_server_url
from mcpkit.compat.mcp.types.version import LATEST_PROTOCOL_VERSION

__all__ = ["IdentityAssertionOAuthProvider"]

#: The metadata requests' header, as the SDK sends it (the latest revision).
_METADATA_HEADERS = {"mcp-protocol-version": LATEST_PROTOCOL_VERSION}

#: The ID-JAG source: (the configured issuer, the MCP server's resource) -> the ID-JAG.
IdJagProvider = Callable[[str, str], Awaitable[str]]


def _union(first: str | None, second: str | None) -> str | None:
    scopes: list[str] = []
    for text in (first, second):
        scopes += [s for s in (text or "").split() if s not in scopes]
    return " ".join(scopes) or None


class IdentityAssertionOAuthProvider(httpx.Auth, Httpx2Auth):  # type: ignore[misc]
    """The SDK's ID-JAG (RFC 7523 jwt-bearer) provider against a configured authorization
    server (see the module docstring)."""

    requires_response_body = True

    def __init__(
        self,
        server_url: str,
        storage: TokenStorage,
        client_id: str,
        client_secret: str,
        issuer: str,
        assertion_provider: IdJagProvider,
        scope: str | None = None,
        token_endpoint_auth_method: Literal[
            "client_secret_basic", "client_secret_post"
        ] = "client_secret_post",
    ) -> None:
        if not client_secret:
            raise ValueError(
                "client_secret is required: this provider supports confidential clients only"
            )
        if not issuer:
            raise ValueError(
                "issuer is required: the authorization server is configuration, not discovery"
            )
        self._resource = resource_url_from_server_url(server_url)
        self._storage = storage
        self._client_id = client_id
        self._client_secret = client_secret
        self._issuer = issuer
        self._assertion_provider = assertion_provider
        self._scope = scope
        self._method = token_endpoint_auth_method
        self._token_endpoint: str | None = None
        self._tokens: OAuthToken | None = None
        self._expiry: float | None = None
        self._loaded = False
        self._lock = asyncio.Lock()

    def _token_request(self, scope: str | None, assertion: str) -> httpx.Request:
        assert self._token_endpoint is not None
        form = {
            "grant_type": JWT_BEARER_GRANT_TYPE,
            "assertion": assertion,
            "client_id": self._client_id,
            "resource": self._resource,
        }
        if scope:
            form["scope"] = scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if self._method == "client_secret_basic":
            pair = f"{quote(self._client_id, safe='')}:{quote(self._client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            form["client_secret"] = self._client_secret
        return httpx.Request("POST", self._token_endpoint, data=form, headers=headers)

    def _metadata(self, response: httpx.Response) -> dict[str, Any] | None:
        try:
            doc = response.json()
        except ValueError:
            return None
        return doc if isinstance(doc, dict) else None

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """Send ``request`` with the token; on a 401 (or a scope step-up) get one and retry."""
        async with self._lock:
            if not self._loaded:
                self._tokens = await self._storage.get_tokens()
                expires_in = self._tokens.expires_in if self._tokens else None
                self._expiry = time.time() + expires_in if expires_in is not None else None
                self._loaded = True
            if self._tokens and (self._expiry is None or time.time() <= self._expiry):
                request.headers["Authorization"] = f"Bearer {self._tokens.access_token}"
            response = yield request
            challenge = bearer_challenge(response)
            if response.status_code == 401:
                scope = self._scope
            elif (
                response.status_code == 403
                and challenge
                and challenge.error == "insufficient_scope"
            ):
                scope = _union(self._scope, challenge.scope)
            else:
                return
            if self._token_endpoint is None:
                for url in as_metadata_urls(self._issuer):
                    answer = yield httpx.Request("GET", url, headers=_METADATA_HEADERS)
                    await answer.aread()
                    if answer.status_code >= 500 or answer.status_code < 200:
                        break  # a server error stops the search; a 3xx or 4xx tries the next
                    doc = self._metadata(answer) if answer.status_code == 200 else None
                    if doc is None:
                        continue
                    if not same_issuer(str(doc.get("issuer")), self._issuer):
                        raise OAuthFlowError(
                            f"Authorization server metadata issuer mismatch: "
                            f"{doc.get('issuer')} != {self._issuer}"
                        )
                    endpoint = str(doc.get("token_endpoint"))
                    if origin_of(endpoint) != origin_of(self._issuer):
                        raise OAuthFlowError(
                            f"Token endpoint {endpoint} is not on the configured issuer "
                            f"origin {self._issuer}"
                        )
                    self._token_endpoint = endpoint
                    break
                if self._token_endpoint is None:
                    raise OAuthFlowError(
                        f"No authorization server metadata at configured issuer {self._issuer}"
                    )
            assertion = await self._assertion_provider(self._issuer, self._resource)
            answer = yield self._token_request(scope, assertion)
            body = (await answer.aread()).decode(errors="replace")
            if answer.status_code != 200:
                raise OAuthTokenError(f"Token exchange failed ({answer.status_code}): {body}")
            try:
                tokens = OAuthToken.model_validate_json(body)
            except ValueError as exc:
                raise OAuthTokenError(f"Invalid token response: {exc}") from exc
            if tokens.scope is None:
                tokens.scope = scope
            self._tokens = tokens
            self._expiry = time.time() + tokens.expires_in if tokens.expires_in else None
            await self._storage.set_tokens(tokens)
            request.headers["Authorization"] = f"Bearer {tokens.access_token}"
            yield request
