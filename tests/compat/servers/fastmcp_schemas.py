from __future__ import annotations

from typing import Literal

from fastmcp import FastMCP
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from pydantic import BaseModel, Field

mcp = FastMCP("schemas")


class Place(BaseModel):
    """A place on the map."""

    title: str
    kind: Literal["city", "village"] = "city"
    tags: list[str] = Field(default_factory=list, title="Tag list")


class Trip(BaseModel):
    title: str
    stops: list[Place] = []
    home: Place | None = None
    note: dict[str, str] = Field(default={"title": "kept"})


class Tree(BaseModel):
    name: str
    children: list[Tree] = []


@mcp.tool
def plan(trip: Trip, start: Place) -> Trip:
    """Plan a trip.

    Args:
        trip: The trip so far.
        start: Where it starts.
    """
    return Trip(title=trip.title, stops=[start, *trip.stops])


@mcp.tool(output_schema=Trip.model_json_schema())
def given(name: str) -> dict[str, object]:
    """An output schema handed over as it is."""
    return {"title": name, "stops": [{"title": "Oslo", "kind": "city", "tags": []}]}


@mcp.tool
def places(n: int) -> list[Place]:
    return [Place(title=f"p{i}") for i in range(n)]


@mcp.tool
def tree(depth: int) -> Tree:
    node = Tree(name="leaf")
    for i in range(depth):
        node = Tree(name=f"n{i}", children=[node])
    return node


@mcp.tool
def either(as_text: bool) -> list[dict[str, str]] | str:
    return "plain" if as_text else [{"a": "b"}]


@mcp.tool
def related(request: int) -> dict[str, object]:
    """Built with the official SDK's message metadata classes."""
    meta = ServerMessageMetadata(related_request_id=request)
    wrapped = SessionMessage(message=None, metadata=meta)  # type: ignore[arg-type]
    return {"related": meta.related_request_id, "sends": wrapped.metadata.can_send_request}


if __name__ == "__main__":
    mcp.run()
