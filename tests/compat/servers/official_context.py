"""An official-SDK server using the Context: progress and logging, elicitation, sampling,
reading its own resources, the lifespan, notifications, many tools (pagination) and tools
added at run time. Runs on the official SDK as it is, and on mcpkit with its ``mcp.``
imports rewritten to ``mcpkit.compat.mcp.``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel


@dataclass
class AppContext:
    db: dict[str, str]


@asynccontextmanager
async def lifespan(server: MCPServer) -> AsyncIterator[AppContext]:
    yield AppContext(db={"greeting": f"hello from {server.name}"})


mcp = MCPServer("context", lifespan=lifespan)


@mcp.resource("config://app")
def config() -> str:
    return "debug=false"


@mcp.tool()
async def steps(count: int, ctx: Context) -> str:
    """Reports progress."""
    for i in range(1, count + 1):
        await ctx.report_progress(i, count, f"step {i}")
    return f"{count} steps"


@mcp.tool()
async def chatty(ctx: Context) -> str:
    """Logs at every level."""
    await ctx.debug("a debug line")
    await ctx.info("an info line", logger_name="chatty")
    await ctx.warning({"disk": "low"})
    await ctx.error("an error line")
    return f"request {ctx.request_id != ''}"


class Person(BaseModel):
    name: str
    age: int


@mcp.tool()
async def who(ctx: Context) -> str:
    """Asks the user."""
    result = await ctx.elicit("Who are you?", Person)
    if result.action == "accept" and result.data:
        return f"{result.data.name} is {result.data.age}"
    return result.action


@mcp.tool()
async def ask(question: str, ctx: Context) -> str:
    """Asks the client's LLM."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=question))],
        max_tokens=50,
        system_prompt="Be brief.",
    )
    return result.content.text if result.content.type == "text" else "?"


@mcp.tool()
def greeting(ctx: Context) -> str:
    """Reads the lifespan's state (a sync tool)."""
    return ctx.request_context.lifespan_context.db["greeting"]


@mcp.tool()
async def own_config(ctx: Context) -> str:
    """Reads one of the server's resources."""
    contents = list(await ctx.read_resource("config://app"))
    return f"{contents[0].content} ({contents[0].mime_type})"


@mcp.tool()
async def announce(ctx: Context) -> str:
    """Sends notifications."""
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_resource_list_changed()
    await ctx.session.send_prompt_list_changed()
    await ctx.session.send_resource_updated("config://app")
    return "announced"


@mcp.tool()
def grow(name: str) -> str:
    """Adds a tool."""

    def added(x: int) -> int:
        return x * 2

    mcp.add_tool(added, name=name, description="Added at run time.")
    return f"added {name}"


def make(i: int):
    def numbered(value: str = "x") -> str:
        return f"{i}:{value}"

    numbered.__doc__ = f"Numbered tool {i}."
    return numbered


for n in range(40):
    mcp.add_tool(make(n), name=f"numbered_{n:02d}")


if __name__ == "__main__":
    mcp.run()
