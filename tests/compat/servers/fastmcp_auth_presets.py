"""A fastmcp server protected by one of fastmcp's identity provider presets that are
resource servers (no OAuth proxy), served over HTTP.

``python fastmcp_auth_presets.py supabase PROJECT_URL PORT``: ``SupabaseProvider``.
``python fastmcp_auth_presets.py scalekit ENVIRONMENT_URL PORT``: ``ScalekitProvider``
for the resource ``res_1``.
``python fastmcp_auth_presets.py azure TENANT PORT``: ``AzureJWTVerifier`` behind a
``RemoteAuthProvider`` naming the tenant (its keys are online: only refusals are offline).
"""

import sys

from fastmcp import FastMCP
from fastmcp.server.dependencies import get_access_token

mode, where, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = f"http://127.0.0.1:{port}"
if mode == "supabase":
    from fastmcp.server.auth.providers.supabase import SupabaseProvider

    auth = SupabaseProvider(project_url=where, base_url=base, resource_name="Notes")
elif mode == "azure":
    from fastmcp.server.auth import RemoteAuthProvider
    from fastmcp.server.auth.providers.azure import AzureJWTVerifier

    verifier = AzureJWTVerifier(
        client_id="app-1", tenant_id=where, required_scopes=["access_as_user", "openid"]
    )
    auth = RemoteAuthProvider(
        token_verifier=verifier,
        authorization_servers=[f"https://login.microsoftonline.com/{where}/v2.0"],
        base_url=base,
    )
else:
    from fastmcp.server.auth.providers.scalekit import ScalekitProvider

    auth = ScalekitProvider(
        environment_url=where, resource_id="res_1", base_url=base, required_scopes=["mcp"]
    )

mcp = FastMCP(f"{mode}-protected", auth=auth)


@mcp.tool
def whoami() -> dict:
    """Who called, as the validated token says."""
    token = get_access_token()
    assert token is not None
    return {"client_id": token.client_id, "scopes": token.scopes, "subject": token.subject}


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
