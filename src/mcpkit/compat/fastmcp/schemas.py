"""The JSON Schemas of tools as fastmcp (4.x) advertises them.

A schema fastmcp generates (a tool's arguments, its return annotation) loses pydantic's
``title`` annotations; a schema the server hands over (``output_schema={...}``) is kept as
written. Either way the listing sends it with its local ``$ref`` inlined and ``$defs``
gone (fastmcp's default ``dereference_schemas=True``), unless a definition refers to itself,
in which case the schema keeps its references (a reference at the root resolved).
"""

from __future__ import annotations

from typing import Any

from mcpkit.json_schema import inline_local_refs

__all__ = ["dereferenced", "pruned_titles"]

#: Keywords whose presence makes a node a schema (and its ``title`` an annotation).
_STRUCTURAL = frozenset(
    {"type", "properties", "$ref", "items", "allOf", "oneOf", "anyOf", "required"}
)
#: Annotation-only keys: a node made only of these is a schema too (pydantic's ``Any``).
_METADATA = frozenset({"title", "description", "deprecated", "readOnly", "writeOnly"})
#: Keywords holding instance data, never walked.
_LITERAL = frozenset({"default", "const", "examples", "example", "enum"})
#: Keywords mapping names to sub-schemas.
_SCHEMA_MAPS = frozenset(
    {
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
        "dependencies",
    }
)
#: Keywords holding one sub-schema.
_SCHEMA_VALUES = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "contains",
        "contentSchema",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "if",
        "then",
        "else",
        "not",
    }
)
#: Keywords holding a list of sub-schemas.
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})


def pruned_titles(schema: Any) -> Any:
    """``schema`` without the ``title`` annotations of its schema nodes (a property named
    ``title``, a ``title`` inside a default or an extension keyword are kept). A copy."""
    if isinstance(schema, list):
        return [pruned_titles(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    is_schema = any(k in schema for k in _STRUCTURAL) or all(k in _METADATA for k in schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str) and is_schema:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: pruned_titles(sub) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [pruned_titles(sub) for sub in value]
        elif key in _SCHEMA_VALUES:
            out[key] = pruned_titles(value)
        else:  # instance data and extensions: as they are
            out[key] = value
    return out


def dereferenced(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its local references inlined and ``$defs`` dropped, and OpenAPI
    ``discriminator`` keys (whose mapping named the dropped definitions) removed; a schema
    with a self-referring definition is returned as it is."""
    if not any(isinstance(schema.get(k), dict) for k in ("$defs", "definitions")):
        return schema
    inlined = inline_local_refs(schema)
    if "$defs" in inlined or "definitions" in inlined:  # recursive: references stay
        return _root_resolved(schema)
    result: dict[str, Any] = _without_discriminator(inlined)
    return result


def _root_resolved(schema: dict[str, Any]) -> dict[str, Any]:
    """A recursive model's schema (``{"$ref": "#/$defs/Tree", "$defs": ...}``) with the
    root's definition in place of its ``$ref``, the definitions kept for the rest."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return schema
    target = schema.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
    if not isinstance(target, dict) or schema.get("type", "object") != target.get("type"):
        return schema
    return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}


def _without_discriminator(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_discriminator(item) for item in node]
    if not isinstance(node, dict):
        return node
    drop = "discriminator" in node and ("anyOf" in node or "oneOf" in node)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "discriminator" and drop:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _without_discriminator(sub) for name, sub in value.items()}
        elif key in _LITERAL:
            out[key] = value
        else:
            out[key] = _without_discriminator(value)
    return out
