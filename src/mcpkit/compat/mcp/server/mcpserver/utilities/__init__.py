"""``mcp.server.mcpserver.utilities`` on mcpkit."""
