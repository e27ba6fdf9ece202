"""A fastmcp server using the MCP Apps options the examples leave out."""

from fastmcp import FastMCP, FastMCPApp
from fastmcp.apps import AppConfig, PrefabAppConfig, ResourceCSP, ResourcePermissions
from prefab_ui.app import PrefabApp
from prefab_ui.components import Column, Heading, Text

mcp = FastMCP("Apps Options")


@mcp.resource(
    "ui://widgets/clock.html",
    app=AppConfig(
        csp=ResourceCSP(connect_domains=["https://api.example.com"]),
        permissions=ResourcePermissions(clipboard_write={}),
        prefers_border=True,
    ),
)
def clock() -> str:
    """The clock widget."""
    return "<html><body>clock</body></html>"


@mcp.tool(app=AppConfig(resource_uri="ui://widgets/clock.html", visibility=["model", "app"]))
def time_now(zone: str = "UTC") -> dict:
    """The time in a zone."""
    return {"zone": zone, "time": "12:00"}


@mcp.tool(
    app=PrefabAppConfig(
        csp=ResourceCSP(frame_domains=["https://embed.example.com"]),
        permissions=ResourcePermissions(camera={}),
        domain="example.com",
    )
)
def framed(title: str) -> Column:
    """A view that embeds a frame."""
    with Column() as view:
        Heading(title)
    return view


@mcp.tool
def inferred(text: str) -> PrefabApp | None:
    """A Prefab app inferred from the return type."""
    return PrefabApp(view=Text(text), state={"n": 1})


@mcp.tool(app=True)
def plain(n: int) -> dict:
    """app=True on a tool returning data."""
    return {"n": n}


app = FastMCPApp("Counter")


@app.tool("bump", model=True)
def bump_count(by: int = 1) -> int:
    """Add to the count."""
    return by + 1


@app.ui(title="Counter view", tags={"ui"})
def counter() -> Column:
    """Open the counter."""
    from prefab_ui.actions.mcp import CallTool
    from prefab_ui.components import Button

    with Column() as view:
        Button("+1", on_click=CallTool("bump", arguments={"by": 1}))
        Button("fn", on_click=CallTool(bump_count))
    return view


mcp.add_provider(app)
