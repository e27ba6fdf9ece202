"""The proxy tests' upstream: an mcpkit server of one era only, over stdio.

``python fixture_server.py legacy`` serves only the handshake era (2025-11-25 and older),
``python fixture_server.py modern`` only the stateless 2026-07-28 wire. Its tools ask
questions (elicitation in form and URL mode, sampling, roots), report progress and logs,
fail with their own JSON-RPC codes and wait until cancelled.

With ``--keep-roots`` (after the era) it behaves as servers that fetch the client's roots
on their own do: right after ``initialize`` and on ``notifications/roots/list_changed``,
keeping them for the ``kept_roots`` tool (which asks nothing).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mcpkit import Context, McpError, Server, versions

ERA = sys.argv[1] if len(sys.argv) > 1 else "legacy"
KEEP_ROOTS = "--keep-roots" in sys.argv[2:]
_MARKS = [a for a in sys.argv[2:] if a != "--keep-roots"]
CANCELLED_MARK = Path(_MARKS[0]) if _MARKS else None
#: The roots fetched last (``--keep-roots``).
KEPT: list[str] = []


async def keep_roots(ctx: Any, call_next: Any) -> Any:
    """Middleware: fetch the roots after initialize and when they change (a task of its
    own: the session answers nothing meanwhile)."""
    outcome = await call_next(ctx)
    if ctx.method in ("notifications/initialized", "notifications/roots/list_changed"):
        session = ctx.session

        async def fetch() -> None:
            if "roots" in session.client_capabilities:
                KEPT[:] = [str(root.uri) for root in await session.list_roots()]

        session.spawn(fetch())
    return outcome


app = Server(
    f"fixture-{ERA}",
    version="1.2.3",
    instructions=f"The {ERA} fixture.",
    modern_versions=() if ERA == "legacy" else versions.MODERN_SUPPORTED,
    page_size=2,
    middleware=[keep_roots] if KEEP_ROOTS else [],
)


@app.tool()
def kept_roots() -> list[str]:
    """The roots fetched last (``--keep-roots``): asks the client nothing."""
    return list(KEPT)


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


@app.tool(task_support="optional")
async def slow_add(a: int, b: int, ctx: Context) -> int:
    """Add two numbers, after a short while (a task when the client asks for one)."""
    await asyncio.sleep(0.05)
    return a + b


@app.tool(task_support="required")
async def report(topic: str) -> str:
    """A report that only runs as a task."""
    await asyncio.sleep(0.05)
    return f"report on {topic}"


@app.tool(task_support="optional")
async def task_greet(ctx: Context) -> str:
    """Ask the user's name while running (a task's question), then greet them."""
    answer = await ctx.elicit("Your name?", Name)
    return f"hello {answer.data.name}" if answer.data is not None else f"no name ({answer.action})"


@app.tool(task_support="optional")
async def task_wait() -> str:
    """Run until cancelled (a task to cancel)."""
    await asyncio.sleep(3600)
    return "never"


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
