"""fastmcp's ``FileUpload`` served over HTTP, to see whose files a request reaches.

``python fastmcp_file_upload_http.py open PORT``: no authentication.
``python fastmcp_file_upload_http.py tokens PORT``: ``StaticTokenVerifier`` (ada and cy).
"""

import sys

from fastmcp import FastMCP
from fastmcp.apps.file_upload import FileUpload
from fastmcp.server.auth.providers.jwt import StaticTokenVerifier

mode, port = sys.argv[1], int(sys.argv[2])
auth = None
if mode == "tokens":
    auth = StaticTokenVerifier(
        tokens={
            "tok-ada": {"client_id": "ada-cli", "scopes": [], "sub": "ada"},
            "tok-cy": {"client_id": "cy-cli", "scopes": [], "sub": "cy"},
        }
    )

mcp = FastMCP("uploads", providers=[FileUpload()], auth=auth)

if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
