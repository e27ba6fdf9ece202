"""``mcp.server.fastmcp.utilities`` on mcpkit."""
