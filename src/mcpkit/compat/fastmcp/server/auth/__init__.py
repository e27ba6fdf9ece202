"""``fastmcp.server.auth`` on mcpkit: fastmcp's auth provider classes and checks.

Served: :class:`TokenVerifier`, :class:`RemoteAuthProvider`, :class:`AccessToken`,
``JWTVerifier`` and ``StaticTokenVerifier`` (``providers.jwt``), ``DebugTokenVerifier``,
``IntrospectionTokenVerifier``, the presets that are resource servers (``AuthKitProvider``,
``KeycloakAuthProvider``, ``SupabaseProvider``, ``ScalekitProvider``): ``FastMCP(auth=...)``
with one of them answers over HTTP as fastmcp does, on mcpkit's resource server; and
``require_scopes`` for a component's ``auth=``; :class:`OAuthProvider` subclasses and
``InMemoryOAuthProvider`` (an authorization server of the server's own, its endpoints
served beside the MCP endpoint) and :class:`MultiAuth`; the OAuth proxies ``OAuthProxy``
and ``OIDCProxy`` and the identity providers built on them (``providers.github``,
``google``, ``discord``, ``workos``, ``auth0``, ``aws``, ``azure``, ``oci``,
``huggingface``), served by :class:`mcpkit.auth.OAuthProxy`. The other identity providers
import, and constructing one raises NotImplementedError naming mcpkit's own
(:mod:`mcpkit.auth`).
"""

from __future__ import annotations

from typing import Any

from mcpkit.compat.fastmcp.server.auth.auth import (
    AccessToken,
    AuthProvider,
    MultiAuth,
    OAuthProvider,
    RemoteAuthProvider,
    TokenVerificationError,
    TokenVerifier,
)
from mcpkit.compat.fastmcp.utilities.authorization import (
    AuthCheck,
    AuthContext,
    require_roles,
    require_scopes,
    restrict_tag,
    run_auth_checks,
)

__all__ = [
    "AccessToken",
    "AuthCheck",
    "AuthContext",
    "AuthProvider",
    "DebugTokenVerifier",
    "JWTVerifier",
    "MultiAuth",
    "OAuthProvider",
    "OAuthProxy",
    "OIDCProxy",
    "RemoteAuthProvider",
    "StaticTokenVerifier",
    "TokenVerificationError",
    "TokenVerifier",
    "require_roles",
    "require_scopes",
    "restrict_tag",
    "run_auth_checks",
]

_LAZY = {
    "DebugTokenVerifier": "providers.debug",
    "JWTVerifier": "providers.jwt",
    "StaticTokenVerifier": "providers.jwt",
    "OAuthProxy": "oauth_proxy",
    "OIDCProxy": "oidc_proxy",
}


def __getattr__(name: str) -> Any:
    import importlib

    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{where}"), name)
