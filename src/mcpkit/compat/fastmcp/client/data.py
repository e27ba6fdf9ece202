"""A tool's structured result as fastmcp's ``Client`` hands it over in ``result.data``: the
value unwrapped from ``{"result": ...}`` when the tool wrapped it, and checked through a
Python type made from the tool's output schema (an object with properties becomes a
dataclass named by the schema's ``title``, else ``Root``; an array with ``prefixItems`` a
tuple; an object without properties a dict; a string of a known ``format`` a date, time,
UUID or URL)."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import functools
import keyword
import re
import uuid
from collections.abc import Mapping
from typing import Any, Literal, Optional, Union

import pydantic

__all__ = ["hydrate", "schema_to_type"]

_SCALARS: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


#: The Python types of the string formats fastmcp reads (``email`` stays a string here).
_FORMATS: dict[str, Any] = {
    "date-time": datetime.datetime,
    "date": datetime.date,
    "time": datetime.time,
    "duration": datetime.timedelta,
    "uuid": uuid.UUID,
    "uri": pydantic.AnyUrl,
    "json": pydantic.Json,
}


def _name(text: str) -> str:
    name = re.sub(r"\W", "_", text)
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = f"_{name}"
    return name


class _Conversion:
    """One schema's conversion: its root (for ``$ref``) and the root class's name."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.root_name: str | None = None

    def resolve(self, ref: str) -> Any:
        node: Any = self.root
        for part in ref.lstrip("#/").split("/"):
            if not part:
                continue
            node = node.get(part.replace("~1", "/").replace("~0", "~"), {})
        return node

    def convert(self, schema: Any, seen: frozenset[str] = frozenset()) -> Any:
        if schema is True or schema == {}:
            return Any
        if not isinstance(schema, Mapping):
            return Any
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if ref in seen or ref == "#":
                return Any
            return self.convert(self.resolve(ref), seen | {ref})
        if "const" in schema:
            return Literal[schema["const"]]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return Literal[tuple(schema["enum"])]
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                return _union([self.convert(s, seen) for s in schema[key]])
        kind = schema.get("type")
        if kind is None and "properties" in schema:
            kind = "object"
        if isinstance(kind, list):
            return _union([self.convert({**schema, "type": k}, seen) for k in kind])
        if kind == "string" and schema.get("format") in _FORMATS:
            return _FORMATS[schema["format"]]
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            prefix = schema.get("prefixItems")
            if isinstance(prefix, list) and prefix:
                return tuple[tuple(self.convert(s, seen) for s in prefix)]  # type: ignore[misc]
            return list[self.convert(schema.get("items", True), seen)]  # type: ignore[misc]
        if kind == "object":
            if isinstance(schema.get("properties"), Mapping) and schema["properties"]:
                return self.dataclass(schema, seen)
            extra = schema.get("additionalProperties", True)
            return dict[str, self.convert(extra, seen)]  # type: ignore[misc]
        return Any

    def dataclass(self, schema: Mapping[str, Any], seen: frozenset[str]) -> Any:
        title = schema.get("title")
        name = _name(title if isinstance(title, str) else "Root")
        if self.root_name is None:
            self.root_name = name
        elif name == self.root_name:
            name = f"{name}_2"
        required = set(schema.get("required", ()))
        fields: list[Any] = []
        for prop, sub in schema["properties"].items():
            kind = self.convert(sub, seen)
            default = (
                sub.get("default", dataclasses.MISSING)
                if isinstance(sub, Mapping)
                else (dataclasses.MISSING)
            )
            meta = {"alias": prop}
            spec: Any
            if default is not dataclasses.MISSING:
                if isinstance(default, dict | list):
                    spec = dataclasses.field(
                        default_factory=functools.partial(copy.deepcopy, default), metadata=meta
                    )
                else:
                    spec = dataclasses.field(default=default, metadata=meta)
            elif prop in required:
                spec = dataclasses.field(metadata=meta)
            else:
                spec = dataclasses.field(default=None, metadata=meta)
                kind = Optional[kind]  # noqa: UP045
            fields.append((_name(prop), kind, spec))
        return dataclasses.make_dataclass(name, fields, kw_only=True)


def _union(types: list[Any]) -> Any:
    if not types:
        return Any
    if len(types) == 1:
        return types[0]
    return Union[tuple(types)]  # noqa: UP007


def schema_to_type(schema: Mapping[str, Any]) -> Any:
    """The Python type fastmcp's client reads ``schema``'s values as."""
    return _Conversion(schema).convert(schema)


def hydrate(structured: Any, output_schema: Mapping[str, Any] | None, wrapped: bool) -> Any:
    """``result.data`` for ``structuredContent`` (``wrapped``: it is ``{"result": ...}``);
    raises when the value does not fit the schema."""
    value = structured.get("result") if wrapped and isinstance(structured, dict) else structured
    if not output_schema:
        return value
    schema: Mapping[str, Any] = output_schema
    if wrapped:
        inner = output_schema.get("properties", {}).get("result", output_schema)
        schema = {
            **inner,
            **{
                k: output_schema[k]
                for k in ("$defs", "definitions")
                if k in output_schema and k not in inner
            },
        }
    return pydantic.TypeAdapter(schema_to_type(schema)).validate_python(value)
