"""``fastmcp.utilities`` on mcpkit."""
