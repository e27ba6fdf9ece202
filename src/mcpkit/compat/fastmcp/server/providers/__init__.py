"""``fastmcp.server.providers`` on mcpkit: :mod:`.openapi` (the OpenAPI provider)."""
