"""``mcp.client.auth.extensions`` on mcpkit."""
