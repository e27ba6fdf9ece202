"""``fastmcp.server.auth.oauth_proxy`` on mcpkit: :class:`OAuthProxy` is importable;
constructing it raises NotImplementedError naming :class:`mcpkit.auth.OAuthProxy`."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["OAuthProxy"]

OAuthProxy = unsupported(
    "OAuthProxy", __name__, "mcpkit.auth.OAuthProxy (or a preset such as mcpkit.auth.OIDCProvider)"
)
