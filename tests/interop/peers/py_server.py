"""A small server written with the official Python SDK (``mcp`` 2.x), served over stdio.

Runs in the peer venv (.cache/peers/py, made by scripts/peers.sh), never in mcpkit's:

    .cache/peers/py/bin/python tests/interop/peers/py_server.py

The official SDK serves both eras on stdio: a ``server/discover`` or a request carrying the
2026-07-28 ``_meta`` is served statelessly, an ``initialize`` opens a handshake-era session.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("official-python-peer")


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
    server.run("stdio")
