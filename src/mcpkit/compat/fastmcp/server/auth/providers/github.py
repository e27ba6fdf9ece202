"""``fastmcp.server.auth.providers.github`` on mcpkit: fastmcp's GitHub classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["GitHubProvider", "GitHubTokenVerifier"]

GitHubProvider = unsupported("GitHubProvider", __name__, "mcpkit.auth.GitHubProvider")
GitHubTokenVerifier = unsupported("GitHubTokenVerifier", __name__, "mcpkit.auth.GitHubProvider")
