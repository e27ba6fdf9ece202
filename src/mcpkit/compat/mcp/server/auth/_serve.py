"""The official SDK's server auth (``auth=AuthSettings(...)`` with ``token_verifier=`` or
``auth_server_provider=``) as the resource server of mcpkit's HTTP endpoint.

:class:`SdkAuth` answers as the SDK's Starlette app: the MCP endpoint needs a bearer token
the verifier accepts (401 ``invalid_token`` "Authentication required" otherwise) with every
required scope (403 ``insufficient_scope``), the challenge naming the protected resource
metadata served at its RFC 9728 path; a provider's authorization server endpoints are served
beside it; any other path is a plain 404. The token is the request's
(``get_access_token()``, ``request.user``) and mcpkit's principal, so sessions and what
they keep belong to its subject and client.
"""

from __future__ import annotations

from typing import Any

from starlette.authentication import AuthCredentials

from mcpkit.asgi_types import ASGIApp, Receive, Scope, Send
from mcpkit.compat.mcp.server.auth.middleware.auth_context import auth_context_var
from mcpkit.compat.mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    bearer_token,
    native_token,
    refuse,
    verified,
)
from mcpkit.compat.mcp.server.auth.provider import ProviderTokenVerifier
from mcpkit.compat.mcp.server.auth.routes import (
    authorization_apps,
    build_resource_metadata_url,
    protected_resource_apps,
)
from mcpkit.compat.mcp.server.auth.settings import AuthSettings
from mcpkit.principal import token_var

__all__ = ["SdkAuth", "checked_auth"]


def checked_auth(auth: Any, token_verifier: Any, auth_server_provider: Any) -> Any:
    """The verifier of the SDK's auth arguments (refused as the SDK refuses them)."""
    if auth is not None:
        if auth_server_provider and token_verifier:
            raise ValueError("Cannot specify both auth_server_provider and token_verifier")
        if not auth_server_provider and not token_verifier:
            raise ValueError(
                "Must specify either auth_server_provider or token_verifier when auth is enabled"
            )
    elif auth_server_provider or token_verifier:
        raise ValueError(
            "Cannot specify auth_server_provider or token_verifier without auth settings"
        )
    if auth_server_provider and not token_verifier:
        return ProviderTokenVerifier(auth_server_provider)
    return token_verifier


class SdkAuth:
    """The SDK's checks for the MCP endpoint at ``path`` and the ``legacy_paths`` of the
    HTTP+SSE transport (see the module docstring); ``slash_empty_path`` writes URLs without
    a path with ``/`` in documents, as 1.x does."""

    def __init__(
        self,
        path: str,
        auth: AuthSettings,
        token_verifier: Any,
        auth_server_provider: Any = None,
        slash_empty_path: bool = False,
        legacy_paths: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        #: The paths behind the bearer checks (``legacy_paths``: the HTTP+SSE endpoints).
        self.paths = frozenset((path, *legacy_paths))
        self.verifier = token_verifier
        self.required_scopes = list(auth.required_scopes or [])
        self.resource = auth.resource_server_url if auth.validate_token_resource else None
        self.apps: dict[str, ASGIApp] = {}
        if auth_server_provider is not None:
            self.apps.update(
                authorization_apps(
                    auth_server_provider,
                    auth.issuer_url,
                    auth.service_documentation_url,
                    auth.client_registration_options,
                    auth.revocation_options,
                    slash_empty_path,
                    auth.identity_assertion_enabled,
                )
            )
        self.metadata_url: Any = None
        if auth.resource_server_url is not None:
            self.metadata_url = build_resource_metadata_url(auth.resource_server_url)
            self.apps.update(
                protected_resource_apps(
                    auth.resource_server_url,
                    [auth.issuer_url],
                    auth.required_scopes,
                    slash_empty_path,
                )
            )

    async def handle(self, scope: Scope, receive: Receive, send: Send, app: ASGIApp) -> None:
        """Serve one HTTP request: a document or endpoint, or ``app`` behind the checks."""
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        token = bearer_token(scope["headers"])
        user = None
        if token is not None and self.verifier is not None:
            info = await verified(self.verifier, token, self.resource)
            if info is not None:
                user = AuthenticatedUser(info)
                scope["user"] = user
                scope["auth"] = AuthCredentials(info.scopes)
        endpoint = self.apps.get(path)
        if endpoint is not None:
            await endpoint(scope, receive, send)
            return
        if path not in self.paths:
            body = b"Not Found"
            head = [
                (b"content-length", b"9"),
                (b"content-type", b"text/plain; charset=utf-8"),
            ]
            await send({"type": "http.response.start", "status": 404, "headers": head})
            await send({"type": "http.response.body", "body": body})
            return
        if self.verifier is None:  # an authorization server without the bearer checks
            await app(scope, receive, send)
            return
        if user is None:
            await refuse(send, 401, "invalid_token", "Authentication required", self.metadata_url)
            return
        for needed in self.required_scopes:
            if needed not in user.scopes:
                description = f"Required scope: {needed}"
                await refuse(send, 403, "insufficient_scope", description, self.metadata_url)
                return
        reset_user = auth_context_var.set(user)
        reset_token = token_var.set(native_token(user.access_token))
        try:
            await app(scope, receive, send)
        finally:
            token_var.reset(reset_token)
            auth_context_var.reset(reset_user)
