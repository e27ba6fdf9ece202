"""``mcp.server.auth.middleware.bearer_auth`` on mcpkit: the bearer token of a request
checked by a ``TokenVerifier`` (:class:`BearerAuthBackend`, for Starlette's
``AuthenticationMiddleware``) and required on an endpoint (:class:`RequireAuthMiddleware`:
401 ``invalid_token`` without a valid token, 403 ``insufficient_scope`` without a required
scope, each with its ``WWW-Authenticate`` challenge), as the official SDK answers."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from pydantic import AnyHttpUrl, ValidationError
from starlette.authentication import AuthCredentials, AuthenticationBackend, SimpleUser
from starlette.requests import HTTPConnection

from mcpkit.asgi_types import Receive, Scope, Send
from mcpkit.auth.server import AccessToken as NativeAccessToken
from mcpkit.compat.mcp.server.auth.provider import AccessToken, TokenVerifier

__all__ = [
    "AuthenticatedUser",
    "BearerAuthBackend",
    "RequireAuthMiddleware",
    "bearer_token",
    "native_token",
]

logger = logging.getLogger(__name__)


class AuthenticatedUser(SimpleUser):
    """The user of a request with a valid token (named by the token's client)."""

    def __init__(self, auth_info: AccessToken) -> None:
        super().__init__(auth_info.client_id)
        self.access_token = auth_info
        self.scopes = auth_info.scopes


def native_token(token: AccessToken) -> NativeAccessToken:
    """mcpkit's view of the SDK's token (the principal: its subject and client)."""
    return NativeAccessToken(
        token.token,
        client_id=token.client_id,
        scopes=frozenset(token.scopes),
        expires_at=token.expires_at,
        resource=token.resource,
        subject=token.subject,
        claims=dict(token.claims or {}),
    )


def bearer_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The bearer token of an ASGI request's ``Authorization`` header (the first one)."""
    for key, value in headers:
        if key.lower() == b"authorization":
            text = value.decode("latin-1")
            return text[7:] if text.lower().startswith("bearer ") else None
    return None


def issued_for(resource: str | None, resource_server_url: AnyHttpUrl) -> bool:
    """Whether a token's resource is ``resource_server_url`` (compared as URLs, a trailing
    slash aside)."""
    try:
        given = str(AnyHttpUrl(resource or ""))
    except ValidationError:
        return False
    return given.removesuffix("/") == str(resource_server_url).removesuffix("/")


async def verified(
    verifier: TokenVerifier, token: str, resource_server_url: AnyHttpUrl | None
) -> AccessToken | None:
    """The verifier's token for ``token`` when it is valid, unexpired and (with
    ``resource_server_url``) issued for this resource; else None."""
    info = await verifier.verify_token(token)
    if not info:
        return None
    if info.expires_at and info.expires_at < int(time.time()):
        return None
    if resource_server_url and not issued_for(info.resource, resource_server_url):
        logger.warning(
            "Bearer token resource %r is not resource_server_url %s",
            info.resource,
            resource_server_url,
        )
        return None
    return info


class BearerAuthBackend(AuthenticationBackend):
    """Authenticates a request by its bearer token with ``token_verifier`` (only tokens for
    ``resource_server_url`` when given)."""

    def __init__(
        self, token_verifier: TokenVerifier, *, resource_server_url: AnyHttpUrl | None = None
    ) -> None:
        self.token_verifier = token_verifier
        self.resource_server_url = resource_server_url

    async def authenticate(
        self, conn: HTTPConnection
    ) -> tuple[AuthCredentials, AuthenticatedUser] | None:
        token = bearer_token(conn.scope["headers"])
        if token is None:
            return None
        info = await verified(self.token_verifier, token, self.resource_server_url)
        if info is None:
            return None
        return AuthCredentials(info.scopes), AuthenticatedUser(info)


def challenge(error: str, description: str, resource_metadata_url: Any) -> tuple[bytes, bytes]:
    """The refusal's JSON body and its ``WWW-Authenticate`` value."""
    parts = [f'error="{error}"', f'error_description="{description}"']
    if resource_metadata_url:
        parts.append(f'resource_metadata="{resource_metadata_url}"')
    body = json.dumps({"error": error, "error_description": description}).encode()
    return body, ("Bearer " + ", ".join(parts)).encode()


async def refuse(
    send: Send, status: int, error: str, description: str, resource_metadata_url: Any
) -> None:
    """Answer a request refused by the bearer checks."""
    body, www = challenge(error, description, resource_metadata_url)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", www),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RequireAuthMiddleware:
    """Serves ``app`` to requests authenticated with every one of ``required_scopes``; 401
    or 403 otherwise (``resource_metadata_url`` named in the challenge)."""

    def __init__(
        self,
        app: Any,
        required_scopes: list[str],
        resource_metadata_url: AnyHttpUrl | None = None,
    ) -> None:
        self.app = app
        self.required_scopes = required_scopes
        self.resource_metadata_url = resource_metadata_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not isinstance(scope.get("user"), AuthenticatedUser):
            await refuse(
                send, 401, "invalid_token", "Authentication required", self.resource_metadata_url
            )
            return
        credentials = scope.get("auth")
        for needed in self.required_scopes:
            if credentials is None or needed not in credentials.scopes:
                await refuse(
                    send,
                    403,
                    "insufficient_scope",
                    f"Required scope: {needed}",
                    self.resource_metadata_url,
                )
                return
        await self.app(scope, receive, send)
