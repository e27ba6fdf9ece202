"""Validating JSON values against JSON Schemas by their declared dialect.

MCP schemas (tool input/output schemas, elicitation schemas) are JSON Schema 2020-12 unless
they say otherwise with ``$schema``. A :class:`SchemaValidator` is compiled once (at
registration, or when a tool list arrives) and then checks values fast (jsonschema-rs).
A dialect mcpkit does not support is an error at compile time, never a silent skip.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

__all__ = [
    "DEFAULT_DIALECT",
    "SUPPORTED_DIALECTS",
    "InvalidSchemaError",
    "SchemaValidator",
    "UnsupportedDialectError",
    "compile_schema",
]

DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_DIALECTS: dict[str, Any] = {
    "https://json-schema.org/draft/2020-12/schema": jsonschema_rs.Draft202012Validator,
    "https://json-schema.org/draft/2019-09/schema": jsonschema_rs.Draft201909Validator,
    "http://json-schema.org/draft-07/schema": jsonschema_rs.Draft7Validator,
    "http://json-schema.org/draft-06/schema": jsonschema_rs.Draft6Validator,
}
#: Dialect URIs accepted in ``$schema`` (with or without a trailing ``#``, http or https).
SUPPORTED_DIALECTS: tuple[str, ...] = tuple(_DIALECTS)


class UnsupportedDialectError(ValueError):
    """The schema declares a ``$schema`` dialect mcpkit cannot validate."""


class InvalidSchemaError(ValueError):
    """The schema itself is not a valid JSON Schema."""


def _normalise(uri: str) -> str:
    uri = uri.strip().rstrip("#")
    if uri.startswith("https://json-schema.org/draft-0"):
        uri = "http://" + uri[len("https://") :]
    if uri.startswith("http://json-schema.org/draft/"):
        uri = "https://" + uri[len("http://") :]
    return uri


def dialect_of(schema: Any) -> str:
    """The dialect URI a schema declares (2020-12 when it declares none)."""
    if isinstance(schema, dict):
        declared = schema.get("$schema")
        if isinstance(declared, str):
            return _normalise(declared)
    return DEFAULT_DIALECT


class SchemaValidator:
    """A compiled validator for one schema."""

    __slots__ = ("_validator", "dialect", "schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.dialect = dialect_of(schema)
        cls = _DIALECTS.get(self.dialect)
        if cls is None:
            raise UnsupportedDialectError(
                f"JSON Schema dialect {schema.get('$schema')!r} is not supported; "
                f"use one of: {', '.join(SUPPORTED_DIALECTS)} (2020-12 when $schema is absent)"
            )
        try:
            self._validator = cls(schema, validate_formats=False)
        except (ValueError, jsonschema_rs.ValidationError) as exc:
            raise InvalidSchemaError(f"Invalid JSON Schema: {exc}") from exc

    def is_valid(self, instance: Any) -> bool:
        """True when ``instance`` matches."""
        return bool(self._validator.is_valid(instance))

    def errors(self, instance: Any, limit: int = 5) -> list[str]:
        """Readable messages, each naming the offending location (``at 'a.b'``)."""
        out: list[str] = []
        for err in self._validator.iter_errors(instance):
            path = ".".join(str(p) for p in err.instance_path)
            out.append(f"{err.message} (at '{path}')" if path else err.message)
            if len(out) >= limit:
                break
        return out

    def first_error(self, instance: Any) -> str | None:
        """The first error message, or None when valid."""
        if self._validator.is_valid(instance):
            return None
        errs = self.errors(instance, limit=1)
        return errs[0] if errs else "value does not match the schema"


def compile_schema(schema: dict[str, Any]) -> SchemaValidator:
    """Compile ``schema`` once; raise UnsupportedDialectError / InvalidSchemaError."""
    return SchemaValidator(schema)
