"""``mcp.shared`` on mcpkit: its exceptions."""
