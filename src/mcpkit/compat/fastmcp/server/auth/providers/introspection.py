"""``fastmcp.server.auth.providers.introspection`` on mcpkit:
fastmcp's RFC 7662 introspection classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["IntrospectionTokenVerifier"]

IntrospectionTokenVerifier = unsupported(
    "IntrospectionTokenVerifier", __name__, "mcpkit.auth.IntrospectionVerifier"
)
