"""``mcp.server.auth.middleware`` on mcpkit: the bearer token checks and the token's
context, as the official SDK's Starlette apps compose them."""
