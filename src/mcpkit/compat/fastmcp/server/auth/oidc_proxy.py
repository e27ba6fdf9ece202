"""``fastmcp.server.auth.oidc_proxy`` on mcpkit: :class:`OIDCProxy` is importable;
constructing it raises NotImplementedError naming :class:`mcpkit.auth.OIDCProvider`."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["OIDCProxy"]

OIDCProxy = unsupported("OIDCProxy", __name__, "mcpkit.auth.OIDCProvider")
