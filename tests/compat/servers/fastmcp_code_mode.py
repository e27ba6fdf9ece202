"""fastmcp's ``CodeMode`` with the options its example leaves out: every discovery tool
(``Search``, ``GetSchemas``, ``GetTags``, ``ListTools``) with its own name, detail and limit,
a renamed and redescribed ``execute``, ``max_tool_calls``, tags, a hidden tool, a tool
raising ``ToolError``; with ``limits`` as the first argument, the sandbox's limits and
``wall_clock_timeout_secs``; with ``badlimits``, a limit Monty does not know."""

import asyncio
import os
import sys

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.experimental.transforms.code_mode import (
    CodeMode,
    GetSchemas,
    GetTags,
    ListTools,
    MontySandboxProvider,
    Search,
)
from fastmcp.utilities.types import Image
from pydantic import BaseModel, Field

mcp = FastMCP("coder")


class Forecast(BaseModel):
    city: str
    high: int
    sky: str = "clear"


@mcp.tool(tags={"math"})
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool(tags={"math", "stats"})
def mean(values: list[float]) -> float:
    """The mean of some numbers."""
    return sum(values) / len(values)


@mcp.tool(tags={"weather"})
def get_weather(
    city: Annotated[str, Field(description="The city to forecast")],
    unit: Annotated[str, Field(description="Degrees")] = "celsius",
) -> Forecast:
    """Tomorrow's weather forecast for a city."""
    return Forecast(city=city, high=21 if unit == "celsius" else 70)


@mcp.tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


@mcp.tool
def fail(reason: str) -> str:
    """Always fails."""
    raise ToolError(f"refused: {reason}")


@mcp.tool
async def slow() -> str:
    """Takes its time."""
    await asyncio.sleep(60)
    return "late"


@mcp.tool
def picture() -> Image:
    """A tiny picture."""
    return Image(data=b"abc", format="png")


@mcp.tool
def secret() -> str:
    """Hidden from everyone."""
    return "hidden"


mcp.disable(names={"secret"})

variant = sys.argv[1] if len(sys.argv) > 1 else "options"
if variant == "limits":
    mcp.add_transform(
        CodeMode(
            sandbox_provider=MontySandboxProvider(
                limits={"max_memory": 10_000_000, "max_recursion_depth": 40}
            ),
            wall_clock_timeout_secs=1.0,
        )
    )
elif variant == "badlimits":
    mcp.add_transform(CodeMode(sandbox_provider=MontySandboxProvider(limits={"bogus": 1})))
else:
    mcp.add_transform(
        CodeMode(
            discovery_tools=[
                Search(default_detail="detailed", default_limit=2),
                GetSchemas(name="schemas", default_detail="full"),
                GetTags(),
                ListTools(),
            ],
            execute_tool_name="run_code",
            execute_description="Run Python that calls the tools.",
            max_tool_calls=3,
            sandbox_provider=MontySandboxProvider(limits=None),
        )
    )

if __name__ == "__main__":
    mcp.run()
