"""The proxy tests' upstream: an mcpkit server of one era only, over stdio.

``python fixture_server.py legacy`` serves only the handshake era (2025-11-25 and older),
``python fixture_server.py modern`` only the stateless 2026-07-28 wire. Its tools ask
questions (elicitation in form and URL mode, sampling, roots), report progress and logs,
fail with their own JSON-RPC codes and wait until cancelled.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from pydantic import BaseModel

from mcpkit import Context, McpError, Server, versions

ERA = sys.argv[1] if len(sys.argv) > 1 else "legacy"
CANCELLED_MARK = Path(sys.argv[2]) if len(sys.argv) > 2 else None

app = Server(
    f"fixture-{ERA}",
    version="1.2.3",
    instructions=f"The {ERA} fixture.",
    modern_versions=() if ERA == "legacy" else versions.MODERN_SUPPORTED,
    page_size=2,
)


class Name(BaseModel):
    name: str


@app.tool()
async def greet(ctx: Context) -> str:
    """Ask the user's name (form elicitation) and greet them."""
    await ctx.info("asking for a name")
    answer = await ctx.elicit("Your name?", Name)
    if answer.action != "accept" or answer.data is None:
        return f"no name ({answer.action})"
    return f"hello {answer.data.name}"


@app.tool()
async def visit(ctx: Context) -> str:
    """Send the user to a URL (URL-mode elicitation)."""
    answer = await ctx.elicit_url("Sign in please", "https://example.com/login")
    return f"visit: {answer.action}"


@app.tool()
async def ask_model(question: str, ctx: Context) -> str:
    """Ask the client's model (sampling)."""
    result = await ctx.sample(question, max_tokens=20)
    text = getattr(result.content, "text", "?")
    return f"model said: {text}"


@app.tool()
async def show_roots(ctx: Context) -> list[str]:
    """The client's roots."""
    return [str(root.uri) for root in await ctx.list_roots()]


@app.tool()
async def count(n: int, ctx: Context) -> str:
    """Report progress n times, then finish."""
    for i in range(n):
        await ctx.progress(i + 1, n, f"step {i + 1}")
    return f"counted {n}"


@app.tool()
def fail() -> str:
    """Fail with an error of its own."""
    raise McpError(-32099, "fixture failure", {"why": "asked to"})


@app.tool()
async def wait_forever() -> str:
    """Wait until cancelled (then leave a mark in the file given as second argument)."""
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        if CANCELLED_MARK is not None:
            CANCELLED_MARK.write_text("cancelled")
        raise
    return "never"


@app.tool()
def add_tool(name: str) -> str:
    """Register one more tool (clients hear that the tool list changed)."""
    app.add_tool(lambda: name, name=name, description="added later")
    return f"added {name}"


@app.tool()
def touch() -> str:
    """Announce that fixture://greeting changed."""
    app.notify_resource_updated("fixture://greeting")
    return "touched"


@app.tool()
def pages() -> int:
    """How many tools there are (the page size is 2: tools/list has pages)."""
    return len(app.tools.tools)


@app.tool()
def crash() -> str:
    """Exit the server process at once (an upstream that dies)."""
    import os

    os._exit(3)


@app.resource("fixture://greeting", mime_type="text/plain")
def greeting() -> str:
    """A static text resource."""
    return "hi there"


@app.prompt()
def review(code: str) -> str:
    """Review some code."""
    return f"Please review: {code}"


async def _serve_modern() -> None:
    from mcpkit.transports.stdio import StdioServerTransport

    async with app.running():
        session = app.session(StdioServerTransport(), era="modern")
        await session.start()
        await session.wait_closed()


if __name__ == "__main__":
    if ERA == "modern":
        asyncio.run(_serve_modern())
    else:
        app.run()
