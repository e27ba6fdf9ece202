"""Tools whose calls show how arguments are checked: lax conversion (``"1"`` for an
``int``, ``1`` for a ``float``, ``"yes"`` for a ``bool``, nested in a TypedDict, a dataclass
and a pydantic model), unknown arguments, missing ones, values that cannot be converted,
pydantic ``Field`` constraints and ``Annotated``. Each call answers with the ``repr`` of what
the function received. The first argument picks the SDK: ``mcp1`` (1.x ``FastMCP``),
``mcp2`` (2.x ``MCPServer``) or ``fastmcp``; ``strict`` after ``fastmcp`` turns its
``strict_input_validation`` on."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, Field
from typing_extensions import TypedDict

flavour = sys.argv[1] if len(sys.argv) > 1 else "fastmcp"
if flavour == "mcp1":
    from mcp.server.fastmcp import FastMCP as Server
elif flavour == "mcp2":
    from mcp.server.mcpserver import MCPServer as Server
else:
    from fastmcp import FastMCP as Server

if "strict" in sys.argv[2:]:  # fastmcp's strict_input_validation
    mcp = Server("argument-checks", strict_input_validation=True)
else:
    mcp = Server("argument-checks")


class Inner(TypedDict):
    x: int


class Answer(TypedDict):
    text: str
    inner: Inner


@dataclass
class Spot:
    x: int


@dataclass
class Pin:
    label: str
    spot: Spot


class Plain(BaseModel):
    count: int
    ratio: float = 0.5


@mcp.tool()
def add(a: int, b: float = 1.0) -> str:
    """An int and a float."""
    return repr((a, b))


@mcp.tool()
def flags(on: bool, n: int) -> str:
    """A bool and an int."""
    return repr((on, n))


@mcp.tool()
def nested(answer: Answer, pin: Pin, plain: Plain) -> str:
    """A TypedDict, a dataclass and a model, each holding a number."""
    return repr((answer, pin, plain))


@mcp.tool()
def limited(
    n: Annotated[int, Field(ge=1, le=10, description="From 1 to 10.")],
    name: Annotated[str, Field(min_length=2)] = "ab",
) -> str:
    """Field constraints."""
    return repr((n, name))


@mcp.tool()
def items(values: list[int], labels: dict[str, float] | None = None) -> str:
    """A list and a dict of numbers."""
    return repr((values, labels))


@mcp.tool()
def nothing() -> str:
    """No arguments."""
    return "nothing"


@mcp.tool()
def maybe(x: int | None = None, word: str = "w") -> str:
    """An optional int and a str."""
    return repr((x, word))


if __name__ == "__main__":
    mcp.run()
