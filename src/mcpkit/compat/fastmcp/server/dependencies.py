"""``fastmcp.server.dependencies`` on mcpkit: :func:`get_context`, the Context of the
request being served, from anywhere inside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from mcpkit.compat.fastmcp.context import Context
from mcpkit.compat.fastmcp.server.auth.auth import AccessToken

if TYPE_CHECKING:
    from mcpkit.server.context import Context as NativeContext

__all__ = ["AccessToken", "get_access_token", "get_context", "get_http_headers"]


def get_context() -> Context:
    """The :class:`Context` of the request being served (RuntimeError outside of one)."""
    from mcpkit.server.logging import current_context

    # The logging bridge's current context is the request's own Context.
    native = cast("NativeContext[Any] | None", current_context.get())
    if native is None:
        raise RuntimeError("No active context found.")
    return Context(native, getattr(native.server, "compat_owner", None))


def get_access_token() -> Any:
    """The request's validated access token as a ``fastmcp.server.auth.AccessToken`` (None
    when the server is not protected or outside of a request)."""
    from mcpkit.auth.server import get_access_token as native_token

    token = native_token()
    if token is None:
        return None
    original = getattr(token, "original", None)
    if original is not None:
        return original
    return AccessToken(
        token=token.token,
        client_id=token.client_id or "",
        scopes=sorted(token.scopes),
        expires_at=None if token.expires_at is None else int(token.expires_at),
        resource=token.resource if isinstance(token.resource, str) else None,
        subject=token.subject,
        claims=dict(token.claims),
    )


def get_http_headers(include_all: bool = False, include: set[str] | None = None) -> dict[str, str]:
    """The headers of the HTTP request being served (lower-case names; empty outside of
    one), without the hop-by-hop and framing ones, credentials and the MCP session id
    unless ``include_all`` or named in ``include``."""
    from mcpkit.compat.fastmcp.server.providers.openapi.request import forwarded_headers

    return forwarded_headers(include_all, include)
