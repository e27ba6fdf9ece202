"""The ``server.py`` that the official SDK 2.x's ``docs_src/client_transports/tutorial004.py``
starts (``uv run server.py`` with ``env={"BOOKSHOP_API_KEY": "secret"}``; the snippet does not
include it): an ``MCPServer`` whose tools tell what its environment holds, so the client's
printed tool names show what the client handed its child (the key it was given, and not a
variable of the client's own that is not on the SDK's allow-list)."""

import os

from mcp.server import MCPServer

mcp = MCPServer("Bookshop")


@mcp.tool()
def search_books(query: str) -> str:
    """Search the catalog."""
    return f"Found 3 books matching {query!r}."


if os.environ.get("BOOKSHOP_API_KEY") == "secret":

    @mcp.tool()
    def order_book(title: str) -> str:
        """Order a book (needs the API key)."""
        return f"Ordered {title}."


if "COMPAT_PARENT_ONLY" in os.environ:

    @mcp.tool()
    def leaked_parent_variable() -> str:
        """Listed only if the client's own environment leaked into its child."""
        return "leaked"


if "HOME" in os.environ:

    @mcp.tool()
    def home_passed() -> str:
        """Listed when the allow-listed HOME reached the child."""
        return "home"


if __name__ == "__main__":
    mcp.run()
