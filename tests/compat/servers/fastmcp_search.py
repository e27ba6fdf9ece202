"""fastmcp's tool search transforms: ``RegexSearchTransform`` (or ``BM25SearchTransform``
with ``bm25`` as the first argument) in place of the tool listing, a pinned tool, the
search tool's answers and the ``call_tool`` proxy."""

import os
import sys

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.server.transforms.search import BM25SearchTransform, RegexSearchTransform
from pydantic import Field

mcp = FastMCP("catalog")


@mcp.tool
def help() -> str:
    """What this server does."""
    return "search, then call"


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mcp.tool
def multiply(x: float, y: float) -> float:
    """Multiply two numbers together."""
    return x * y


@mcp.tool
def get_weather(city: Annotated[str, Field(description="The city to forecast")]) -> str:
    """Tomorrow's weather forecast for a city."""
    return f"sun in {city}"


@mcp.tool
def send_email(to: str, subject: str, body: str = "") -> dict[str, str]:
    """Send an email message to a recipient."""
    return {"sent": to}


@mcp.tool
def list_files(path: str = ".") -> list[str]:
    """List the files of a directory."""
    return ["a.txt", "b.txt"]


kind = BM25SearchTransform if sys.argv[1:] == ["bm25"] else RegexSearchTransform
mcp.add_transform(kind(max_results=3, always_visible=["help"]))

if __name__ == "__main__":
    mcp.run()
