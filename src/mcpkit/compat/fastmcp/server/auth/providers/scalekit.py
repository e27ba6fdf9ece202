"""``fastmcp.server.auth.providers.scalekit`` on mcpkit: fastmcp's Scalekit classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["ScalekitProvider"]

ScalekitProvider = unsupported(
    "ScalekitProvider", __name__, "mcpkit.auth.ResourceServer with mcpkit.auth.JWTVerifier"
)
