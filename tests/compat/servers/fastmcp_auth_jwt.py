"""A fastmcp server protected by JWT access tokens (``JWTVerifier``), served over HTTP.

``python fastmcp_auth_jwt.py pem KEYFILE PORT``: the public key in a PEM file, the server a
``RemoteAuthProvider`` naming its authorization server (the protected resource metadata).
``python fastmcp_auth_jwt.py jwks URL PORT``: the keys of a JWKS URL, the verifier alone.
"""

import sys
from pathlib import Path

from fastmcp import FastMCP
from fastmcp.server.auth import RemoteAuthProvider
from fastmcp.server.auth.providers.jwt import JWTVerifier
from fastmcp.server.dependencies import get_access_token

mode, where, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = f"http://127.0.0.1:{port}"
if mode == "pem":
    verifier = JWTVerifier(
        public_key=Path(where).read_text(),
        issuer="https://issuer.example.com",
        audience="compat-api",
        required_scopes=["mcp:read"],
    )
    auth = RemoteAuthProvider(
        token_verifier=verifier,
        authorization_servers=["https://issuer.example.com"],
        base_url=base,
        resource_name="Compat API",
    )
else:
    auth = JWTVerifier(
        jwks_uri=where,
        issuer="https://issuer.example.com",
        audience=["compat-api", "other-api"],
        base_url=base,
    )

mcp = FastMCP("jwt-protected", auth=auth)


@mcp.tool
def whoami() -> dict:
    """Who called, as the validated token says."""
    token = get_access_token()
    assert token is not None
    return {
        "client_id": token.client_id,
        "scopes": token.scopes,
        "subject": token.subject,
        "expires_at": token.expires_at,
        "claims": {k: v for k, v in token.claims.items() if k not in ("iat", "exp")},
    }


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
