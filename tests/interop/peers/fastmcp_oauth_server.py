"""A fastmcp server behind fastmcp's InMemoryOAuthProvider: an authorization server built on
the official SDK's auth routes (metadata, dynamic registration, /authorize approving at once,
/token with its client authentication). Run with fastmcp's interpreter:
``python fastmcp_oauth_server.py PORT``; the ``whoami`` tool answers the token's client id."""

import sys

from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from fastmcp.server.dependencies import get_access_token

port = int(sys.argv[1])
base = f"http://127.0.0.1:{port}"
auth = InMemoryOAuthProvider(
    base_url=base, client_registration_options=ClientRegistrationOptions(enabled=True)
)
mcp = FastMCP("fastmcp-oauth", auth=auth)


@mcp.tool
def whoami() -> str:
    token = get_access_token()
    return token.client_id if token else "anonymous"


mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
