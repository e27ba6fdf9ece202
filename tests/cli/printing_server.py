"""A server for the CLI tests that prints to stdout at import and in its tools, as user code
does: run in memory (``file.py:app``) or over stdio (a file target), those prints must not
reach the command's stdout."""

from __future__ import annotations

from mcpkit import Server

print("printed while importing")

app = Server("printing", version="0.1")


@app.tool()
def shout(text: str) -> str:
    """Print the text, then return it in capitals."""
    print(f"printed by the tool: {text}")
    return text.upper()


@app.tool()
async def shout_async(text: str) -> str:
    """The same from an async tool."""
    print(f"printed by the async tool: {text}")
    return text.upper()


if __name__ == "__main__":
    app.run()
