"""The server the ``subscriptions/listen`` tests talk to, in memory or over stdio
(``python tests/modern/listen_app.py``): tools that change what is listed, announce a list
change registration does not see, and update a resource."""

from __future__ import annotations

from typing import Any

from mcpkit import Server


def make_app(**options: Any) -> Server:
    """The test server (``options`` go to :class:`Server`, e.g. ``bus=``)."""
    app = Server("listen-test", "1.0.0", **options)

    @app.tool()
    def add_tool(name: str) -> str:
        """Register a tool called ``name`` (sync: runs in a worker thread)."""
        app.add_tool(lambda: name, name=name, description=f"The tool {name}.")
        return f"added {name}"

    @app.tool()
    async def add_prompt(name: str) -> str:
        """Register a prompt called ``name``."""
        app.add_prompt(lambda: name, name=name, description=f"The prompt {name}.")
        return f"added {name}"

    @app.tool()
    async def announce(kind: str) -> str:
        """Announce a list change registration did not cause."""
        app.notify_list_changed(kind)  # type: ignore[arg-type]
        return f"announced {kind}"

    @app.tool()
    async def touch(uri: str) -> str:
        """Announce that the resource at ``uri`` changed."""
        app.notify_resource_updated(uri)
        return f"touched {uri}"

    @app.prompt()
    def hello() -> str:
        """A greeting."""
        return "Hello"

    @app.resource("test://watched", mime_type="text/plain")
    def watched() -> str:
        """A resource that changes."""
        return "watched"

    return app


if __name__ == "__main__":
    make_app().run()
