"""Tools whose arguments nest TypedDicts, dataclasses and pydantic models (with and without
their own ``extra`` rule, in dicts and lists): each call answers with the ``repr`` of what
the function received, so extra keys kept, dropped or refused inside them show. The first
argument picks the SDK: ``mcp1`` (1.x ``FastMCP``), ``mcp2`` (2.x ``MCPServer``) or
``fastmcp``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import NotRequired

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypedDict

flavour = sys.argv[1] if len(sys.argv) > 1 else "fastmcp"
if flavour == "mcp1":
    from mcp.server.fastmcp import FastMCP as Server
elif flavour == "mcp2":
    from mcp.server.mcpserver import MCPServer as Server
else:
    from fastmcp import FastMCP as Server

mcp = Server("nested")


class Inner(TypedDict):
    x: int


class Answer(TypedDict):
    text: str
    inner: Inner
    note: NotRequired[str]


@dataclass
class Spot:
    x: int


@dataclass
class Pin:
    label: str
    spot: Spot


class Plain(BaseModel):
    name: str
    answer: Answer | None = None


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


@mcp.tool()
def typed_dict(answer: Answer) -> str:
    """A TypedDict holding a TypedDict."""
    return repr(answer)


@mcp.tool()
def typed_dicts(answers: list[Answer], by_name: dict[str, Answer]) -> str:
    """TypedDicts in a list and in a dict."""
    return repr((answers, by_name))


@mcp.tool()
def dataclass_arg(pin: Pin) -> str:
    """A dataclass holding a dataclass."""
    return repr(pin)


@mcp.tool()
def dataclasses_arg(pins: list[Pin], by_name: dict[str, Pin]) -> str:
    """Dataclasses in a list and in a dict."""
    return repr((pins, by_name))


@mcp.tool()
def models(plain: Plain, closed: Closed, open: Open) -> str:
    """Pydantic models: no extra rule of their own, extra="forbid", extra="allow"."""
    return repr((plain, closed, open))


@mcp.tool()
def model_lists(plains: list[Plain], opens: dict[str, Open]) -> str:
    """Pydantic models in a list and in a dict."""
    return repr((plains, opens))


@mcp.tool()
def optional_answer(answer: Answer | None = None, count: int = 1) -> str:
    """An optional TypedDict beside a scalar."""
    return repr((answer, count))


if __name__ == "__main__":
    mcp.run()
