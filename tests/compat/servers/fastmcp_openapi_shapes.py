"""fastmcp's ``FastMCP.from_fastapi`` on the shapes FastAPI gives operations: an embedded
body, a list body, a union body with a discriminator (its variants' fields flattened), a
recursive model, inherited models, list, header and cookie parameters, a plain-text
answer, an answer with no model."""

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

from typing import Annotated, Literal

from fastapi import Body, Cookie, FastAPI, Header, Query
from fastapi.responses import PlainTextResponse
from fastmcp import FastMCP
from pydantic import BaseModel, Field

app = FastAPI(title="Shapes")


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = 9


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool = True


class Node(BaseModel):
    name: str
    children: list["Node"] = []


class Base(BaseModel):
    id: int


class Child(Base):
    label: str | None = None


@app.post("/embedded")
def embedded(item: Annotated[Child, Body(embed=True)], note: str = "n") -> Child:
    return item


@app.post("/many")
def many(items: list[Child]) -> list[Child]:
    """Many children at once."""
    return items


@app.post("/animal")
def animal(pet: Annotated[Cat | Dog, Field(discriminator="kind")]) -> Cat | Dog:
    return pet


@app.post("/tree")
def tree(node: Node) -> Node:
    return node


@app.get("/filter")
def filter_(
    ids: Annotated[list[int], Query()] = [],
    x_token: Annotated[str | None, Header()] = None,
    session: Annotated[str | None, Cookie()] = None,
) -> dict:
    return {"ids": ids, "token": x_token, "session": session}


@app.get("/text", response_class=PlainTextResponse)
def text() -> str:
    return "plain words"


@app.get("/raw")
def raw():
    return {"free": "form"}


mcp = FastMCP.from_fastapi(app)

if __name__ == "__main__":
    mcp.run()
