"""A fastmcp server accepting opaque tokens checked at an RFC 7662 introspection endpoint
(``IntrospectionTokenVerifier``), served over HTTP.

``python fastmcp_auth_introspection.py URL METHOD PORT``: the endpoint, the client
authentication (``client_secret_basic`` or ``client_secret_post``).
"""

import sys

from fastmcp import FastMCP
from fastmcp.server.auth.providers.introspection import IntrospectionTokenVerifier
from fastmcp.server.dependencies import get_access_token

url, method, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
auth = IntrospectionTokenVerifier(
    introspection_url=url,
    client_id="rs",
    client_secret="rs-secret",
    client_auth_method=method,
    required_scopes=["mcp"],
    audience="compat-api",
)
mcp = FastMCP("introspected", auth=auth)


@mcp.tool
def whoami() -> dict:
    """Who called, as the introspection endpoint says."""
    token = get_access_token()
    assert token is not None
    return {
        "client_id": token.client_id,
        "scopes": token.scopes,
        "subject": token.subject,
        "expires_at": token.expires_at,
        "claims": token.claims,
    }


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
