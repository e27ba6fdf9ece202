"""ToolOptions: the one list of tool options, taken by ``@app.tool(...)``,
``Server.add_tool``, ``ToolRegistry.add`` and the compatibility layers alike."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, get_type_hints

import pytest

from mcpkit import Client, Server
from mcpkit.server import tool_options
from mcpkit.server.context import Context
from mcpkit.server.tool_options import ToolKwargs, ToolOptions
from mcpkit.server.tools import ToolRegistry


def test_kwargs_and_options_name_the_same_options() -> None:
    fields = {f.name for f in dataclasses.fields(ToolOptions)}
    assert set(ToolKwargs.__annotations__) == fields - {"name"}
    # the same types too, so that the decorator's typing says what the value object takes
    hints = get_type_hints(ToolOptions, vars(tool_options))
    typed = get_type_hints(ToolKwargs, vars(tool_options))
    assert {k: hints[k] for k in typed} == typed


def test_decorator_and_add_tool_take_every_option() -> None:
    app = Server("opts")
    keywords = {"title": "Echo", "timeout": 5.0, "max_concurrency": 2, "tags": {"t"}}

    @app.tool("echo_a", **keywords)
    def echo_a(text: str) -> str:
        return text

    def echo_b(text: str) -> str:
        return text

    app.add_tool(echo_b, name="echo_b", **keywords)
    for name in ("echo_a", "echo_b"):
        entry = app.tools.tools[name]
        assert entry.definition["title"] == "Echo"
        assert entry.timeout == 5.0
        assert entry.limiter is not None
        assert app.components.tags[("tools", name)] == frozenset({"t"})


def test_add_tool_takes_cache_hints_like_the_decorator() -> None:
    app = Server("opts")

    def tool() -> str:
        return "x"

    app.add_tool(tool, ttl_ms=5000, cache_scope="public")
    cache = app.tools.tools["tool"].cache
    assert cache is not None
    assert (cache.ttl_ms, cache.scope) == (5000, "public")


def test_unknown_option_names_it() -> None:
    app = Server("opts")
    with pytest.raises(TypeError, match=r"unknown tool option.*colour"):
        app.tool(colour="red")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("task_support", "sometimes", "task_support"), ("task_start", "later", "task_start")],
)
def test_bad_values_are_refused_when_made(field: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolOptions(**{field: value})


def test_registry_reads_the_value_object() -> None:
    changed: list[bool] = []
    registry = ToolRegistry(50, Context, lambda: changed.append(True))
    options = ToolOptions(name="add", description="Adds.", annotations={"readOnlyHint": True})

    def add(a: int, b: int) -> int:
        return a + b

    entry = registry.add(add, options)
    assert entry.definition["description"] == "Adds."
    assert entry.definition["annotations"] == {"readOnlyHint": True}
    assert changed == [True]


def test_keywords_round_trip() -> None:
    options = ToolOptions(name="n", title="T", timeout=3.0, task_start="explicit")
    assert options.keywords() == {
        "name": "n",
        "title": "T",
        "timeout": 3.0,
        "task_start": "explicit",
    }
    assert ToolOptions.of(**options.keywords()) == options
    assert options.replace(title="U").title == "U"


def test_decorator_signature_is_typed_from_the_kwargs() -> None:
    parameters = inspect.signature(Server.tool).parameters
    assert list(parameters) == ["self", "name", "options"]


async def test_options_reach_the_wire() -> None:
    app = Server("opts")

    @app.tool(title="Shout", annotations={"idempotentHint": True}, meta={"k": 1})
    def shout(text: str) -> str:
        return text.upper()

    async with Client(app) as client:
        (tool,) = await client.list_tools()
        result = await client.call_tool("shout", {"text": "hi"})
    dumped: dict[str, Any] = tool.model_dump(by_alias=True, exclude_none=True)
    assert dumped["title"] == "Shout"
    assert dumped["annotations"] == {"idempotentHint": True}
    assert dumped["_meta"] == {"k": 1}
    assert result.content[0].text == "HI"  # type: ignore[union-attr]


def test_a_bad_name_warns_at_the_registration() -> None:
    app = Server("opts")
    with pytest.warns(UserWarning, match="naming rules") as caught:
        app.tool(name="bad name")(lambda: "x")
    assert caught[0].filename == __file__
    with pytest.warns(UserWarning, match="naming rules") as caught:
        app.add_tool(lambda: "x", name="bad name 2")
    assert caught[0].filename == __file__
