"""The JSON Schemas fastmcp makes of an operation: the tool's flat input schema (path,
query, header and cookie parameters beside the request body's properties; a name used in
two places suffixed ``__<location>``) with the map from argument to request part, and the
output schema of the primary success response (a non-object wrapped under ``result``).
OpenAPI's own keywords are converted or dropped (3.0's ``nullable`` and boolean exclusive
bounds; ``discriminator``, ``readOnly``, ``writeOnly``, ``xml``, ``externalDocs``,
``deprecated``), read-only properties left out of inputs and write-only ones out of
outputs."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.compat.fastmcp.utilities.openapi.models import HTTPRoute, ResponseInfo

__all__ = [
    "extract_output_schema_from_responses",
    "flat_schema",
    "needed_definitions",
    "refs_to_defs",
    "to_json_schema",
]

_COMPONENTS = "#/components/schemas/"
_OPENAPI_ONLY = ("nullable", "discriminator", "readOnly", "writeOnly", "xml")
_OPENAPI_ONLY_TOO = ("externalDocs", "deprecated")
_ONE = ("items", "additionalProperties", "not")
_MANY = ("allOf", "anyOf", "oneOf")
_JSON_TYPES = (
    "application/json",
    "application/vnd.api+json",
    "application/hal+json",
    "application/ld+json",
    "text/json",
)


def refs_to_defs(node: Any) -> Any:
    """``node`` with every ``#/components/schemas/X`` reference made ``#/$defs/X``."""
    if isinstance(node, list):
        return [refs_to_defs(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(_COMPONENTS):
            out[key] = "#/$defs/" + value.removeprefix(_COMPONENTS)
        elif key in ("enum", "const", "default", "example", "examples"):
            out[key] = value
        else:
            out[key] = refs_to_defs(value)
    return out


def _refs(node: Any, found: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref.removeprefix("#/$defs/").split("/", 1)[0])
        for key, value in node.items():
            if key not in ("enum", "const", "default", "example", "examples"):
                _refs(value, found)
    elif isinstance(node, list):
        for item in node:
            _refs(item, found)


def needed_definitions(
    schemas: Iterable[Any], definitions: dict[str, Any], names: Iterable[str] = ()
) -> dict[str, Any]:
    """The definitions ``schemas`` refer to, directly or through others (and ``names``)."""
    found: set[str] = set(names)
    for schema in schemas:
        _refs(schema, found)
    pending = list(found)
    while pending:
        more: set[str] = set()
        _refs(definitions.get(pending.pop()), more)
        pending.extend(more - found)
        found |= more
    return {name: schema for name, schema in definitions.items() if name in found}


def to_json_schema(
    schema: Any,
    version: str | None,
    *,
    drop_read_only: bool = False,
    drop_write_only: bool = False,
    definitions: dict[str, Any] | None = None,
) -> Any:
    """An OpenAPI schema as JSON Schema (see the module docstring)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if (drop_read_only or drop_write_only) and isinstance(out.get("properties"), dict):
        hidden = {
            name
            for name, prop in out["properties"].items()
            if _access(prop, definitions, "readOnly" if drop_read_only else "writeOnly")
            or (drop_read_only and drop_write_only and _access(prop, definitions, "writeOnly"))
        }
        if hidden:
            out["properties"] = {k: v for k, v in out["properties"].items() if k not in hidden}
            if isinstance(out.get("required"), list):
                out["required"] = [r for r in out["required"] if r not in hidden]
                if not out["required"]:
                    del out["required"]
    if version and version.startswith("3.0"):
        out = _nullable(out)
        for keyword, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = out.get(keyword)
            if isinstance(flag, bool):
                del out[keyword]
                if flag and bound in out:
                    out[keyword] = out.pop(bound)
    for key in (*_OPENAPI_ONLY, *_OPENAPI_ONLY_TOO):
        out.pop(key, None)

    def convert(sub: Any) -> Any:
        return to_json_schema(
            sub,
            version,
            drop_read_only=drop_read_only,
            drop_write_only=drop_write_only,
            definitions=definitions,
        )

    for key in ("properties", "$defs"):
        if isinstance(out.get(key), dict):
            out[key] = {name: convert(sub) for name, sub in out[key].items()}
    for key in _ONE:
        if isinstance(out.get(key), dict):
            out[key] = convert(out[key])
    for key in _MANY:
        if isinstance(out.get(key), list):
            out[key] = [convert(sub) for sub in out[key]]
    return out


def _access(prop: Any, definitions: dict[str, Any] | None, keyword: str) -> bool:
    if not isinstance(prop, dict):
        return False
    if prop.get(keyword) is True:
        return True
    ref = prop.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and definitions:
        target = definitions.get(ref.removeprefix("#/$defs/"))
        return isinstance(target, dict) and target.get(keyword) is True
    return False


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "nullable" not in schema:
        return schema
    out = dict(schema)
    if not out.pop("nullable"):
        return out
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        out["type"] = [*kind, "null"]
    elif "oneOf" in out:
        out["anyOf"] = [*out.pop("oneOf"), {"type": "null"}]
    elif "anyOf" in out:
        if not any(isinstance(m, dict) and m.get("type") == "null" for m in out["anyOf"]):
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    elif "allOf" in out:
        out["anyOf"] = [{"allOf": out.pop("allOf")}, {"type": "null"}]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _body_properties(
    body: dict[str, Any], definitions: dict[str, Any]
) -> tuple[dict[str, Any], list[str]] | None:
    """The properties and required names a body's arguments are made of, or None when the
    body is one argument (an array, a scalar, a free-form object, a kept reference)."""
    if isinstance(body.get("allOf"), list):
        props: dict[str, Any] = {}
        required: list[str] = []
        for member in body["allOf"]:
            ref = member.get("$ref") if isinstance(member, dict) else None
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                member = definitions.get(ref.removeprefix("#/$defs/"), {})
            if isinstance(member, dict):
                props.update(member.get("properties") or {})
                required.extend(member.get("required") or [])
        return props, list(dict.fromkeys(required))
    if "$ref" in body or not isinstance(body.get("properties"), dict) or not body["properties"]:
        return None
    return dict(body["properties"]), list(body.get("required") or [])


def _members(
    schema: Any, definitions: dict[str, Any], seen: frozenset[str] = frozenset()
) -> list[Any]:
    """``schema`` and what it is made of (its ``$ref`` followed, its ``allOf`` members)."""
    if not isinstance(schema, dict):
        return []
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.removeprefix("#/$defs/").removeprefix(_COMPONENTS)
        if name in seen:
            return []
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        found = _members(definitions.get(name), definitions, seen | {name})
        return [*found, rest] if rest else found
    if isinstance(schema.get("allOf"), list):
        out = [m for sub in schema["allOf"] for m in _members(sub, definitions, seen)]
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        return [*out, rest] if rest else out
    return [schema]


def _flattened_variants(
    schema: dict[str, Any], definitions: dict[str, Any]
) -> dict[str, Any] | None:
    """The properties of a body whose ``discriminator.mapping`` names its variants: its own,
    and every variant's (optional; one named by several variants differently becomes an
    ``anyOf``), the tag property describing which variant uses which; None without one."""
    discriminator = schema.get("discriminator")
    if not isinstance(discriminator, dict):
        return None
    tag = discriminator.get("propertyName")
    mapping = discriminator.get("mapping")
    if not isinstance(tag, str) or not isinstance(mapping, dict):
        return None
    own = schema.get("properties") or {}
    alternatives: dict[str, list[Any]] = {}
    values: list[str] = []
    variants: list[str] = []
    for value, target in mapping.items():
        if not isinstance(target, str):
            continue
        name: str | None = target
        for prefix in ("#/$defs/", _COMPONENTS):
            if target.startswith(prefix):
                name = target.removeprefix(prefix) or None
                break
        else:
            if target.startswith("#") or "/" in target:
                name = None
        subtype = definitions.get(name) if name else None
        if not isinstance(subtype, dict):
            continue
        fields: list[str] = []
        for member in _members(subtype, definitions):
            for prop, prop_schema in (member.get("properties") or {}).items():
                if prop in own:
                    continue
                if prop not in fields:
                    fields.append(prop)
                seen = alternatives.setdefault(prop, [])
                if prop_schema not in seen:
                    seen.append(prop_schema)
        values.append(repr(value))
        if fields:
            variants.append(f"{value!r} uses {', '.join(fields)}")
    if not values:
        return None
    properties = {
        **own,
        **{
            p: found[0] if len(found) == 1 else {"anyOf": found}
            for p, found in alternatives.items()
        },
    }
    note = f"Selects the variant. Accepted values: {', '.join(values)}."
    if variants:
        note += f" {'; '.join(variants)}. Send only the fields belonging to the selected variant."
    tag_schema = properties.get(tag)
    if not isinstance(tag_schema, dict):
        tag_schema = {"type": "string"}
    given = tag_schema.get("description")
    properties[tag] = {**tag_schema, "description": f"{given} {note}" if given else note}
    return properties


def flat_schema(route: HTTPRoute) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    """The tool's input schema and the map from argument to ``location``/``openapi_name``."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    mapping: dict[str, dict[str, str]] = {}
    body_props: dict[str, Any] = {}
    body_required: list[str] = []
    body_schema: dict[str, Any] = {}
    body = route.request_body
    has_body = body is not None and bool(body.content_schema)
    if body is not None and has_body:
        # Changed in place, as fastmcp does: a flattened discriminator is what the request
        # is then built from too.
        body_schema = next(iter(body.content_schema.values()))
        if body.description and not body_schema.get("description"):
            body_schema["description"] = body.description
        flattened = _flattened_variants(body_schema, route.request_schemas)
        if flattened is not None:
            body_schema["properties"] = flattened
            body_schema.pop("discriminator", None)
        merged = _body_properties(body_schema, route.request_schemas)
        if merged is not None:
            body_props, body_required = merged
    body_name = "body"
    if has_body and not body_props and "$ref" not in body_schema:
        body_name = re.sub(r"[^a-zA-Z0-9_]", "_", str(body_schema.get("title", "body")).lower())
        if not body_name or body_name[0].isdigit():
            body_name = "body_data"
    body_names = set(body_props) if body_props else ({body_name} if has_body else set())
    counts = Counter(p.name for p in route.parameters)
    colliding = {p.name for p in route.parameters} & body_names
    colliding |= {name for name, n in counts.items() if n > 1}
    for p in route.parameters:
        schema = dict(p.schema_)
        if p.description and not schema.get("description"):
            schema["description"] = p.description
        name = p.name
        if name in colliding:
            name = f"{p.name}__{p.location}"
            note = f"({p.location.capitalize()} parameter)"
            given = schema.get("description")
            schema["description"] = f"{given} {note}" if given else note
        if p.required:
            required.append(name)
        mapping[name] = {"location": p.location, "openapi_name": p.name}
        properties[name] = schema
    if body is not None and has_body:
        if body_props:
            for name, schema in body_props.items():
                properties[name] = schema
                mapping[name] = {"location": "body", "openapi_name": name}
            if body.required:
                required.extend(body_required)
        else:
            properties[body_name] = body_schema
            mapping[body_name] = {"location": "body", "openapi_name": body_name}
            if body.required:
                required.append(body_name)
    definitions = needed_definitions([properties], route.request_schemas)
    version = route.openapi_version

    def convert(sub: Any) -> Any:
        return to_json_schema(sub, version, drop_read_only=True, definitions=definitions)

    converted_body = convert(
        {"properties": body_props, "required": [r for r in required if r in body_props]}
    )
    kept_body = converted_body.get("properties", {})
    result: dict[str, Any] = {
        "type": "object",
        "properties": {
            name: kept_body[name] if name in body_props else convert(schema)
            for name, schema in properties.items()
            if name not in body_props or name in kept_body
        },
        "required": [
            r for r in required if r not in body_props or r in converted_body.get("required", ())
        ],
    }
    if definitions:
        result["$defs"] = {name: convert(d) for name, d in definitions.items()}
    return result, mapping


def extract_output_schema_from_responses(
    responses: dict[str, ResponseInfo],
    schema_definitions: dict[str, Any] | None = None,
    openapi_version: str | None = None,
) -> dict[str, Any] | None:
    """The output schema of the primary success response: None when some success
    response has no body; a non-object schema wrapped as ``{"result": ...}`` and marked
    ``x-fastmcp-wrap-result``."""
    if not responses:
        return None
    if any(code.startswith("2") and not r.content_schema for code, r in responses.items()):
        return None
    info = next((responses[c] for c in ("200", "201", "202", "204") if c in responses), None)
    if info is None:
        info = next((r for c, r in responses.items() if c.startswith("2")), None)
    if info is None or not info.content_schema:
        return None
    schema = next((info.content_schema[t] for t in _JSON_TYPES if t in info.content_schema), None)
    if schema is None:
        schema = next(iter(info.content_schema.values()))
    if not schema or not isinstance(schema, dict):
        return None
    definitions = dict(schema_definitions or {})
    out: dict[str, Any] = to_json_schema(
        schema, openapi_version, drop_write_only=True, definitions=definitions
    )
    own_defs = dict(out.get("$defs") or {})
    if out.get("type") != "object":
        out = {
            "type": "object",
            "properties": {"result": out},
            "required": ["result"],
            "x-fastmcp-wrap-result": True,
        }
    converted = {
        name: to_json_schema(d, openapi_version, drop_write_only=True, definitions=definitions)
        for name, d in definitions.items()
    }
    if converted or own_defs:
        out["$defs"] = {**converted, **own_defs}
    return out
