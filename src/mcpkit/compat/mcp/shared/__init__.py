"""``mcp.shared`` on mcpkit: its exceptions and message wrapper."""
