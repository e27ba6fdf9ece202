"""A fastmcp server protected by fixed tokens, served over HTTP.

``python fastmcp_auth_static.py static PORT``: ``StaticTokenVerifier`` (its tokens below).
``python fastmcp_auth_static.py debug PORT``: ``DebugTokenVerifier`` accepting tokens that
start with ``dbg-``, granting ``read``; ``debug-admin``: the same, the server requiring
``admin`` too (which the verifier does not check: the server refuses with 403).
"""

import sys

from fastmcp import FastMCP
from fastmcp.server.auth.providers.debug import DebugTokenVerifier
from fastmcp.server.auth.providers.jwt import StaticTokenVerifier
from fastmcp.server.dependencies import get_access_token
from starlette.requests import Request
from starlette.responses import PlainTextResponse

mode, port = sys.argv[1], int(sys.argv[2])
if mode == "static":
    auth = StaticTokenVerifier(
        tokens={
            "tok-ada": {"client_id": "ada-cli", "scopes": ["write", "read"], "sub": "ada"},
            "tok-bob": {"client_id": "bob-cli", "scopes": ["read"]},
            "tok-cy": {"client_id": "cy-cli", "scopes": ["write"], "sub": "cy"},
            "tok-old": {"client_id": "old-cli", "scopes": ["write"], "expires_at": 1000},
        },
        required_scopes=["write"],
    )
else:
    auth = DebugTokenVerifier(
        validate=lambda token: token.startswith("dbg-"),
        client_id="debugger",
        scopes=["read"],
        required_scopes=["read"] if mode == "debug" else ["read", "admin"],
    )

mcp = FastMCP("token-protected", auth=auth)


@mcp.custom_route("/health", methods=["GET"])
async def health(request: Request) -> PlainTextResponse:
    """Open to anyone: custom routes are outside the token checks."""
    return PlainTextResponse("OK")


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
        "claims": token.claims,
    }


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
