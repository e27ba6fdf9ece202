"""A hostile server's small schema whose ``$ref`` s double at each step is refused with a
clear error, after work proportional to a fixed bound, never expanded exponentially on the
client's event loop (a 1 KB outputSchema of depth 18 used to take over 20 s)."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from mcpkit.client import Client, OutputSchemaError, StdioOptions
from mcpkit.json_schema import (
    MAX_SCHEMA_NODES,
    SchemaTooLargeError,
    SchemaValidator,
    expanded_size,
)
from tests.conftest import ROOT, server_env


def doubling(depth: int, keyword: str = "anyOf") -> dict[str, Any]:
    """``d0`` refers to ``d1`` twice, ``d1`` to ``d2`` twice, ...: 2**depth leaves."""
    defs: dict[str, Any] = {
        f"d{i}": {keyword: [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(depth)
    }
    defs[f"d{depth}"] = {"type": "object", "required": ["never"]}
    return {"type": "object", "$ref": "#/$defs/d0", "$defs": defs}


def test_the_doubling_chain_is_refused_by_size() -> None:
    schema = doubling(16)
    assert len(json.dumps(schema)) < 1500
    with pytest.raises(SchemaTooLargeError, match="too large: more than 20000 nodes"):
        SchemaValidator(schema)
    # Deeper chains cost no more to refuse: counting stops at the bound.
    with pytest.raises(SchemaTooLargeError):
        expanded_size(doubling(200))
    # A shared node counts once per use (the count doubles with each step), recursion once.
    assert expanded_size(doubling(6)) > 1.9 * expanded_size(doubling(5))
    tree = {
        "$defs": {"node": {"properties": {"kids": {"items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node",
    }
    assert expanded_size(tree) < 20
    SchemaValidator(tree)


@pytest.mark.parametrize(
    "schema",
    [
        # through an anchor, an $id-relative reference and a JSON pointer with escapes
        {
            "$defs": {
                f"d{i}": {
                    "$anchor": f"a{i}",
                    "allOf": [{"$ref": f"#a{i + 1}"}, {"$ref": f"#a{i + 1}"}],
                }
                for i in range(30)
            }
            | {"d30": {"$anchor": "a30"}},
            "$ref": "#a0",
        },
        {
            "$id": "https://example.com/root",
            "$defs": {
                f"d{i}": {
                    "$id": f"d{i}",
                    "oneOf": [{"$ref": f"d{i + 1}"}, {"$ref": f"d{i + 1}#"}],
                }
                for i in range(30)
            }
            | {"d30": {"$id": "d30"}},
            "$ref": "d0",
        },
        {
            "$defs": {
                f"a/b~{i}": {
                    "anyOf": [
                        {"$ref": f"#/$defs/a~1b~0{i + 1}"},
                        {"$ref": f"#/$defs/a~1b~0{i + 1}"},
                    ]
                }
                for i in range(30)
            },
            "$ref": "#/$defs/a~1b~00",
        },
    ],
    ids=["anchor", "id", "pointer"],
)
def test_every_kind_of_local_reference_is_followed(schema: dict[str, Any]) -> None:
    with pytest.raises(SchemaTooLargeError):
        SchemaValidator(schema)


def test_a_generous_bound_leaves_ordinary_schemas_alone() -> None:
    assert MAX_SCHEMA_NODES == 20_000
    assert expanded_size(doubling(10)) < MAX_SCHEMA_NODES
    SchemaValidator(doubling(10))


async def test_a_hostile_output_schema_fails_the_call_clearly(wire: Any) -> None:
    tool = {"name": "evil", "inputSchema": {"type": "object"}, "outputSchema": doubling(16)}
    script = {
        "tools/list": [{"result": {"tools": [tool]}}],
        "tools/call": [
            {
                "result": {
                    "content": [{"type": "text", "text": "{}"}],
                    "structuredContent": {"not": "what the schema wants"},
                }
            }
        ],
    }
    client = Client(
        [sys.executable, "-m", "tests.client.scripted_server"],
        connection=StdioOptions(env=server_env(SCRIPT=json.dumps(script)), cwd=str(ROOT)),
        tracer=wire(check_received=False),
    )
    async with client as c:
        with pytest.raises(OutputSchemaError) as info:
            await c.call_tool("evil")
        assert "outputSchema cannot be used" in str(info.value)
        assert "too large" in str(info.value)
        # The session is fine: listing again works.
        assert [t.name for t in await c.list_tools()] == ["evil"]
