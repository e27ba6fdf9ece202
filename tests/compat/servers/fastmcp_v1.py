"""A server on the official SDK 1.x's high-level ``FastMCP`` (``mcp.server.fastmcp``):
structured output of every annotation kind (models, TypedDicts, plain annotated classes,
``dict``, ``typing.Dict``), docstrings as written, errors, the Context (logs, progress,
lifespan), resources, templates, prompts (one refusing arguments of the wrong type). Runs
unchanged on ``mcp`` 1.x and on mcpkit (``python -m mcpkit.compat``)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Dict, TypedDict  # noqa: UP035

from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.fastmcp.prompts import base
from mcp.server.session import ServerSession
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e1a0b10000000049454e44ae426082"
)


@dataclass
class AppState:
    greeting: str


@asynccontextmanager
async def lifespan(server: FastMCP) -> AsyncIterator[AppState]:
    yield AppState(greeting=f"hello from {server.name}")


mcp = FastMCP("fastmcp-v1", instructions="A 1.x FastMCP server.", lifespan=lifespan)


class Weather(BaseModel):
    city: str
    temperature: float = Field(description="Degrees Celsius")


class Point(TypedDict):
    x: int
    y: int


class Plain:
    """A class with annotations only (no pydantic, no dataclass)."""

    name: str
    size: int

    def __init__(self, name: str, size: int) -> None:
        self.name = name
        self.size = size

    def __str__(self) -> str:  # the text content is str(value) (no memory address)
        return f"Plain({self.name}, {self.size})"


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: the first
        b: the second
    """
    return a + b


@mcp.tool(title="Weather", annotations=ToolAnnotations(readOnlyHint=True))
def weather(city: str) -> Weather:
    """Weather for a city."""
    return Weather(city=city, temperature=21.5)


@mcp.tool()
def point(x: int) -> Point:
    """A point."""
    return {"x": x, "y": x}


@mcp.tool()
def plain_class(name: str) -> Plain:
    """A plain annotated class."""
    return Plain(name, len(name))


@mcp.tool()
def typed_dict_return() -> Dict[str, Any]:  # noqa: UP006
    """typing.Dict is wrapped."""
    return {"a": 1}


@mcp.tool()
def bare_dict() -> dict:  # type: ignore[type-arg]
    """A bare dict has no output schema."""
    return {"b": 2}


@mcp.tool()
def builtin_dict() -> dict[str, int]:
    """A parametrised dict is the object itself."""
    return {"c": 3}


@mcp.tool()
def text(value: str) -> str:
    """Text."""
    return value * 2


@mcp.tool()
def direct() -> CallToolResult:
    """A CallToolResult."""
    return CallToolResult(content=[TextContent(type="text", text="as is")], isError=False)


@mcp.tool()
def picture() -> Image:
    """An image."""
    return Image(data=PNG, format="png")


@mcp.tool()
def refuse() -> str:
    """Raises a ToolError."""
    raise ToolError("not today")


@mcp.tool()
def crash(n: int) -> int:
    """Raises something else."""
    raise KeyError(f"missing {n}")


@mcp.tool()
async def work(steps: int, ctx: Context[ServerSession, AppState, Any]) -> str:
    """Reports progress and logs."""
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
    await ctx.info("working")
    await ctx.debug("details")
    return ctx.request_context.lifespan_context.greeting


@mcp.resource("config://app")
def config() -> str:
    """The configuration."""
    return "debug=false"


@mcp.resource("data://numbers", mime_type="application/json")
def numbers() -> list[int]:
    return [1, 2, 3]


@mcp.resource("users://{user_id}/profile")
def profile(user_id: str) -> dict[str, str]:
    """A user's profile."""
    return {"id": user_id}


@mcp.prompt()
def review(code: str) -> str:
    """Review some code."""
    return f"Please review:\n{code}"


@mcp.prompt(title="Debug")
def debug_error(error: str) -> list[base.Message]:
    return [base.UserMessage(f"I see: {error}"), base.AssistantMessage("What did you try?")]


@mcp.prompt()
def plan(days: int, ctx: Context[ServerSession, AppState, Any], style: str = "brief") -> str:
    """Plan a trip (arguments arrive as strings; 1.x validates them with pydantic)."""
    return f"Plan {days + 1} days, {style}."


if __name__ == "__main__":
    mcp.run()
