"""A fastmcp server whose components carry their own ``auth=require_scopes(...)``, behind
``StaticTokenVerifier``, served over HTTP: ``python fastmcp_auth_components.py PORT``."""

import sys

from fastmcp import FastMCP
from fastmcp.server.auth import require_scopes
from fastmcp.server.auth.providers.jwt import StaticTokenVerifier

auth = StaticTokenVerifier(
    tokens={
        "t-user": {"client_id": "user", "scopes": ["read"]},
        "t-admin": {"client_id": "admin", "scopes": ["read", "admin", "audit"]},
        "t-auditor": {"client_id": "auditor", "scopes": ["read", "audit"]},
    }
)
mcp = FastMCP("scoped-components", auth=auth)


@mcp.tool
def hello() -> str:
    """Anyone."""
    return "hi"


@mcp.tool(auth=require_scopes("admin"))
def wipe() -> str:
    """Admins only."""
    return "wiped"


@mcp.tool(auth=[require_scopes("admin"), require_scopes("audit")])
def report() -> str:
    """Admins who audit."""
    return "report"


@mcp.resource("audit://log", auth=require_scopes("audit"))
def audit_log() -> str:
    """Auditors only."""
    return "log"


@mcp.prompt(auth=require_scopes("audit"))
def review(topic: str) -> str:
    """Auditors only."""
    return f"review {topic}"


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), show_banner=False)
