"""An MCP server whose tokens come from another authorization server: ``m2m_resource.py PORT
ISSUER`` serves Streamable HTTP at ``http://127.0.0.1:PORT/mcp``, accepting the JWT access
tokens ``ISSUER`` signs for it (its JWKS at ``ISSUER/jwks``) with the ``mcp:tools`` scope;
its tool ``whoami`` answers with the token's client and scopes."""

import asyncio
import sys

from mcpkit import Context, Server
from mcpkit.auth import JWTVerifier, ResourceServer
from mcpkit.server.serving import serve_http

PORT, ISSUER = int(sys.argv[1]), sys.argv[2]
URL = f"http://127.0.0.1:{PORT}/mcp"

auth = ResourceServer(
    JWTVerifier(issuer=ISSUER, jwks_url=ISSUER + "/jwks", audience=URL),
    resource=URL,
    authorization_servers=[ISSUER],
    scopes_supported=["mcp:tools"],
    required_scopes=["mcp:tools"],
)
app = Server("m2m-resource", auth=auth)


@app.tool()
def whoami(ctx: Context) -> str:
    """The client the token was issued to, and its scopes."""
    assert ctx.auth is not None
    return f"{ctx.auth.client_id} {sorted(ctx.auth.scopes)}"


asyncio.run(serve_http(app, port=PORT))
