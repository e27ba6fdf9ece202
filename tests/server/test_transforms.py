"""Tool transforms: a new tool made from an existing one (renamed, re-described, arguments
hidden, fixed, renamed or given new defaults, the call wrapped), served in memory and over
HTTP in both eras, on its own server and through a mount."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.server.transforms import ArgTransform, CallNext, ToolResult
from tests.server.middleware.helpers import IDS, WAYS, connect


def search_server() -> Server[Any]:
    app: Server[Any] = Server("docs")
    calls: list[dict[str, Any]] = []

    @app.tool()
    def search(q: str, limit: int = 5, lang: str = "en") -> list[str]:
        """Search the documents."""
        calls.append({"q": q, "limit": limit, "lang": lang})
        return [f"{q}/{lang}/{i}" for i in range(limit)]

    app.calls = calls  # type: ignore[attr-defined]
    return app


def find_args() -> dict[str, ArgTransform]:
    return {
        "q": ArgTransform(name="query", description="Words to look for"),
        "limit": ArgTransform(hide=True, default=2),
        "lang": ArgTransform(default="fr"),
    }


def test_the_new_schema_hides_renames_and_moves_defaults() -> None:
    app = search_server()
    entry = app.transform_tool("search", name="find", description="Find.", args=find_args())
    schema = entry.definition["inputSchema"]
    assert entry.definition["description"] == "Find."
    assert set(schema["properties"]) == {"query", "lang"}
    assert schema["properties"]["query"]["description"] == "Words to look for"
    assert schema["properties"]["query"]["title"] == "Query"
    assert schema["properties"]["lang"]["default"] == "fr"
    assert schema["required"] == ["query"]
    assert schema["additionalProperties"] is False
    # the original's output schema is kept
    assert entry.definition["outputSchema"] == app.tools.tools["search"].definition["outputSchema"]


def test_bad_transforms_are_refused_at_registration() -> None:
    app = search_server()
    with pytest.raises(ValueError, match="no argument"):
        app.transform_tool("search", name="a", args={"nope": ArgTransform(hide=True)})
    with pytest.raises(ValueError, match="required"):
        app.transform_tool("search", name="b", args={"q": ArgTransform(hide=True)})
    with pytest.raises(ValueError, match="two arguments"):
        app.transform_tool("search", name="c", args={"lang": ArgTransform(name="q")})
    with pytest.raises(ValueError, match="no tool named"):
        app.transform_tool("missing", name="d")
    with pytest.raises(ValueError, match="name of its own"):
        app.transform_tool("search")
    assert set(app.tools.tools) == {"search"}


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_calls_reach_the_original_with_its_names(transport: str, era: str) -> None:
    app = search_server()
    app.transform_tool("search", name="find", description="Find.", args=find_args())
    async with connect(app, transport, era) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"search", "find"}
        assert set(tools["find"].input_schema.properties) == {"query", "lang"}
        result = await client.call_tool("find", {"query": "mcp"})
        assert not result.is_error
        assert result.structured_content == {"result": ["mcp/fr/0", "mcp/fr/1"]}
        result = await client.call_tool("find", {"query": "mcp", "lang": "de"})
        assert result.structured_content == {"result": ["mcp/de/0", "mcp/de/1"]}
        # the hidden argument cannot be sent, nor the old name of a renamed one
        refused = 0
        for bad in ({"query": "x", "limit": 1000}, {"q": "x"}, {}):
            try:
                result = await client.call_tool("find", bad)
            except McpError:
                refused += 1
                continue
            assert result.is_error
            assert "Invalid arguments for tool 'find'" in result.content[0].text  # type: ignore[union-attr]
            refused += 1
        assert refused == 3
        # the original is still there, with its own defaults
        result = await client.call_tool("search", {"q": "a", "limit": 1})
        assert result.structured_content == {"result": ["a/en/0"]}
    assert app.calls == [  # type: ignore[attr-defined]
        {"q": "mcp", "limit": 2, "lang": "fr"},
        {"q": "mcp", "limit": 2, "lang": "de"},
        {"q": "a", "limit": 1, "lang": "en"},
    ]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_a_wrap_changes_arguments_and_result(transport: str, era: str) -> None:
    app = search_server()

    @app.tool_transform("search", name="shout", args={"q": ArgTransform(name="text")})
    async def shout(arguments: dict[str, Any], call_next: CallNext) -> Any:
        result = await call_next({**arguments, "text": arguments["text"].lower(), "limit": 1})
        assert isinstance(result, ToolResult) and not result.is_error
        return [item.upper() for item in result.structured["result"]]

    def passthrough(arguments: dict[str, Any], call_next: CallNext) -> Any:
        return call_next(arguments)  # sync, returning the awaitable of the result

    app.transform_tool("search", name="same", wrap=passthrough, keep_original=True)
    async with connect(app, transport, era) as client:
        result = await client.call_tool("shout", {"text": "HeLLo"})
        assert result.structured_content == {"result": ["HELLO/EN/0"]}
        result = await client.call_tool("same", {"q": "z", "limit": 1})
        assert result.structured_content == {"result": ["z/en/0"]}


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_the_original_can_be_hidden(transport: str, era: str) -> None:
    app = search_server()
    app.transform_tool(
        "search", name="find", args={"q": ArgTransform(name="query")}, keep_original=False
    )
    async with connect(app, transport, era) as client:
        assert [t.name for t in await client.list_tools()] == ["find"]
        result = await client.call_tool("find", {"query": "a", "limit": 1})
        assert result.structured_content == {"result": ["a/en/0"]}
        try:
            result = await client.call_tool("search", {"q": "a"})
        except McpError as exc:
            assert "Unknown tool" in str(exc)
        else:
            raise AssertionError(f"the hidden original answered: {result}")


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_transforms_compose_with_mounts(transport: str, era: str) -> None:
    child = search_server()
    child.transform_tool("search", name="find", args={"q": ArgTransform(name="query")})
    app: Server[Any] = Server("gateway")
    app.mount(child, prefix="docs")
    # a mounted tool transformed in the parent, by its mounted name
    app.transform_tool(
        "docs_search",
        name="quick",
        description="One result.",
        args={"limit": ArgTransform(hide=True, default=1), "q": ArgTransform(name="words")},
    )
    async with connect(app, transport, era) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"quick", "docs_search", "docs_find"}
        assert set(tools["quick"].input_schema.properties) == {"words", "lang"}
        assert tools["quick"].description == "One result."
        result = await client.call_tool("docs_find", {"query": "m", "limit": 1})
        assert result.structured_content == {"result": ["m/en/0"]}
        result = await client.call_tool("quick", {"words": "w", "lang": "it"})
        assert result.structured_content == {"result": ["w/it/0"]}


def test_a_wrap_that_says_what_it_returns_gives_the_output_schema() -> None:
    app = search_server()

    async def first(arguments: dict[str, Any], call_next: CallNext) -> str:
        return str((await call_next(arguments)).structured["result"][0])

    async def count(arguments: dict[str, Any], call_next: CallNext) -> dict[str, int]:
        return {"n": len((await call_next(arguments)).structured["result"])}

    assert "outputSchema" not in app.transform_tool("search", name="a", wrap=first).definition
    schema = app.transform_tool("search", name="b", wrap=count).definition["outputSchema"]
    assert (
        schema["type"] == "object"
        and schema != app.tools.tools["search"].definition["outputSchema"]
    )


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_the_original_talks_back_through_the_transform(transport: str, era: str) -> None:
    app: Server[Any] = Server("shop")

    @app.tool()
    async def order(item: str, qty: int, ctx: Context) -> str:
        answer = await ctx.elicit(
            f"Buy {qty} {item}?",
            {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
        )
        return f"{item} x{qty}: {answer.action} {answer.content}"

    app.transform_tool("order", name="buy_one", args={"qty": ArgTransform(hide=True, default=1)})

    @app.tool_transform("order", name="buy_two")
    async def two(arguments: dict[str, Any], call_next: CallNext) -> Any:
        return await call_next({**arguments, "qty": 2})

    asked: list[str] = []

    async def elicit(params: Any, ctx: Any) -> Any:
        asked.append(params.message if hasattr(params, "message") else params["message"])
        return {"action": "accept", "content": {"ok": True}}

    async with connect(app, transport, era, elicitation_handler=elicit) as client:
        result = await client.call_tool("buy_one", {"item": "tea"})
        assert result.content[0].text == "tea x1: accept {'ok': True}"  # type: ignore[union-attr]
        result = await client.call_tool("buy_two", {"item": "jam", "qty": 9})
        assert result.content[0].text == "jam x2: accept {'ok': True}"  # type: ignore[union-attr]
    assert asked == ["Buy 1 tea?", "Buy 2 jam?"]


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
@pytest.mark.parametrize("mask", [False, True])
async def test_call_next_answers_failures_as_error_results(
    transport: str, era: str, mask: bool
) -> None:
    app: Server[Any] = Server("flaky", mask_errors=mask)

    @app.tool()
    def divide(a: int, b: int) -> float:
        return a / b

    @app.tool()
    def shout(text: str, ctx: Context) -> str:
        if not text:
            raise ValueError("nothing to shout")
        return text.upper()

    seen: list[tuple[bool, str]] = []

    async def record(arguments: dict[str, Any], call_next: CallNext) -> Any:
        result = await call_next(arguments)
        seen.append((result.is_error, result.text))
        return result

    app.transform_tool("divide", name="ratio", wrap=record)
    app.transform_tool("shout", name="loud", wrap=record)
    app.transform_tool("divide", name="half", args={"b": ArgTransform(hide=True, default=2)})
    async with connect(app, transport, era) as client:
        assert (await client.call_tool("ratio", {"a": 1, "b": 4})).structured_content == {
            "result": 0.25
        }
        assert (await client.call_tool("ratio", {"a": 1, "b": 0})).is_error
        assert (await client.call_tool("loud", {"text": "hey"})).content[0].text == "HEY"  # type: ignore[union-attr]
        assert (await client.call_tool("loud", {"text": ""})).is_error
        half = await client.call_tool("half", {"a": 5})
        assert half.structured_content == {"result": 2.5}
        assert half.content[0].text == '{"result":2.5}'  # type: ignore[union-attr]
    if mask:  # the exception's text stays in the server's log
        assert [(e, re.sub(r"\(error id \w+\)", "(error id X)", t)) for e, t in seen] == [
            (False, '{"result":0.25}'),
            (True, "Error executing tool 'divide' (error id X)"),
            (False, "HEY"),
            (True, "Error executing tool 'shout' (error id X)"),
        ]
    else:
        assert seen == [
            (False, '{"result":0.25}'),
            (True, "Error executing tool 'divide': division by zero"),
            (False, "HEY"),
            (True, "Error executing tool 'shout': nothing to shout"),
        ]
