"""2.x's MCP Apps helpers (``mcp.server.apps``): tools bound to ``ui://`` resources with
visibility and extra ``_meta``, an HTML resource with its CSP, permissions, domain and
border, a pre-built resource object; one tool reports whether the client supports apps."""

from __future__ import annotations

from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resources import TextResource

apps = Apps()


@apps.tool(resource_uri="ui://board/app.html", visibility=["app"], meta={"k": 1})
def board(ctx: Context) -> str:
    """The board."""
    return f"apps supported: {client_supports_apps(ctx)}"


@apps.tool(resource_uri="ui://plain/page.html", title="Plain")
def plain() -> str:
    """A plain page."""
    return "plain"


apps.add_html_resource(
    "ui://board/app.html",
    "<h1>board</h1>",
    title="Board",
    description="The board app.",
    csp=ResourceCsp(connect_domains=["https://api.example.com"]),
    permissions=ResourcePermissions(clipboard_write={}),
    domain="example.com",
    prefers_border=True,
)
apps.add_resource(TextResource(uri="ui://plain/page.html", name="plain", text="<p>plain</p>"))

mcp = MCPServer("apps extension", extensions=[apps])

if __name__ == "__main__":
    mcp.run()
