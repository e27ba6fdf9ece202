"""1.x ``FastMCP``'s structured output for a tool annotated to return a content block.

``mcp`` 1.x treats ``-> EmbeddedResource`` (or any other content block) like any pydantic
model: the model's JSON schema is the tool's ``outputSchema`` and the returned block, dumped
with every field, is its ``structuredContent`` (its content stays the block itself). 2.x and
mcpkit advertise no schema for these. The schemas 1.x advertises are kept in
``_content_schemas.json`` (written by ``scripts/official_content_schemas.py`` from ``mcp``
1.30.0); the dump follows them: their properties in their order, a missing optional one as
``null``, a ``uri`` normalised as a URL. The content block sent is that dump without its
nulls (1.x sends its own model of the block, so its URLs are normalised there too).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from pydantic import AnyUrl

from mcpkit.compat._adapt import CompatToolEntry
from mcpkit.server.tools import ToolEntry

__all__ = [
    "content_list_output_schema",
    "content_output_schema",
    "structured_as_content",
    "structured_list_of_content",
]


@functools.cache
def _schemas() -> dict[str, dict[str, Any]]:
    text = (Path(__file__).with_name("_content_schemas.json")).read_text()
    schemas: dict[str, dict[str, Any]] = json.loads(text)["schemas"]
    return schemas


def content_output_schema(returns: Any) -> dict[str, Any] | None:
    """The output schema 1.x advertises for a return annotation naming a content block
    class, else None."""
    from mcpkit.server.content import content_types

    if not isinstance(returns, type) or not issubclass(returns, content_types()):
        return None
    schema = _schemas().get(returns.__name__)
    return json.loads(json.dumps(schema)) if schema is not None else None


def content_list_output_schema(returns: Any, name: str) -> dict[str, Any] | None:
    """The output schema 1.x advertises for ``-> list[Block]`` or ``-> list[A | B]`` of
    content block classes (``name``: the tool function's): its items wrapped under
    ``result`` in the model ``<name>Output``, the blocks' schemas in ``$defs``; else None."""
    import types
    import typing

    from mcpkit.server.content import content_types

    if typing.get_origin(returns) is not list:
        return None
    (item,) = typing.get_args(returns) or (None,)
    origin = typing.get_origin(item)
    members = typing.get_args(item) if origin in (typing.Union, types.UnionType) else (item,)
    blocks = content_types()
    if not all(isinstance(m, type) and issubclass(m, blocks) for m in members):
        return None
    defs: dict[str, Any] = {}
    for member in members:
        schema = _schemas().get(member.__name__)
        if schema is None:
            return None
        schema = json.loads(json.dumps(schema))
        defs.update(schema.pop("$defs", {}))
        defs[member.__name__] = schema
    refs = [{"$ref": f"#/$defs/{m.__name__}"} for m in members]
    items = refs[0] if len(refs) == 1 else {"anyOf": refs}
    return {
        "$defs": dict(sorted(defs.items())),
        "properties": {"result": {"items": items, "title": "Result", "type": "array"}},
        "required": ["result"],
        "title": f"{name}Output",
        "type": "object",
    }


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target: dict[str, Any] = defs[ref.removeprefix("#/$defs/")]
        return target
    return schema


def _shape(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """``value`` (JSON data) laid out as the 1.x model of ``schema`` dumps it."""
    schema = _resolve(schema, defs)
    if value is None:
        return None
    if "anyOf" in schema:
        for branch in schema["anyOf"]:
            part = _resolve(branch, defs)
            if part.get("type") == "null":
                continue
            if part.get("type") == "object" and isinstance(value, dict):
                if all(k in value for k in part.get("required", ())):
                    return _shape(value, part, defs)
            elif part.get("type") != "object":
                return _shape(value, part, defs)
        return value
    if schema.get("format") == "uri" and isinstance(value, str):
        return str(AnyUrl(value))
    if schema.get("type") == "array" and isinstance(value, list):
        items = schema.get("items", {})
        return [_shape(v, items, defs) for v in value]
    if schema.get("type") == "object" and isinstance(value, dict):
        props: dict[str, Any] = schema.get("properties", {})
        out = {name: _shape(value.get(name), sub, defs) for name, sub in props.items()}
        extra = {k: v for k, v in value.items() if k not in props and v is not None}
        return {**out, **extra}
    return value


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


class ContentBlockEntry(CompatToolEntry):
    """A tool returning a content block under 1.x's rules: the block as 1.x's model dumps
    it, in ``structuredContent`` and (without nulls) as the content."""

    __slots__ = ()

    def to_result(self, value: Any) -> dict[str, Any]:
        """The ``CallToolResult`` dict for a return value."""
        result = super().to_result(value)
        structured = result.get("structuredContent")
        if isinstance(structured, dict) and len(result.get("content", ())) == 1:
            result["content"] = [_without_nulls(structured)]
        return result


def structured_as_content(entry: ToolEntry, schema: dict[str, Any]) -> None:
    """Give ``entry`` 1.x's structured output for a content block return: ``schema``
    advertised, the returned block dumped by it."""
    from mcpkit.server.schema import OutputSpec

    defs: dict[str, Any] = schema.get("$defs", {})

    def convert(value: Any) -> Any:
        data = (
            value.model_dump(mode="json", by_alias=True) if hasattr(value, "model_dump") else value
        )
        return _shape(data, schema, defs)

    entry.output = OutputSpec(schema, convert, wrap=False)
    entry.definition["outputSchema"] = schema
    entry.__class__ = ContentBlockEntry


def structured_list_of_content(entry: ToolEntry, schema: dict[str, Any]) -> None:
    """Give ``entry`` 1.x's structured output for a list of content blocks: ``schema``
    advertised, ``{"result": [...]}`` each block dumped by it (the content unchanged)."""
    from mcpkit.server.schema import OutputSpec

    defs: dict[str, Any] = schema.get("$defs", {})

    def convert(value: Any) -> Any:
        data = [
            v.model_dump(mode="json", by_alias=True) if hasattr(v, "model_dump") else v
            for v in value
        ]
        return _shape({"result": data}, schema, defs)

    entry.output = OutputSpec(schema, convert, wrap=False)
    entry.definition["outputSchema"] = schema
