"""Tool arguments given as pydantic models, or holding model values, reach the server in
their wire form (camelCase names, unset optionals omitted), in memory and over stdio."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from pydantic import BaseModel, Field

from mcpkit.client import Client, StdioOptions
from mcpkit.types import Tool, ToolInputSchema
from tests.client import echo_server
from tests.conftest import ROOT, server_env

SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object"}},
    "properties": {"address": {"$ref": "#/$defs/address"}},
    "if": {"required": ["address"]},
    "then": {"required": ["address"]},
    "additionalProperties": False,
}


class Point(BaseModel):
    x_value: int = Field(alias="xValue")
    label: str | None = None


@dataclasses.dataclass
class Size:
    width: int
    height: int


def client(kind: str, wire: Any) -> Client:
    if kind == "memory":
        return Client(echo_server.app, tracer=wire())
    return Client(
        [sys.executable, "-m", "tests.client.echo_server"],
        connection=StdioOptions(env=server_env(), cwd=str(ROOT)),
        tracer=wire(),
    )


async def test_protocol_model_argument_is_sent_in_wire_form(kind: str, wire: Any) -> None:
    schema = Tool.from_wire({"name": "t", "inputSchema": SCHEMA_2020_12}).input_schema
    assert isinstance(schema, ToolInputSchema)
    async with client(kind, wire) as c:
        result = await c.call_tool("echo", {"schema": schema, "plain": [1, "two"]})
    assert not result.is_error, result
    assert result.structured_content == {"schema": SCHEMA_2020_12, "plain": [1, "two"]}


async def test_model_and_dataclass_values_and_model_arguments(kind: str, wire: Any) -> None:
    async with client(kind, wire) as c:
        values = await c.call_tool("echo", {"point": Point(xValue=1), "size": Size(2, 3)})
        whole = await c.call_tool("echo", Point(xValue=4, label="d"))
    assert values.structured_content == {
        "point": {"xValue": 1, "label": None},
        "size": {"width": 2, "height": 3},
    }
    assert whole.structured_content == {"xValue": 4, "label": "d"}
