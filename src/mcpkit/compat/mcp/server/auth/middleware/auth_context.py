"""``mcp.server.auth.middleware.auth_context`` on mcpkit: the access token of the request
being served (:func:`get_access_token`), set by the server's bearer checks."""

from __future__ import annotations

import contextvars

from mcpkit.asgi_types import ASGIApp, Receive, Scope, Send
from mcpkit.compat.mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, native_token
from mcpkit.compat.mcp.server.auth.provider import AccessToken
from mcpkit.principal import token_var

__all__ = ["AuthContextMiddleware", "auth_context_var", "get_access_token"]

#: The authenticated user of the request being served (None: none).
auth_context_var: contextvars.ContextVar[AuthenticatedUser | None] = contextvars.ContextVar(
    "auth_context", default=None
)


def get_access_token() -> AccessToken | None:
    """The access token of the request being served, or None without one."""
    user = auth_context_var.get()
    return user.access_token if user is not None else None


class AuthContextMiddleware:
    """Makes the request's authenticated user (``scope["user"]``, set by Starlette's
    ``AuthenticationMiddleware``) what :func:`get_access_token` answers while ``app`` runs,
    and mcpkit's principal (sessions and what they keep belong to its client and subject)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser):
            await self.app(scope, receive, send)
            return
        reset = auth_context_var.set(user)
        reset_token = token_var.set(native_token(user.access_token))
        try:
            await self.app(scope, receive, send)
        finally:
            token_var.reset(reset_token)
            auth_context_var.reset(reset)
