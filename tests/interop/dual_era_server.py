"""An mcpkit server for the interop tests of both eras (stdio): the same handlers answer a
2025 client with live requests and a 2026-07-28 client with ``input_required`` rounds."""

from __future__ import annotations

from mcpkit import Context, Server

app = Server("dual-era", "1.0", instructions="Interop fixture.", ttl_ms=1000, cache_scope="public")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
async def greet(ctx: Context) -> str:
    """Ask the user's name, then greet them."""
    answer = await ctx.elicit(
        "What is your name?",
        {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        key="user_name",
    )
    if not answer.accepted or answer.data is None:
        return f"no name ({answer.action})"
    return f"Hello, {answer.data['name']}! ({ctx.era})"


@app.tool()
async def capital(ctx: Context) -> str:
    """Ask the client's model a question."""
    result = await ctx.sample("What is the capital of France?", max_tokens=50, key="sample")
    return f"LLM said: {getattr(result.content, 'text', '')}"


@app.tool()
async def where(ctx: Context) -> str:
    """The client's roots."""
    return ", ".join(str(r.uri) for r in await ctx.list_roots(key="roots"))


@app.resource("test://static", mime_type="text/plain")
def static() -> str:
    """A static text."""
    return "static text"


@app.resource("test://item/{id}", mime_type="text/plain")
def item(id: str) -> str:
    """One item."""
    return f"item {id}"


@app.prompt()
def hello(name: str) -> str:
    """Say hello to someone."""
    return f"Say hello to {name}"


@app.completion(prompt="hello", argument="name")
def names(value: str) -> list[str]:
    return [n for n in ("alice", "albert", "bob") if n.startswith(value)]


if __name__ == "__main__":
    app.run()
