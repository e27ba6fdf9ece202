"""Structured output by return annotation: objects as they are, other JSON types wrapped as
``{"result": ...}``, ``str`` plain text unless asked, ``structured_output=False`` off."""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson
from pydantic import BaseModel
from typing_extensions import TypedDict

from mcpkit import Server
from tests.server.helpers import call, connected, text


class Point(BaseModel):
    x: int
    y: int


@dataclasses.dataclass
class Box:
    w: int


class Movie(TypedDict):
    title: str


def make_app() -> Server:
    app = Server("structured")

    @app.tool()
    def model() -> Point:
        return Point(x=1, y=2)

    @app.tool()
    def dc() -> Box:
        return Box(3)

    @app.tool()
    def td() -> Movie:
        return {"title": "Alien"}

    @app.tool()
    def mapping() -> dict[str, int]:
        return {"a": 1}

    @app.tool()
    def integer() -> int:
        return 42

    @app.tool()
    def number() -> float:
        return 1.5

    @app.tool()
    def flag() -> bool:
        return True

    @app.tool()
    def ints() -> list[int]:
        return [1, 2]

    @app.tool()
    def strings() -> list[str]:
        return ["a", "b"]

    @app.tool()
    def maybe() -> int | None:
        return None

    @app.tool()
    def plain() -> str:
        return "just text"

    @app.tool(structured_output=True)
    def forced() -> str:
        return "wrapped text"

    @app.tool(structured_output=False)
    def off() -> Point:
        return Point(x=5, y=6)

    @app.tool(structured_output=False)
    def off_int() -> int:
        return 7

    return app


OBJECTS = {
    "model": {"x": 1, "y": 2},
    "dc": {"w": 3},
    "td": {"title": "Alien"},
    "mapping": {"a": 1},
}
WRAPPED = {
    "integer": 42,
    "number": 1.5,
    "flag": True,
    "ints": [1, 2],
    "strings": ["a", "b"],
    "maybe": None,
    "forced": "wrapped text",
}


async def test_structured_output_by_return_annotation(wire: Any) -> None:
    async with connected(make_app(), wire) as (client, _):
        tools = {t["name"]: t for t in (await client.request("tools/list"))["tools"]}
        for name, expected in OBJECTS.items():
            schema = tools[name]["outputSchema"]
            assert schema["type"] == "object", name
            r = await call(client, name)
            assert r["structuredContent"] == expected, name
            assert orjson.loads(text(r)) == expected, name  # the same JSON as a text block
        for name, value in WRAPPED.items():
            schema = tools[name]["outputSchema"]
            assert schema["type"] == "object" and schema["required"] == ["result"], name
            assert set(schema["properties"]) == {"result"}, name
            r = await call(client, name)
            assert r["structuredContent"] == {"result": value}, name
            assert orjson.loads(text(r)) == {"result": value}, name
        assert tools["integer"]["outputSchema"]["properties"]["result"]["type"] == "integer"
        assert tools["flag"]["outputSchema"]["properties"]["result"]["type"] == "boolean"
        # str: a plain text block, no schema.
        assert "outputSchema" not in tools["plain"]
        r = await call(client, "plain")
        assert r == {"content": [{"type": "text", "text": "just text"}]}
        # structured_output=False: content only.
        for name, shown in (("off", '"x":5'), ("off_int", "7")):
            assert "outputSchema" not in tools[name]
            r = await call(client, name)
            assert "structuredContent" not in r and shown in text(r).replace(" ", "")
