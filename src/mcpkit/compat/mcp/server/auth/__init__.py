"""``mcp.server.auth`` on mcpkit: the authorization server provider protocol and its
settings, as fastmcp's ``OAuthProvider`` subclasses import them."""
