"""``fastmcp.server.auth.providers.supabase`` on mcpkit: fastmcp's Supabase classes import;
constructing one raises NotImplementedError naming mcpkit's own."""

from __future__ import annotations

from mcpkit.compat.fastmcp.server.auth._unsupported import unsupported

__all__ = ["SupabaseProvider"]

SupabaseProvider = unsupported(
    "SupabaseProvider", __name__, "mcpkit.auth.ResourceServer with mcpkit.auth.JWTVerifier"
)
