"""fastmcp's Client: ``.data`` typed from the output schema, for enums, literals, dates,
times, UUIDs, URLs, optional values, unions and containers of models."""

import asyncio
import datetime
import enum
import uuid
from typing import Literal

from fastmcp import Client, FastMCP
from pydantic import AnyUrl, BaseModel


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Item(BaseModel):
    color: Color
    kind: Literal["a", "b"]
    when: datetime.date
    extra: dict[str, int] = {}
    maybe: str | None = None


mcp = FastMCP("data")


@mcp.tool
def item() -> Item:
    return Item(color=Color.RED, kind="a", when=datetime.date(2024, 1, 2))


@mcp.tool
def color() -> Color:
    return Color.BLUE


@mcp.tool
def moment() -> datetime.datetime:
    return datetime.datetime(2024, 1, 2, 3, 4, 5)


@mcp.tool
def clock() -> datetime.time:
    return datetime.time(12, 30)


@mcp.tool
def span() -> datetime.timedelta:
    return datetime.timedelta(minutes=90)


@mcp.tool
def ident() -> uuid.UUID:
    return uuid.UUID("12345678-1234-5678-1234-567812345678")


@mcp.tool
def link() -> AnyUrl:
    return AnyUrl("https://example.com/a")


@mcp.tool
def optional() -> int | None:
    return None


@mcp.tool
def either() -> int | str:
    return "seven"


@mcp.tool
def ratio() -> float:
    return 0.5


@mcp.tool
def flag() -> bool:
    return True


@mcp.tool
def catalogue() -> dict[str, Item]:
    return {"x": Item(color=Color.BLUE, kind="b", when=datetime.date(2025, 5, 6))}


@mcp.tool
def rows() -> list[dict[str, int]]:
    return [{"a": 1}, {"b": 2}]


async def main():
    async with Client(mcp) as client:
        for tool in await client.list_tools():
            result = await client.call_tool(tool.name)
            print(tool.name, repr(result.data))


if __name__ == "__main__":
    asyncio.run(main())
