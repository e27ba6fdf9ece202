"""A small server written with the official Python SDK (``mcp`` 2.x), served over stdio.

Runs in the peer venv (.cache/peers/py, made by scripts/peers.sh), never in mcpkit's:

    .cache/peers/py/bin/python tests/interop/peers/py_server.py [--http PORT]

The official SDK serves both eras on stdio: a ``server/discover`` or a request carrying the
2026-07-28 ``_meta`` is served statelessly, an ``initialize`` opens a handshake-era session.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve, Sample
from mcp_types import CreateMessageResult, SamplingMessage, TextContent
from pydantic import BaseModel

# tools/list stays fresh for a minute (2026-07-28 caching hints; the handshake era has none)
server = MCPServer(
    "official-python-peer", cache_hints={"tools/list": CacheHint(ttl_ms=60_000, scope="public")}
)


class Person(BaseModel):
    name: str


def ask_name() -> Elicit[Person]:
    return Elicit("What is your name?", Person)


def draft_haiku(topic: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=topic))
    return Sample([message], max_tokens=50)


@server.tool()
def hello(person: Annotated[Person, Resolve(ask_name)]) -> str:
    """Greet the user by the name they give (an elicitation)."""
    return f"Hello, {person.name}!"


@server.tool()
def haiku(topic: str, sampled: Annotated[CreateMessageResult, Resolve(draft_haiku)]) -> str:
    """A haiku on ``topic`` from the client's model (a sampling)."""
    content = sampled.content
    return content.text if isinstance(content, TextContent) else "?"


@server.tool()
async def touch_tools(ctx: Context) -> str:
    """Announce that the tool list changed (to subscriptions/listen subscribers)."""
    await ctx.notify_tools_changed()
    return "announced"


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"{a + b}"


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.prompt()
def greet(name: str) -> str:
    """A greeting prompt."""
    return f"Hello, {name}!"


@server.resource("peer://static")
def static() -> str:
    """A static text resource."""
    return "static peer resource"


if __name__ == "__main__":
    import sys

    if len(sys.argv) > 2 and sys.argv[1] == "--http":  # py_server.py --http PORT
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
