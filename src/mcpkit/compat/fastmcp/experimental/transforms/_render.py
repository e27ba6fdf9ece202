"""fastmcp's compact markdown of tools (the ``detailed`` level of code mode's discovery
tools): per tool its description, then each parameter's type, enum values, default and
whether it is required, and the same of its result."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["tools_markdown"]

_NESTED_FIELD_LIMIT = 16


def _union_type(branches: list[Any]) -> str:
    kinds = list(dict.fromkeys(schema_type(b) for b in branches))
    if "null" not in kinds:
        return " | ".join(kinds) if kinds else "any"
    rest = [k for k in kinds if k != "null"]
    return f"{' | '.join(rest)}?" if rest else "null"


def schema_type(schema: Any) -> str:
    """A short label of a JSON schema's type (``integer``, ``string[]``, ``number?``)."""
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, str) and kind:
        if kind == "array":
            return f"{schema_type(schema.get('items'))}[]"
        return kind
    if "$ref" in schema:
        return "object"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union_type(schema[key])
    if "allOf" in schema:
        return "object"
    return "object" if "properties" in schema else "any"


def _resolve(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref: str = schema["$ref"]
        if ref.startswith("#/$defs/"):
            return defs.get(ref[len("#/$defs/") :], schema)
    return schema


def _object_fields(schema: Any, defs: dict[str, Any]) -> list[str]:
    """The field names of the object(s) a schema describes, one level down (through
    ``$ref``, array items and ``anyOf``/``oneOf``/``allOf`` branches)."""
    seen: set[int] = set()
    fields: dict[str, None] = {}
    pending: list[tuple[Any, bool]] = [(schema, False)]
    while pending:
        node, expanded = pending.pop()
        if expanded:
            props = node.get("properties")
            if isinstance(props, dict):
                fields.update(dict.fromkeys(props))
            continue
        node = _resolve(node, defs)
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if node.get("type") == "array":
            pending.append((node.get("items"), False))
            continue
        pending.append((node, True))
        for key in ("allOf", "oneOf", "anyOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                pending.extend((b, False) for b in reversed(branches))
    return list(fields)


def _nested(field: Any, defs: dict[str, Any]) -> str:
    fields = _object_fields(field, defs)
    if not fields:
        return ""
    shown = fields[:_NESTED_FIELD_LIMIT]
    more = len(fields) - len(shown)
    return ": " + ", ".join(f"`{n}`" for n in shown) + (f", +{more} more" if more > 0 else "")


def _enum(schema: Any) -> list[Any] | None:
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return values if isinstance(values, list) else None


def _union_enum(branches: Any) -> list[Any] | None:
    if not isinstance(branches, list):
        return None
    values: list[Any] = []
    for branch in branches:
        if isinstance(branch, dict) and branch.get("type") == "null":
            continue
        found = _enum(branch)
        if found is None:
            return None
        values.extend(v for v in found if v not in values)
    return values or None


def _param(name: str, field: Any, required: bool) -> str:
    parts = [schema_type(field)]
    if isinstance(field, dict):
        values = _enum(field)
        if values is None and "anyOf" in field:
            values = _union_enum(field["anyOf"])
        if isinstance(values, list) and 0 < len(values) <= 8:
            parts.append("one of " + "/".join(json.dumps(v, default=str) for v in values))
        if field.get("default") is not None:
            parts.append(f"default {json.dumps(field['default'], default=str)}")
    if required:
        parts.append("required")
    return f"`{name}` ({', '.join(parts)})"


def _section(schema: Any, title: str) -> list[str]:
    lines = [f"**{title}**"]
    if not isinstance(schema, dict):
        lines.append("- `value` (any)")
        return lines
    props = schema.get("properties")
    required = schema.get("required")
    wanted = set(required) if isinstance(required, list) else set()
    if props is None:
        lines.append(f"- `value` ({schema_type(schema)})")
        return lines
    if not props:
        lines.append("*(no parameters)*")
        return lines
    raw_defs = schema.get("$defs")
    defs = raw_defs if isinstance(raw_defs, dict) else {}
    for name, field in props.items():
        lines.append(f"- {_param(name, field, name in wanted)}{_nested(field, defs)}")
    return lines


def tools_markdown(tools: Sequence[Any]) -> str:
    """The tools (with ``name``, ``description``, ``parameters``, ``output_schema``) in
    fastmcp's compact markdown."""
    if not tools:
        return "No tools matched the query."
    blocks: list[str] = []
    for tool in tools:
        lines = [f"### {tool.name}"]
        if tool.description:
            lines.extend(["", tool.description.strip()])
        lines.extend(["", *_section(tool.parameters, "Parameters")])
        if tool.output_schema is not None:
            lines.extend(["", *_section(tool.output_schema, "Returns")])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
