"""A resource server with a token verifier of fixed tokens (valid, expired, without the
required scope, for another resource, for this one, of another user) and
``validate_token_resource=True``: ``sdk_auth_tokens.py v1|v2|sse PORT`` serves it over
Streamable HTTP with 1.x's ``FastMCP`` or 2.x's ``MCPServer``, or over the legacy HTTP+SSE
transport with 2.x's."""

import sys
import time

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from pydantic import AnyHttpUrl

GENERATION, PORT = sys.argv[1], int(sys.argv[2])
RESOURCE = f"http://127.0.0.1:{PORT}/mcp"
NOW = int(time.time())
TOKENS = {
    "valid": AccessToken(
        token="valid", client_id="app", scopes=["read", "write"], resource=RESOURCE, subject="ada"
    ),
    "other-user": AccessToken(
        token="other-user", client_id="app", scopes=["read"], resource=RESOURCE, subject="bob"
    ),
    "expired": AccessToken(
        token="expired", client_id="app", scopes=["read"], expires_at=NOW - 60, resource=RESOURCE
    ),
    "narrow": AccessToken(token="narrow", client_id="app", scopes=["write"], resource=RESOURCE),
    "elsewhere": AccessToken(
        token="elsewhere", client_id="app", scopes=["read"], resource="https://other.example/mcp"
    ),
    "no-resource": AccessToken(token="no-resource", client_id="app", scopes=["read"]),
    "slash": AccessToken(
        token="slash", client_id="app", scopes=["read"], resource=RESOURCE + "/", subject="cy"
    ),
}


class Verifier(TokenVerifier):
    async def verify_token(self, token: str) -> AccessToken | None:
        return TOKENS.get(token)


settings = AuthSettings(
    issuer_url=AnyHttpUrl("https://auth.example.com"),
    resource_server_url=AnyHttpUrl(RESOURCE),
    required_scopes=["read"],
    validate_token_resource=True,
)
if GENERATION == "v1":
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("tokens", auth=settings, token_verifier=Verifier(), port=PORT)
else:
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("tokens", auth=settings, token_verifier=Verifier())


@mcp.tool()
def whoami() -> str:
    """The request's subject and scopes."""
    token = get_access_token()
    assert token is not None
    return f"{token.subject} {' '.join(token.scopes)}"


if __name__ == "__main__":
    if GENERATION == "v1":
        mcp.run(transport="streamable-http")
    elif GENERATION == "sse":
        mcp.run(transport="sse", port=PORT)
    else:
        mcp.run(transport="streamable-http", port=PORT)
