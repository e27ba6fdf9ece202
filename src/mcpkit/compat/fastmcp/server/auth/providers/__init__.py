"""``fastmcp.server.auth.providers`` on mcpkit (one module per provider, as fastmcp)."""
