"""The server the proxies of ``fastmcp_proxy_*.py`` serve."""

from fastmcp import Context, FastMCP

upstream = FastMCP("Upstream", instructions="Proxied tools.")


@upstream.tool
def echo(message: str) -> str:
    """Echo it."""
    return f"echo: {message}"


@upstream.tool
async def add(a: int, b: int, ctx: Context) -> int:
    await ctx.info("adding")
    await ctx.report_progress(1, 2, "half")
    return a + b


@upstream.tool
def boom() -> str:
    raise ValueError("bad")


@upstream.tool
async def greet_me(ctx: Context) -> str:
    answer = await ctx.elicit("Your name?", response_type=str)
    return f"hello {answer.data}" if answer.action == "accept" else answer.action


@upstream.resource("data://x")
def x() -> str:
    return "X"


@upstream.resource("greet://{name}")
def greet(name: str) -> dict:
    return {"hi": name}


@upstream.prompt
def ask(topic: str) -> str:
    return f"Tell me about {topic}"


if __name__ == "__main__":
    upstream.run()
