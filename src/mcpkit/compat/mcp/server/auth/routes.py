"""``mcp.server.auth.routes`` on mcpkit: the routes of an authorization server
(:func:`create_auth_routes`, served by mcpkit's endpoints for the provider protocol) and of
a protected resource's metadata (:func:`create_protected_resource_routes`, RFC 9728), for
Starlette apps built around the low-level server as the official SDK's examples build them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from pydantic import AnyHttpUrl
from starlette.routing import Route

from mcpkit.asgi_types import ASGIApp, Receive, Scope, Send
from mcpkit.compat._oauth_server import (
    ID_JAG_GRANT_PROFILE,
    authorization_server_apps,
    authorization_server_metadata,
)
from mcpkit.compat.mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions

__all__ = [
    "ID_JAG_GRANT_PROFILE",
    "build_resource_metadata_url",
    "cors_middleware",
    "create_auth_routes",
    "create_protected_resource_routes",
    "validate_issuer_url",
]

#: Where an authorization server's metadata is served (RFC 8414).
AS_METADATA_PATH = "/.well-known/oauth-authorization-server"


def url_text(url: Any, slash_empty_path: bool = False) -> str:
    """A URL as the SDK writes it (``slash_empty_path``: ``/`` for an empty path, as 1.x)."""
    text = str(url)
    if slash_empty_path and not urlparse(text).path:
        text += "/"
    return text


def validate_issuer_url(url: AnyHttpUrl) -> None:
    """Refuse an issuer that is not HTTPS (loopback aside) or has a fragment or query."""
    if url.scheme != "https" and url.host not in ("localhost", "127.0.0.1", "[::1]"):
        raise ValueError("Issuer URL must be HTTPS")
    if url.fragment:
        raise ValueError("Issuer URL must not have a fragment")
    if url.query:
        raise ValueError("Issuer URL must not have a query string")


def build_resource_metadata_url(resource_server_url: AnyHttpUrl) -> AnyHttpUrl:
    """Where the metadata of ``resource_server_url`` is served (RFC 9728 s3.1: the
    well-known path between the host and the resource's path)."""
    parsed = urlparse(str(resource_server_url))
    path = parsed.path if parsed.path != "/" else ""
    return AnyHttpUrl(
        f"{parsed.scheme}://{parsed.netloc}/.well-known/oauth-protected-resource{path}"
    )


def protected_resource_metadata(
    resource_url: Any,
    authorization_servers: list[Any],
    scopes_supported: list[str] | None = None,
    resource_name: str | None = None,
    resource_documentation: Any = None,
    slash_empty_path: bool = False,
) -> dict[str, Any]:
    """The RFC 9728 document, its members in the SDK's order (absent ones left out)."""
    doc: dict[str, Any] = {
        "resource": url_text(resource_url, slash_empty_path),
        "authorization_servers": [url_text(u, slash_empty_path) for u in authorization_servers],
        "scopes_supported": scopes_supported,
        "bearer_methods_supported": ["header"],
        "resource_name": resource_name,
        "resource_documentation": resource_documentation and str(resource_documentation),
    }
    return {k: v for k, v in doc.items() if v is not None}


def metadata_app(document: dict[str, Any]) -> ASGIApp:
    """``document`` served to GET (and CORS preflights, from any origin)."""
    from starlette.middleware.cors import CORSMiddleware

    body = json.dumps(document, separators=(",", ":")).encode()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            head = [(b"content-length", b"18"), (b"content-type", b"text/plain; charset=utf-8")]
            head.append((b"allow", b"GET, OPTIONS"))
            await send({"type": "http.response.start", "status": 405, "headers": head})
            await send({"type": "http.response.body", "body": b"Method Not Allowed"})
            return
        headers = [
            (b"content-length", str(len(body)).encode()),
            (b"content-type", b"application/json"),
            (b"cache-control", b"public, max-age=3600"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    wrapped: ASGIApp = CORSMiddleware(
        app,
        allow_origins=["*"],
        allow_methods=["GET", "OPTIONS"],
        allow_headers=["mcp-protocol-version"],
    )
    return wrapped


def protected_resource_apps(
    resource_url: Any,
    authorization_servers: list[Any],
    scopes_supported: list[str] | None = None,
    slash_empty_path: bool = False,
) -> dict[str, ASGIApp]:
    """The metadata of ``resource_url`` by the path it is served at."""
    doc = protected_resource_metadata(
        resource_url, authorization_servers, scopes_supported, slash_empty_path=slash_empty_path
    )
    path = urlparse(str(build_resource_metadata_url(resource_url))).path
    return {path: metadata_app(doc)}


def authorization_apps(
    provider: Any,
    issuer_url: Any,
    service_documentation_url: Any = None,
    client_registration_options: ClientRegistrationOptions | None = None,
    revocation_options: RevocationOptions | None = None,
    slash_empty_path: bool = False,
    identity_assertion: bool = False,
) -> dict[str, ASGIApp]:
    """An authorization server's endpoints by path, answering as the official SDK's
    (``slash_empty_path``: as 1.x's, see :func:`url_text` and ``Endpoints.v1``;
    ``identity_assertion``: the SEP-990 jwt-bearer grant served and advertised)."""
    validate_issuer_url(issuer_url)
    registration = client_registration_options or ClientRegistrationOptions()
    revocation = revocation_options or RevocationOptions()
    issuer = url_text(issuer_url, slash_empty_path)
    docs = None if service_documentation_url is None else str(service_documentation_url)
    metadata = authorization_server_metadata(
        issuer, issuer, docs, registration, revocation, identity_assertion
    )
    return authorization_server_apps(
        provider,
        metadata,
        [AS_METADATA_PATH],
        registration,
        revocation,
        invalid_grant_status=400,
        v1=slash_empty_path,
        identity_assertion=identity_assertion,
    )


def cors_middleware(handler: Callable[[Any], Any], allow_methods: list[str]) -> ASGIApp:
    """A Starlette request handler as an ASGI app readable from any origin."""
    from starlette.middleware.cors import CORSMiddleware
    from starlette.routing import request_response

    wrapped: ASGIApp = CORSMiddleware(
        request_response(handler),
        allow_origins=["*"],
        allow_methods=allow_methods,
        allow_headers=["mcp-protocol-version"],
    )
    return wrapped


class _Endpoint:
    """An ASGI app as a route's endpoint (Starlette takes a plain function for a request
    handler)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def create_auth_routes(
    provider: Any,
    issuer_url: AnyHttpUrl,
    service_documentation_url: AnyHttpUrl | None = None,
    client_registration_options: ClientRegistrationOptions | None = None,
    revocation_options: RevocationOptions | None = None,
    identity_assertion_enabled: bool = False,
) -> list[Route]:
    """The authorization server's routes: its metadata, ``/authorize``, ``/token`` (with the
    SEP-990 jwt-bearer grant when ``identity_assertion_enabled``), and ``/register`` and
    ``/revoke`` when enabled."""
    apps = authorization_apps(
        provider,
        issuer_url,
        service_documentation_url,
        client_registration_options,
        revocation_options,
        identity_assertion=identity_assertion_enabled,
    )
    return [Route(path, endpoint=_Endpoint(app)) for path, app in apps.items()]


def create_protected_resource_routes(
    resource_url: AnyHttpUrl,
    authorization_servers: list[AnyHttpUrl],
    scopes_supported: list[str] | None = None,
    resource_name: str | None = None,
    resource_documentation: AnyHttpUrl | None = None,
) -> list[Route]:
    """The route of the resource's metadata (RFC 9728)."""
    doc = protected_resource_metadata(
        resource_url, authorization_servers, scopes_supported, resource_name, resource_documentation
    )
    path = urlparse(str(build_resource_metadata_url(resource_url))).path
    return [Route(path, endpoint=metadata_app(doc), methods=["GET", "OPTIONS"])]
