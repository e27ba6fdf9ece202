"""A 2.x MCPServer whose listings and results a client prints: a tool taking a model (its
schema with $defs) and returning one, a tool returning a resource link, a resource, a
template and a prompt (tests/compat/test_client_printed.py)."""

from mcp.server import MCPServer
from mcp.types import ResourceLink
from pydantic import BaseModel

mcp = MCPServer("Printed", instructions="Print me.")


class Book(BaseModel):
    """A book."""

    title: str
    year: int = 2000


@mcp.tool(title="Shelve")
def shelve(book: Book, copies: int = 1) -> Book:
    """Shelve a book."""
    return book


@mcp.tool()
def link(name: str) -> list[ResourceLink]:
    """Link to a note."""
    return [ResourceLink(name=name, uri=f"notes://{name}", mime_type="text/plain")]


@mcp.resource("notes://index", title="Index", mime_type="text/plain")
def index() -> str:
    """All notes."""
    return "a, b"


@mcp.resource("notes://{name}")
def note(name: str) -> str:
    """One note."""
    return name


@mcp.prompt()
def ask(topic: str, tone: str = "plain") -> str:
    """Ask about a topic."""
    return f"Tell me about {topic} ({tone})."
