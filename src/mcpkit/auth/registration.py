"""Client identity: the client metadata, dynamic client registration (RFC 7591), and client
authentication at the token endpoint (``client_secret_basic``, ``client_secret_post``,
``private_key_jwt``, ``none``)."""

from __future__ import annotations

import base64
import ipaddress
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from mcpkit.auth.discovery import AuthorizationServerMetadata
from mcpkit.auth.errors import OAuthError
from mcpkit.auth.tokens import ClientInfo
from mcpkit.fetch import Fetcher, FetchPolicy

__all__ = [
    "ClientMetadata",
    "PrivateKey",
    "apply_client_auth",
    "choose_auth_method",
    "is_loopback_url",
    "is_secure_url",
    "register_client",
]

#: Methods a client with a secret can use (RFC 8414's default first).
_SECRET_METHODS = ("client_secret_basic", "client_secret_post")


def _secret_method(supported: list[str]) -> str | None:
    """The secret method the authorization server lists first (its order is its
    preference: the official SDK's servers list ``client_secret_post`` first)."""
    return next((m for m in supported if m in _SECRET_METHODS), None)


def is_secure_url(url: str) -> bool:
    """HTTPS, or HTTP to a loopback host (what OAuth 2.1 section 1.5 allows)."""
    scheme = urlsplit(url).scheme.lower()
    return scheme == "https" or (scheme == "http" and _is_loopback(url))


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host is ``localhost`` or a loopback address."""
    return _is_loopback(url)


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(slots=True)
class ClientMetadata:
    """What the client says about itself when it registers (RFC 7591 section 2).

    ``application_type`` (OpenID Connect Dynamic Client Registration; sent in every
    registration, as MCP requires) defaults to ``"native"`` when every redirect URI is loopback
    (``localhost``, ``127.0.0.1``, ``[::1]``) or a custom scheme, and ``"web"`` otherwise.
    ``extra`` holds further registration fields verbatim.
    """

    client_name: str = "mcpkit"
    redirect_uris: list[str] = field(default_factory=lambda: ["http://localhost:3000/callback"])
    grant_types: list[str] = field(default_factory=lambda: ["authorization_code", "refresh_token"])
    response_types: list[str] = field(default_factory=lambda: ["code"])
    token_endpoint_auth_method: str | None = None
    application_type: str | None = None
    scope: str | None = None
    client_uri: str | None = None
    logo_uri: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.application_type not in (None, "native", "web"):
            raise ValueError(
                f"application_type is 'native' or 'web', not {self.application_type!r}"
            )

    def metadata_document(self, client_id: str) -> dict[str, Any]:
        """The client ID metadata document to serve at ``client_id`` (an HTTPS URL with a
        path): the same fields, with ``client_id`` equal to the document's URL."""
        parts = urlsplit(client_id)
        if parts.scheme != "https" or parts.path in ("", "/"):
            raise ValueError("a client ID metadata document URL is https:// with a path")
        return {"client_id": client_id, **self.to_wire(self.token_endpoint_auth_method or "none")}

    def to_wire(self, auth_method: str | None) -> dict[str, Any]:
        app_type = self.application_type
        if app_type is None:
            native = all(
                _is_loopback(u) or urlsplit(u).scheme not in ("http", "https")
                for u in self.redirect_uris
            )
            app_type = "native" if native else "web"
        doc: dict[str, Any] = {
            "client_name": self.client_name,
            "redirect_uris": list(self.redirect_uris),
            "grant_types": list(self.grant_types),
            "response_types": list(self.response_types),
            "application_type": app_type,
        }
        method = self.token_endpoint_auth_method or auth_method
        if method:
            doc["token_endpoint_auth_method"] = method
        for name in ("scope", "client_uri", "logo_uri"):
            value = getattr(self, name)
            if value:
                doc[name] = value
        doc.update(self.extra)
        return doc


@dataclass(frozen=True, slots=True)
class PrivateKey:
    """A key for ``private_key_jwt`` client authentication (RFC 7523): PEM text, the JWS
    algorithm (ES256 by default) and an optional key id."""

    pem: str
    algorithm: str = "ES256"
    kid: str | None = None


def choose_auth_method(
    meta: AuthorizationServerMetadata, *, has_secret: bool, has_key: bool = False
) -> str:
    """The token endpoint authentication method for a client, from what the AS supports:
    the first secret method it lists (RFC 8414 default: ``client_secret_basic``)."""
    supported = meta.token_endpoint_auth_methods_supported
    if has_key and (supported is None or "private_key_jwt" in supported):
        return "private_key_jwt"
    if has_secret:
        if supported is None:
            return "client_secret_basic"
        method = _secret_method(supported)
        if method is not None:
            return method
        if "none" in supported:
            return "none"
        raise OAuthError(f"No supported token endpoint authentication method in {supported}")
    return "none"


