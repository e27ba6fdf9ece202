"""fastmcp's elicitation shorthands (a scalar, a list of choices, a model, none)."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from dataclasses import dataclass

from fastmcp import Context, FastMCP

mcp = FastMCP("elicit")


@dataclass
class Person:
    name: str
    age: int


@mcp.tool
async def as_text(ctx: Context) -> str:
    answer = await ctx.elicit("Your name?", response_type=str)
    return f"{answer.action} {getattr(answer, 'data', None)!r}"


@mcp.tool
async def pick(ctx: Context) -> str:
    answer = await ctx.elicit("Colour?", response_type=["red", "green"])
    return f"{answer.action} {getattr(answer, 'data', None)!r}"


@mcp.tool
async def several(ctx: Context) -> str:
    answer = await ctx.elicit("Colours?", response_type=[["red", "green"]])
    return f"{answer.action} {getattr(answer, 'data', None)!r}"


@mcp.tool
async def number(ctx: Context) -> str:
    answer = await ctx.elicit("How many?", response_type=int)
    return f"{answer.action} {getattr(answer, 'data', None)!r}"


@mcp.tool
async def person(ctx: Context) -> str:
    answer = await ctx.elicit("Who?", response_type=Person)
    return f"{answer.action} {answer.data}"


if __name__ == "__main__":
    mcp.run(show_banner=False)
