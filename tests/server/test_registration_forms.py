"""Ways to register: ``@app.tool`` / ``@app.prompt`` with or without parentheses,
``add_resource`` / ``add_prompt`` beside ``add_tool``, and ``typing.TypedDict`` annotations
(which pydantic refuses before Python 3.12 unless they come from typing_extensions)."""

from __future__ import annotations

import typing
from typing import Any

from mcpkit import Server
from tests.server.helpers import call, connected, text


class Weather(typing.TypedDict):
    """Current weather."""

    city: str
    celsius: float


class Query(typing.TypedDict, total=False):
    city: typing.Required[str]
    days: int


class Report(typing.TypedDict):
    today: Weather
    later: list[Weather]


async def test_typing_typeddict_return_and_parameter(wire: Any) -> None:
    app = Server("td")

    @app.tool()
    def weather(city: str) -> Weather:
        return {"city": city, "celsius": 21.5}

    @app.tool()
    def forecast(query: Query) -> Report:
        today: Weather = {"city": query["city"], "celsius": 20.0}
        return {"today": today, "later": [today] * query.get("days", 1)}

    async with connected(app, wire) as (client, _):
        tools = {t["name"]: t for t in (await client.request("tools/list", timeout=10))["tools"]}
        schema = tools["weather"]["outputSchema"]
        assert schema["properties"]["celsius"]["type"] == "number"
        assert schema["required"] == ["city", "celsius"]
        query = tools["forecast"]["inputSchema"]
        query_def = next(iter(query["$defs"].values())) if "$defs" in query else query
        assert "city" in str(query_def) and "days" in str(query_def)
        done = await call(client, "weather", {"city": "Oslo"})
        assert done["structuredContent"] == {"city": "Oslo", "celsius": 21.5}
        done = await call(client, "forecast", {"query": {"city": "Rome", "days": 2}})
        assert done["structuredContent"]["later"] == [{"city": "Rome", "celsius": 20.0}] * 2
        missing = await call(client, "forecast", {"query": {"days": 2}})
        # query["city"] raised KeyError in the tool: an unexpected exception, masked.
        assert missing["isError"] is True
        assert text(missing).startswith("Error executing tool 'forecast' (error id ")


async def test_decorators_with_and_without_parentheses(wire: Any) -> None:
    app = Server("forms")

    @app.tool
    def bare_tool(x: int) -> int:
        return x + 1

    @app.tool(name="named_tool")
    def other_tool(x: int) -> int:
        return x * 2

    @app.prompt
    def bare_prompt(topic: str) -> str:
        return f"about {topic}"

    @app.prompt(name="named_prompt")
    def other_prompt() -> str:
        return "named"

    assert bare_tool(1) == 2 and bare_prompt("x") == "about x"  # still the functions
    async with connected(app, wire) as (client, _):
        assert (await call(client, "bare_tool", {"x": 1}))["structuredContent"] == {"result": 2}
        assert (await call(client, "named_tool", {"x": 3}))["structuredContent"] == {"result": 6}
        got = await client.request(
            "prompts/get", {"name": "bare_prompt", "arguments": {"topic": "t"}}, timeout=10
        )
        assert got["messages"][0]["content"]["text"] == "about t"
        got = await client.request("prompts/get", {"name": "named_prompt"}, timeout=10)
        assert got["messages"][0]["content"]["text"] == "named"


async def test_add_resource_and_add_prompt(wire: Any) -> None:
    app = Server("add")

    def readme() -> str:
        return "hello"

    def item(id: int) -> dict[str, int]:
        return {"id": id}

    def greet(name: str) -> str:
        return f"Hi {name}"

    app.add_resource(readme, "file:///readme", mime_type="text/markdown", title="Read me")
    app.add_resource(item, "mem://items/{id}")
    app.add_prompt(greet, name="greeting", description="Say hi")
    async with connected(app, wire) as (client, _):
        listed = (await client.request("resources/list", timeout=10))["resources"]
        assert listed == [
            {
                "uri": "file:///readme",
                "name": "readme",
                "title": "Read me",
                "mimeType": "text/markdown",
            }
        ]
        read = await client.request("resources/read", {"uri": "file:///readme"}, timeout=10)
        assert read["contents"][0]["text"] == "hello"
        read = await client.request("resources/read", {"uri": "mem://items/4"}, timeout=10)
        assert read["contents"][0]["text"] == '{"id":4}'
        prompts = (await client.request("prompts/list", timeout=10))["prompts"]
        assert [(p["name"], p["description"]) for p in prompts] == [("greeting", "Say hi")]
        got = await client.request(
            "prompts/get", {"name": "greeting", "arguments": {"name": "Al"}}, timeout=10
        )
        assert got["messages"][0]["content"]["text"] == "Hi Al"