async def register_client(
    http: httpx.AsyncClient | Fetcher,
    meta: AuthorizationServerMetadata,
    metadata: ClientMetadata,
    *,
    policy: FetchPolicy | None = None,
) -> ClientInfo:
    """Dynamic client registration at the AS's ``registration_endpoint``, fetched under
    ``policy`` (or the :class:`~mcpkit.fetch.Fetcher`'s; a plain client's reference origin is
    the issuer)."""
    endpoint = meta.registration_endpoint
    if endpoint is None:
        raise OAuthError(f"The authorization server {meta.issuer} offers no registration")
    supported = meta.token_endpoint_auth_methods_supported
    method: str | None
    if supported is None or "none" in supported:
        method = "none"  # a public client: the usual case for an MCP client
    else:
        method = _secret_method(supported) or supported[0]
    body = metadata.to_wire(method)
    fetcher = (
        http if isinstance(http, Fetcher) else Fetcher(http, policy or FetchPolicy(), meta.issuer)
    )
    try:
        response = await fetcher.request("POST", endpoint, what="registration endpoint", json=body)
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__  # a timeout's text is empty
        raise OAuthError(f"Client registration at {endpoint} failed: {reason}") from exc
    if response.status_code not in (200, 201):
        error = _error_code(response)
        hint = ""
        if error in ("invalid_redirect_uri", "invalid_client_metadata"):
            hint = (
                f" (registered as application_type {body['application_type']!r} with "
                f"redirect URIs {body['redirect_uris']}: the authorization server may require "
                "other redirect URIs for that application type)"
            )
        raise OAuthError(
            f"Client registration at {endpoint} failed: HTTP {response.status_code} "
            f"{response.text[:200]}{hint}",
            error=error,
        )
    try:
        doc = response.json()
    except ValueError as exc:
        raise OAuthError(f"Client registration at {endpoint} returned no JSON") from exc
    client_id = doc.get("client_id") if isinstance(doc, dict) else None
    if not isinstance(client_id, str) or not client_id:
        raise OAuthError(f"Client registration at {endpoint} returned no client_id")
    secret = doc.get("client_secret")
    expires = doc.get("client_secret_expires_at")
    returned_method = doc.get("token_endpoint_auth_method")
    return ClientInfo(
        client_id=client_id,
        client_secret=secret if isinstance(secret, str) and secret else None,
        token_endpoint_auth_method=(
            returned_method
            if isinstance(returned_method, str)
            else body.get("token_endpoint_auth_method")
        ),
        issuer=meta.issuer,
        client_secret_expires_at=float(expires) if isinstance(expires, (int, float)) else None,
        source="dcr",
        metadata=doc,
    )


def _error_code(response: httpx.Response) -> str | None:
    try:
        doc = response.json()
    except ValueError:
        return None
    err = doc.get("error") if isinstance(doc, dict) else None
    return err if isinstance(err, str) else None


def apply_client_auth(
    form: dict[str, str],
    headers: dict[str, str],
    client: ClientInfo,
    method: str,
    *,
    audience: str,
    private_key: PrivateKey | None = None,
    assertion: str | None = None,
    send_client_id: bool = True,
) -> None:
    """Add the client's authentication for ``method`` to a token request: ``private_key_jwt``
    with ``assertion`` when given (else one signed with ``private_key``); without
    ``send_client_id``, ``client_secret_basic`` and ``private_key_jwt`` leave the
    ``client_id`` parameter out (the credentials name the client)."""
    if method == "client_secret_basic":
        if not client.client_secret:
            raise OAuthError("client_secret_basic needs a client secret")
        # RFC 6749 section 2.3.1: form-encode both parts before joining them.
        raw = f"{quote(client.client_id, safe='')}:{quote(client.client_secret, safe='')}"
        headers["authorization"] = "Basic " + base64.b64encode(raw.encode()).decode("ascii")
        # The client_id parameter as well (RFC 6749 section 3.2.1 lets a client identify
        # itself so): servers built on the official SDK's token handler require it.
        if send_client_id:
            form["client_id"] = client.client_id
    elif method == "client_secret_post":
        if not client.client_secret:
            raise OAuthError("client_secret_post needs a client secret")
        form["client_id"] = client.client_id
        form["client_secret"] = client.client_secret
    elif method == "private_key_jwt":
        if assertion is None:
            if private_key is None:
                raise OAuthError("private_key_jwt needs a private key")
            from mcpkit.auth.jwt import client_assertion

            assertion = client_assertion(private_key, client.client_id, audience)
        if send_client_id:
            form["client_id"] = client.client_id
        form["client_assertion_type"] = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        form["client_assertion"] = assertion
    elif method == "none":
        form["client_id"] = client.client_id
    else:
        raise OAuthError(f"Unsupported token endpoint authentication method {method!r}")


def token_lifetime(doc: dict[str, Any], now: float | None = None) -> float | None:
    """The absolute expiry of a token response's ``expires_in`` (None when absent)."""
    value = doc.get("expires_in")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return (time.time() if now is None else now) + float(value)
