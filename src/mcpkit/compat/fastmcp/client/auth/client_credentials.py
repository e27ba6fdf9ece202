"""``fastmcp.client.auth.client_credentials`` on mcpkit: fastmcp's machine-to-machine
providers on :class:`mcpkit.auth.OAuthClientAuth` with ``grant_type="client_credentials"``.

:class:`ClientCredentialsOAuthProvider` authenticates with a client ID and secret
(``client_secret_basic`` or ``client_secret_post``), :class:`PrivateKeyJWTOAuthProvider` with
an RFC 7523 ``private_key_jwt`` client assertion made by its ``assertion_provider`` (from
:meth:`SignedJWTParameters.create_assertion_provider`, :func:`static_assertion_provider`, or
a workload identity's). On the first 401 the MCP server's protected resource metadata and its
authorization server's metadata are discovered and the token endpoint is sent the request
fastmcp 4.x sends: ``grant_type``, ``resource`` and ``scope`` (the caller's ``scopes``, else
those the server names), the client authenticated without a ``client_id`` parameter where
its credentials name it. Without ``mcp_url`` a provider is bound to the URL of the
transport it is given to. ``issuer`` binds the credentials to that authorization server.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, Literal

import httpx
from pydantic import AnyHttpUrl, BaseModel, Field

from mcpkit.auth import OAuthClientAuth
from mcpkit.auth.discovery import Challenge
from mcpkit.compat.fastmcp.client.auth.oauth import _KeyValueTokenStore

__all__ = [
    "ClientCredentialsOAuthProvider",
    "PrivateKeyJWTOAuthProvider",
    "SignedJWTParameters",
    "static_assertion_provider",
]

#: An assertion provider: the audience (the authorization server's issuer) -> a JWT.
AssertionProvider = Callable[[str], Awaitable[str]]


def static_assertion_provider(token: str) -> AssertionProvider:
    """An assertion provider returning ``token`` (a pre-built JWT) whatever the audience."""

    async def provider(audience: str) -> str:
        return token

    return provider


class SignedJWTParameters(BaseModel):
    """What a locally signed client assertion holds: ``iss``, ``sub``, the PEM
    ``signing_key`` and its algorithm, the lifetime and any additional claims."""

    issuer: str = Field(description="Issuer for JWT assertions (typically client_id).")
    subject: str = Field(description="Subject identifier for JWT assertions (typically client_id).")
    signing_key: str = Field(description="Private key for JWT signing (PEM format).")
    signing_algorithm: str = Field(default="RS256", description="Algorithm for signing.")
    lifetime_seconds: int = Field(default=300, description="Lifetime of generated JWT.")
    additional_claims: dict[str, Any] | None = Field(default=None, description="Extra claims.")

    def create_assertion_provider(self) -> AssertionProvider:
        """An assertion provider signing a fresh JWT per token request (``aud``: the
        audience it is given; a unique ``jti``)."""
        from joserfc import jwt
        from joserfc.jwk import ECKey, OctKey, OKPKey, RSAKey

        family = self.signing_algorithm[:2]
        key_class: Any = {"ES": ECKey, "RS": RSAKey, "PS": RSAKey, "HS": OctKey}.get(family, OKPKey)
        key = key_class.import_key(self.signing_key)

        async def provider(audience: str) -> str:
            now = int(time.time())
            claims: dict[str, Any] = {
                "iss": self.issuer,
                "sub": self.subject,
                "aud": audience,
                "exp": now + self.lifetime_seconds,
                "iat": now,
                "jti": str(uuid.uuid4()),
            }
            claims.update(self.additional_claims or {})
            header = {"alg": self.signing_algorithm, "typ": "JWT"}
            return str(jwt.encode(header, claims, key, algorithms=[self.signing_algorithm]))

        return provider


class _ClientCredentials(OAuthClientAuth):
    """The client credentials grant asking for the caller's scopes on first authorization
    (a step-up asks for the union, as mcpkit's client does)."""

    def __init__(self, url: str, *, scopes: str | None, **kwargs: Any) -> None:
        super().__init__(url, grant_type="client_credentials", **kwargs)
        self.explicit_scopes = scopes.split() if scopes else None

    def _select_scopes(self, challenge: Challenge) -> list[str] | None:
        if self.explicit_scopes is not None and self._scopes is None:
            return list(self.explicit_scopes)
        return super()._select_scopes(challenge)


def _scope_text(scopes: str | list[str] | None) -> str | None:
    return " ".join(scopes) if isinstance(scopes, list) else scopes


class _BoundProvider(httpx.Auth):
    """A provider bound to an MCP server's URL (given, or the transport's)."""

    requires_request_body = False
    requires_response_body = False

    _inner: OAuthClientAuth | None = None

    def _make(self, mcp_url: str) -> OAuthClientAuth:
        raise NotImplementedError

    def _bind(self, mcp_url: str) -> None:
        """Bind to the MCP server at ``mcp_url`` (done by the transport when not given)."""
        if self._inner is None:
            self._inner = self._make(mcp_url.rstrip("/"))

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """mcpkit's client credentials flow for ``request``."""
        if self._inner is None:
            raise RuntimeError(
                f"{type(self).__name__} has no server URL. Either pass mcp_url to the "
                "constructor or use it with Client(auth=...), which provides the URL "
                "automatically from the transport."
            )
        flow = self._inner.async_auth_flow(request)
        response = yield await flow.__anext__()
        while True:
            try:
                request = await flow.asend(response)
            except StopAsyncIteration:
                return
            response = yield request


class ClientCredentialsOAuthProvider(_BoundProvider):
    """fastmcp's ``client_credentials`` provider with a client ID and secret (see the
    module docstring)."""

    def __init__(
        self,
        mcp_url: str | None = None,
        *,
        client_id: str,
        client_secret: str,
        scopes: str | list[str] | None = None,
        token_endpoint_auth_method: Literal[
            "client_secret_basic", "client_secret_post"
        ] = "client_secret_basic",
        issuer: str | None = None,
        token_storage: Any = None,
    ) -> None:
        self._client_id = client_id
        self._client_secret = client_secret
        self._scopes = _scope_text(scopes)
        self._method = token_endpoint_auth_method
        self._issuer = issuer
        self._token_storage = token_storage
        if mcp_url is not None:
            self._bind(mcp_url)

    def _make(self, mcp_url: str) -> OAuthClientAuth:
        return _ClientCredentials(
            mcp_url,
            scopes=self._scopes,
            client_id=self._client_id,
            client_secret=self._client_secret,
            client_issuer=self._issuer,
            token_endpoint_auth_method=self._method,
            send_client_id=False,
            store=_KeyValueTokenStore(self._token_storage) if self._token_storage else None,
            allow_insecure_http=True,
        )


class PrivateKeyJWTOAuthProvider(_BoundProvider):
    """fastmcp's ``client_credentials`` provider authenticating with ``private_key_jwt``
    client assertions from ``assertion_provider`` (see the module docstring)."""

    def __init__(
        self,
        mcp_url: str | None = None,
        *,
        client_id: str,
        assertion_provider: AssertionProvider,
        scopes: str | list[str] | None = None,
        issuer: str | None = None,
        token_storage: Any = None,
    ) -> None:
        self._client_id = client_id
        self._assertion_provider = assertion_provider
        self._scopes = _scope_text(scopes)
        self._issuer = issuer
        self._token_storage = token_storage
        if mcp_url is not None:
            self._bind(mcp_url)

    async def _assertion(self, issuer: str) -> str:
        # The audience as the SDK writes the issuer (a URL without a path gets its "/").
        return await self._assertion_provider(str(AnyHttpUrl(issuer)))

    def _make(self, mcp_url: str) -> OAuthClientAuth:
        return _ClientCredentials(
            mcp_url,
            scopes=self._scopes,
            client_id=self._client_id,
            client_issuer=self._issuer,
            token_endpoint_auth_method="private_key_jwt",
            client_assertion=self._assertion,
            send_client_id=False,
            store=_KeyValueTokenStore(self._token_storage) if self._token_storage else None,
            allow_insecure_http=True,
        )
