"""An MCP App served by the official Python SDK (run with the peer's interpreter)."""

from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions
from mcp.server.mcpserver import MCPServer

apps = Apps()


@apps.tool(resource_uri="ui://clock/app.html", description="Current time")
def get_time() -> str:
    return "12:00"


@apps.tool(resource_uri="ui://clock/app.html", visibility=["app"], description="Tick")
def tick() -> str:
    return "tick"


apps.add_html_resource(
    "ui://clock/app.html",
    "<!doctype html><p>clock</p>",
    csp=ResourceCsp(connect_domains=["https://time.example.com"]),
    permissions=ResourcePermissions(clipboard_write={}),
    prefers_border=True,
)

mcp = MCPServer("clock", extensions=[apps])

if __name__ == "__main__":
    mcp.run()
