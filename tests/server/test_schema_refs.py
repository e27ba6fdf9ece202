"""Generated input schemas have local ``$ref``/``$defs`` inlined (LLM clients read them
best); recursive models keep their references; a server or a tool can opt out."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from mcpkit import Client, McpError, Server
from mcpkit.client import ProtocolOptions
from mcpkit.json_schema import InvalidSchemaError, compile_schema, inline_local_refs


class Address(BaseModel):
    street: str
    city: str


class Person(BaseModel):
    name: str
    home: Address
    work: Address | None = None


class Node(BaseModel):
    value: int
    children: list[Node] = []


class Forest(BaseModel):
    trees: list[Node]
    where: Address


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [r for v in node.values() for r in refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in refs(v)]
    return []


def register(app: Server[Any], **options: Any) -> None:
    @app.tool(**options)
    def hire(person: Person, forest: Forest | None = None) -> str:
        return f"{person.name} of {person.home.city}"


async def test_nested_models_are_inlined_and_recursive_ones_keep_their_refs() -> None:
    app: Server[Any] = Server("schemas")
    register(app)
    schema = app.tools.tools["hire"].definition["inputSchema"]
    person = schema["properties"]["person"]
    assert person["type"] == "object" and person["title"] == "Person"
    assert person["properties"]["home"]["properties"]["city"] == {"title": "City", "type": "string"}
    assert set(refs(schema)) == {"#/$defs/Node"}  # only the recursive model is referenced
    assert set(schema["$defs"]) == {"Node"}
    assert refs(schema["$defs"]["Node"]) == ["#/$defs/Node"]
    async with Client(app, era="legacy", timeout=10) as client:
        listed = {t.name: t for t in await client.list_tools()}
        wire = listed["hire"].input_schema.model_dump(by_alias=True, exclude_none=True)
        assert set(refs(wire)) == {"#/$defs/Node"}
        ok = await client.call_tool(
            "hire",
            {
                "person": {"name": "Ada", "home": {"street": "1 Main", "city": "Oslo"}},
                "forest": {
                    "trees": [{"value": 1, "children": [{"value": 2}]}],
                    "where": {"street": "x", "city": "y"},
                },
            },
        )
        assert ok.content[0].text == "Ada of Oslo"  # type: ignore[union-attr]
        bad = await client.call_tool("hire", {"person": {"name": "Ada", "home": {"city": 3}}})
        assert bad.is_error and "Invalid arguments for tool 'hire'" in bad.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("where", ["server", "tool"])
async def test_the_refs_can_be_kept(where: str) -> None:
    if where == "server":
        app: Server[Any] = Server("schemas", inline_schema_refs=False)
        register(app)
    else:
        app = Server("schemas")
        register(app, inline_refs=False)
    schema = app.tools.tools["hire"].definition["inputSchema"]
    assert {"Address", "Person", "Node", "Forest"} <= set(schema["$defs"])
    assert schema["properties"]["person"] == {"$ref": "#/$defs/Person"}


async def test_a_tool_keeps_refs_on_a_server_that_inlines_and_vice_versa() -> None:
    app: Server[Any] = Server("schemas", inline_schema_refs=False)

    @app.tool(inline_refs=True)
    def one(person: Person) -> str:
        return person.name

    assert "$defs" not in app.tools.tools["one"].definition["inputSchema"]


def test_inline_local_refs_unit() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A", "description": "the a"},
            "b": {"$ref": "#/definitions/B"},
            "c": {"$ref": "#/properties/a"},
            "d": {"$ref": "https://example.com/x.json"},
            "e": {"$ref": "#/$defs/Loop1"},
        },
        "$defs": {
            "A": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Leaf"}}},
            "Leaf": {"type": "integer", "description": "leaf"},
            "Loop1": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Loop2"}}},
            "Loop2": {
                "type": "object",
                "properties": {"back": {"$ref": "#/$defs/Loop1"}, "n": {"$ref": "#/$defs/Leaf"}},
            },
            "Unused": {"type": "string"},
        },
        "definitions": {"B": {"type": "boolean"}},
    }
    original = repr(schema)
    out = inline_local_refs(schema)
    assert repr(schema) == original  # not changed in place
    props = out["properties"]
    assert props["a"] == {
        "type": "object",
        "properties": {"x": {"type": "integer", "description": "leaf"}},
        "description": "the a",
    }
    assert props["b"] == {"type": "boolean"}
    assert props["c"] == {"$ref": "#/properties/a"}
    assert props["d"] == {"$ref": "https://example.com/x.json"}
    assert props["e"] == {"$ref": "#/$defs/Loop1"}
    assert set(out["$defs"]) == {"Loop1", "Loop2"}
    assert out["$defs"]["Loop2"]["properties"]["n"] == {"type": "integer", "description": "leaf"}
    assert "definitions" not in out
    with pytest.raises(InvalidSchemaError, match="not fetched"):
        compile_schema(out)  # the reference to another document: refused, never fetched
    del out["properties"]["d"]
    validator = compile_schema(out)
    assert validator.is_valid({"a": {"x": 1}, "b": True, "e": {"next": {"back": {}}}})
    assert not validator.is_valid({"e": {"next": {"back": {"next": {"n": "no"}}}}})
    assert inline_local_refs({"type": "object"}) == {"type": "object"}


async def test_wrong_arguments_still_get_their_error_on_the_2025_03_26_wire() -> None:
    app: Server[Any] = Server("schemas")
    register(app)
    async with Client(
        app, era="legacy", protocol=ProtocolOptions(version="2025-03-26"), timeout=10
    ) as client:
        with pytest.raises(McpError) as refused:
            await client.call_tool("hire", {"person": {"name": 1}})
        assert refused.value.code == -32602
