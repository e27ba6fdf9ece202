"""A server with every kind of MCP App metadata (used in memory and over stdio)."""

from __future__ import annotations

from mcpkit import Context, Server
from mcpkit.apps import Csp
from mcpkit.server.apps import client_supports_apps

HTML = "<!doctype html><html><body><h1>Dashboard</h1></body></html>"


def make_server(**kwargs: object) -> Server:
    app = Server("apps", version="1.0.0", **kwargs)  # type: ignore[arg-type]

    @app.ui(
        "ui://apps/dashboard",
        title="Dashboard",
        csp=Csp(
            connect_domains=["https://api.example.com", "wss://live.example.com"],
            resource_domains=["https://*.cdn.example.com"],
        ),
        permissions=["clipboardWrite", "geolocation"],
        domain="a904794854a047f6.claudemcpcontent.com",
        prefers_border=False,
    )
    def dashboard() -> str:
        """The dashboard's view."""
        return HTML

    @app.tool(ui="ui://apps/dashboard")
    def show(city: str) -> str:
        """Show the dashboard for a city."""
        return f"dashboard for {city}"

    @app.tool(ui="ui://apps/dashboard", visibility=["app"])
    def refresh(city: str) -> str:
        """Refresh the dashboard (the app's button)."""
        return f"refreshed {city}"

    @app.tool(ui="ui://apps/dashboard", visibility=["model"])
    def summarize(city: str) -> str:
        """Summarize for the model only."""
        return f"summary of {city}"

    @app.tool()
    def plain(ctx: Context) -> str:
        """A tool without a UI; says whether the client declared MCP Apps."""
        return "apps" if client_supports_apps(ctx) else "text only"

    return app


app = make_server()

if __name__ == "__main__":
    app.run()
