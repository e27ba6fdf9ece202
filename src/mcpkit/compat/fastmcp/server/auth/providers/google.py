"""``fastmcp.server.auth.providers.google`` on mcpkit: fastmcp's Google classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["GoogleProvider", "GoogleTokenVerifier"]

GoogleProvider = unsupported("GoogleProvider", __name__, "mcpkit.auth.GoogleProvider")
GoogleTokenVerifier = unsupported("GoogleTokenVerifier", __name__, "mcpkit.auth.GoogleProvider")
