"""``fastmcp.server.auth.providers.discord`` on mcpkit: fastmcp's Discord classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["DiscordProvider", "DiscordTokenVerifier"]

DiscordProvider = unsupported("DiscordProvider", __name__, "mcpkit.auth.OAuthProxy")
DiscordTokenVerifier = unsupported(
    "DiscordTokenVerifier", __name__, "mcpkit.auth.ResourceServer with a verifier of your own"
)
