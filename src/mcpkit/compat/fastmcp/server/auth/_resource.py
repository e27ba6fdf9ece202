"""A fastmcp auth provider as the resource server of mcpkit's HTTP endpoint.

:class:`FastResourceServer` is what ``FastMCP(auth=...)`` protects the endpoint with: the
provider's ``verify_token`` decides, mcpkit's principal binding (:mod:`mcpkit.owner`) makes
what a request keeps belong to the token's subject and client, and the answers are
fastmcp's: 401 without an error for a request without bearer credentials, 401
``invalid_token`` with fastmcp's description for a token refused, 403
``insufficient_scope`` for a required scope missing, the protected resource metadata at
``/.well-known/oauth-protected-resource<path>`` when the provider serves it, and fastmcp's
404 for any other path.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from mcpkit.asgi_types import ASGIApp, Receive, Scope, Send
from mcpkit.auth.server import PRM_WELL_KNOWN
from mcpkit.auth.server import AccessToken as NativeAccessToken
from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, AuthProvider
from mcpkit.principal import token_var

__all__ = ["FastAccessToken", "FastResourceServer"]

#: fastmcp's description of a refused bearer token.
INVALID_TOKEN = (
    "Authentication failed. The provided bearer token is invalid, expired, or no longer "
    "recognized by the server. To resolve: clear authentication tokens in your MCP client "
    "and reconnect. Your client should automatically re-register and obtain new tokens."
)


@dataclass(frozen=True, slots=True)
class FastAccessToken(NativeAccessToken):
    """mcpkit's token of a request, carrying the fastmcp token the provider returned."""

    original: AccessToken | None = field(default=None, repr=False, compare=False)


def native_token(token: AccessToken) -> FastAccessToken:
    """mcpkit's view of a fastmcp token (the principal is its subject and client)."""
    return FastAccessToken(
        token.token,
        client_id=token.client_id,
        scopes=frozenset(token.scopes),
        expires_at=token.expires_at,
        resource=token.resource,
        subject=token.subject,
        claims=dict(token.claims or {}),
        original=token,
    )


class FastResourceServer:
    """The checks of one provider for the MCP endpoint at ``path``."""

    def __init__(self, provider: AuthProvider, path: str) -> None:
        self.provider = provider
        self.path = path
        doc = provider.protected_resource(path)
        #: The provider's other documents (an authorization server's metadata, ...).
        self.routes = provider.routes(path)
        #: The provider's endpoints (an authorization server's ``/token``, ...).
        self.apps = provider.apps(path)
        self.metadata: dict[str, Any] | None = doc
        self.metadata_path: str | None = None
        self.metadata_url: str | None = None
        if doc is not None:
            parts = urlsplit(doc["resource"])
            self.metadata_path = PRM_WELL_KNOWN + parts.path.rstrip("/")
            self.metadata_url = f"{parts.scheme}://{parts.netloc}{self.metadata_path}"
            self._metadata_body = json.dumps(doc, separators=(",", ":")).encode()
        self.required_scopes = list(provider.required_scopes)
        context = []
        challenge = provider.challenge_scopes
        if challenge:
            context.append(f'scope="{" ".join(challenge)}"')
        if self.metadata_url:
            context.append(f'resource_metadata="{self.metadata_url}"')
        self._context = context
        self._missing = ("Bearer " + ", ".join(context)) if context else "Bearer"

    async def handle(self, scope: Scope, receive: Receive, send: Send, app: ASGIApp) -> None:
        """Serve one HTTP request: the metadata, or ``app`` behind the token checks."""
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        route = self.routes.get(path)  # first: a provider may serve its metadata itself
        if route is not None:
            await route(scope, send)
            return
        if path == self.metadata_path:
            await self._serve_metadata(scope, send)
            return
        endpoint = self.apps.get(path)
        if endpoint is not None:
            await endpoint(scope, receive, send)
            return
        if path.rstrip("/") != self.path.rstrip("/") and not _legacy_sse(path):
            await _respond(
                send, 404, b"Not Found", [(b"content-type", b"text/plain; charset=utf-8")]
            )
            return
        header = None
        for k, v in scope["headers"]:
            if k == b"authorization":
                header = v.decode("latin-1")
                break
        if header is None or header[:7].lower() != "bearer ":
            await _respond(send, 401, b"", [(b"www-authenticate", self._missing.encode())])
            return
        token = await self._verified(header[7:])
        if token is None:
            await self._deny(send, 401, "invalid_token", INVALID_TOKEN)
            return
        for needed in self.required_scopes:
            if needed not in token.scopes:
                await self._deny(send, 403, "insufficient_scope", f"Required scope: {needed}")
                return
        reset = token_var.set(native_token(token))
        try:
            await app(scope, receive, send)
        finally:
            token_var.reset(reset)

    async def _verified(self, value: str) -> AccessToken | None:
        try:
            token = await self.provider.verify_token(value)
        except Exception:
            return None
        if token is None:
            return None
        if token.expires_at and token.expires_at < int(time.time()):
            return None
        return token

    async def _deny(self, send: Send, status: int, error: str, description: str) -> None:
        parts = [f'error="{error}"', f'error_description="{description}"', *self._context]
        body = json.dumps({"error": error, "error_description": description}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"www-authenticate", ("Bearer " + ", ".join(parts)).encode()),
        ]
        await _respond(send, status, body, headers)

    async def _serve_metadata(self, scope: Scope, send: Send) -> None:
        if scope["method"] not in ("GET", "OPTIONS"):
            await _respond(send, 405, b"Method Not Allowed", [(b"allow", b"GET, OPTIONS")])
            return
        headers = [
            (b"content-type", b"application/json"),
            (b"cache-control", b"public, max-age=3600"),
        ]
        await _respond(send, 200, self._metadata_body, headers)


async def respond_json(send: Send, status: int, document: Any) -> None:
    """``document`` as a JSON answer (compact, as Starlette's ``JSONResponse``)."""
    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()
    await _respond(send, status, body, [(b"content-type", b"application/json")])


def _legacy_sse(path: str) -> bool:
    return path.rstrip("/") in ("/sse", "/messages")


async def _respond(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]
) -> None:
    head = [(b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})
