"""A fastmcp server: tools (bare and configured decorators, structured output, images,
errors), resources and templates, prompts, the Context (progress, logging, elicitation,
reading resources, the lifespan). Runs on fastmcp as it is, and on mcpkit with
``from fastmcp`` rewritten to ``from mcpkit.compat.fastmcp``."""

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from pydantic import BaseModel, Field

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError


@asynccontextmanager
async def lifespan(server: FastMCP) -> AsyncIterator[dict[str, str]]:
    yield {"greeting": f"hello from {server.name}"}


mcp = FastMCP("fast", instructions="A fastmcp style server.", lifespan=lifespan)


class Weather(BaseModel):
    city: str
    temperature: float


class Person(BaseModel):
    name: str
    age: int


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool(name="forecast", description="The weather.", tags={"weather"})
def weather(city: Annotated[str, Field(description="The city")]) -> Weather:
    return Weather(city=city, temperature=20.5)


@mcp.tool
def shout(text: str) -> str:
    """Upper case."""
    return text.upper()


@mcp.tool
def listing(n: int) -> list[int]:
    """Numbers."""
    return list(range(n))


@mcp.tool
def fail() -> str:
    """Always fails."""
    raise ValueError("boom")


@mcp.tool
def refuse() -> str:
    """Refuses with a ToolError."""
    raise ToolError("not today")


@mcp.tool(output_schema=None)
def loose(n: int) -> dict[str, int]:
    """No structured output."""
    return {"n": n}


@mcp.tool
async def steps(count: int, ctx: Context) -> str:
    """Progress and logs."""
    for i in range(1, count + 1):
        await ctx.report_progress(i, count, f"step {i}")
    await ctx.info("working", logger_name="steps")
    await ctx.warning("careful")
    return "done"


@mcp.tool
async def who(ctx: Context) -> str:
    """Asks the user."""
    result = await ctx.elicit("Who are you?", response_type=Person)
    if result.action == "accept":
        return f"{result.data.name} is {result.data.age}"
    return result.action


@mcp.tool
def greeting(ctx: Context) -> str:
    """Reads the lifespan's state."""
    return ctx.lifespan_context["greeting"]


@mcp.tool
async def own(ctx: Context) -> str:
    """Reads a resource of this server."""
    result = await ctx.read_resource("config://app")
    return str(result.contents[0].content)


@mcp.resource("config://app")
def config() -> str:
    """The configuration."""
    return "debug=false"


@mcp.resource("users://{user_id}/profile", mime_type="application/json")
def profile(user_id: str) -> dict[str, str]:
    """A user's profile."""
    return {"id": user_id}


@mcp.prompt
def review(code: str) -> str:
    """Review some code."""
    return f"Please review:\n{code}"


@mcp.prompt(name="explain", title="Explain")
def explain_topic(topic: str, depth: int = 1) -> str:
    """Explain a topic."""
    return f"Explain {topic} at depth {depth}."


if __name__ == "__main__":
    mcp.run(show_banner=False)
