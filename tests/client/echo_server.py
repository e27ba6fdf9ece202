"""A server whose tool echoes its arguments back as structured content (memory as ``app``;
on stdio when run), for checking how the client puts arguments on the wire."""

from __future__ import annotations

from typing import Any

from mcpkit import Server

app = Server("echo", version="1.0.0")


@app.tool(input_schema={"type": "object"})
def echo(arguments: dict[str, Any]) -> dict[str, Any]:
    """Return the arguments exactly as received."""
    return arguments


if __name__ == "__main__":
    app.run()
