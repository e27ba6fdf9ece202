"""Elicitation from the server side: form mode (a restricted JSON Schema, written by hand or
derived from a pydantic model) and URL mode, with typed accept/decline/cancel results.

The spec restricts form schemas to a flat object of primitive properties: string (with
``format`` email/uri/date/date-time, length limits), number/integer (with limits), boolean,
single-select enums (``enum``, titled ``oneOf`` of ``const``/``title``, legacy
``enumNames``) and multi-select enums (``array`` of ``enum`` items or ``anyOf`` titled
items), each optionally with a ``default``. :func:`requested_schema` checks that and
converts a pydantic model (``Literal``/``Enum`` fields become enums, ``Optional`` fields are
not required) into it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from mcpkit._models import is_model_class
from mcpkit.errors import McpError, McpkitError
from mcpkit.json_schema import compile_schema
from mcpkit.jsonrpc import URL_ELICITATION_REQUIRED, JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.server.errors import ClientCapabilityError
from mcpkit.server.schema import validation_message
from mcpkit.versions import ProtocolVersion

__all__ = [
    "ElicitationError",
    "ElicitationResult",
    "check_form_capability",
    "check_url_capability",
    "new_elicitation_id",
    "requested_schema",
    "url_elicitation_required",
]

T = TypeVar("T")
_PRIMITIVES = {"string", "number", "integer", "boolean"}
_ALLOWED_KEYS = {
    "type", "title", "description", "default", "format", "minLength", "maxLength",
    "minimum", "maximum", "enum", "enumNames", "oneOf", "items", "minItems", "maxItems",
}  # fmt: skip
_FORMATS = {"email", "uri", "date", "date-time"}


class ElicitationError(McpkitError, ValueError):
    """The elicitation schema is not allowed, or the user's answer does not fit it
    (``validation_error``: pydantic's error when a model's validation refused it)."""

    validation_error: Exception | None = None
    #: The content of the answer refused (None: not a refused answer).
    content: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ElicitationResult(Generic[T]):
    """The user's answer: ``action`` is accept / decline / cancel; ``data`` is the validated
    content on accept (an instance of the pydantic model when one was given)."""

    action: Literal["accept", "decline", "cancel"]
    data: T | None = None
    content: dict[str, Any] | None = None

    @property
    def accepted(self) -> bool:
        """True when the user accepted."""
        return self.action == "accept"


def _resolve(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = dict(defs[ref[len("#/$defs/") :]])
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return _resolve({**target, **rest}, defs)
        return {k: _resolve(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(v, defs) for v in node]
    return node


def _property(name: str, prop: Any) -> dict[str, Any]:
    if not isinstance(prop, dict):
        raise ElicitationError(f"Elicitation property {name!r} must be a schema object")
    prop = dict(prop)
    any_of = prop.get("anyOf")
    if isinstance(any_of, list) and "type" not in prop:
        non_null = [a for a in any_of if not (isinstance(a, dict) and a.get("type") == "null")]
        if len(non_null) == 1 and isinstance(non_null[0], dict):
            del prop["anyOf"]
            prop = {**non_null[0], **prop}
            if prop.get("default", "") is None:
                del prop["default"]
    if "enum" in prop and "type" not in prop:
        prop["type"] = "string"
    type_ = prop.get("type")
    if type_ == "array":
        items = prop.get("items")
        if not isinstance(items, dict) or not (
            isinstance(items.get("enum"), list) or isinstance(items.get("anyOf"), list)
        ):
            raise ElicitationError(
                f"Elicitation property {name!r}: arrays must be multi-select enums "
                "(items with 'enum' or 'anyOf' of const/title)"
            )
        items = {k: v for k, v in items.items() if k in ("type", "enum", "anyOf")}
        if "enum" in items:
            items["type"] = "string"
        prop["items"] = items
    elif type_ not in _PRIMITIVES:
        raise ElicitationError(
            f"Elicitation property {name!r} has type {type_!r}; only string, number, integer, "
            "boolean and enum arrays are allowed (no nested objects)"
        )
    if type_ == "string" and "format" in prop and prop["format"] not in _FORMATS:
        raise ElicitationError(
            f"Elicitation property {name!r}: format {prop['format']!r} is not one of "
            f"{', '.join(sorted(_FORMATS))}"
        )
    return {k: v for k, v in prop.items() if k in _ALLOWED_KEYS}


def requested_schema(schema: Any) -> dict[str, Any]:
    """The ``requestedSchema`` for a pydantic model class or a restricted JSON Schema dict."""
    if is_model_class(schema):
        raw = schema.model_json_schema()
        raw = _resolve(raw, raw.get("$defs", {}))
    elif isinstance(schema, dict):
        raw = schema
    else:
        raise ElicitationError("schema must be a pydantic model class or a JSON Schema dict")
    if raw.get("type") != "object" or not isinstance(raw.get("properties"), dict):
        raise ElicitationError("An elicitation schema must be an object with 'properties'")
    out: dict[str, Any] = {"type": "object"}
    if isinstance(raw.get("$schema"), str):
        out["$schema"] = raw["$schema"]
    out["properties"] = {n: _property(n, p) for n, p in raw["properties"].items()}
    required = raw.get("required")
    if isinstance(required, list):
        out["required"] = list(required)
    return out


def parse_result(result: Any, schema: Any, requested: dict[str, Any]) -> ElicitationResult[Any]:
    """Check the client's ``ElicitResult`` and validate accepted content."""
    if not isinstance(result, dict) or result.get("action") not in ("accept", "decline", "cancel"):
        raise ElicitationError("The client sent a malformed elicitation result")
    action = result["action"]
    if action != "accept":
        return ElicitationResult(action)
    content = result.get("content") or {}
    if not isinstance(content, dict):
        raise ElicitationError("The client sent elicitation content that is not an object")
    if is_model_class(schema):
        from pydantic import ValidationError

        try:
            data = schema.model_validate(content)
        except ValidationError as exc:
            error = ElicitationError(
                f"The user's answer does not match the requested schema: {validation_message(exc)}"
            )
            error.validation_error = exc  # pydantic's own report, for who wants its text
            error.content = content
            raise error from None
        return ElicitationResult("accept", data, content)
    validator = compile_schema(requested)
    if not validator.is_valid(content):
        refused = ElicitationError(
            "The user's answer does not match the requested schema: "
            + "; ".join(validator.errors(content, limit=3))
        )
        refused.content = content
        raise refused
    return ElicitationResult("accept", content, content)


def check_form_capability(caps: JSONObject, version: ProtocolVersion | None = None) -> None:
    """Form mode needs ``elicitation`` (an empty object means form) or ``elicitation.form``,
    on a protocol version that has elicitation (2025-06-18 on)."""
    if version is not None and not version.structured_output:
        raise ClientCapabilityError(
            f"Elicitation needs protocol version 2025-06-18 or later (this session speaks "
            f"{version})"
        )
    elicitation = caps.get("elicitation")
    if not isinstance(elicitation, dict):
        raise ClientCapabilityError("The client did not declare the 'elicitation' capability")
    if elicitation and "form" not in elicitation:
        raise ClientCapabilityError("The client did not declare 'elicitation.form' (form mode)")


def check_url_capability(caps: JSONObject, version: ProtocolVersion | None = None) -> None:
    """URL mode needs ``elicitation.url`` (and protocol version 2025-11-25 or later)."""
    if version is not None and not version.url_elicitation:
        raise ClientCapabilityError(
            f"URL mode elicitation needs protocol version 2025-11-25 or later (this session "
            f"speaks {version})"
        )
    if not has_capability(caps, ("elicitation", "url")):
        raise ClientCapabilityError(
            "The client did not declare 'elicitation.url' (URL mode elicitation)"
        )


def new_elicitation_id() -> str:
    """A fresh, unguessable elicitation id."""
    return uuid.uuid4().hex


def url_elicitation_required(
    message: str, url: str, elicitation_id: str | None = None, *, error_message: str | None = None
) -> McpError:
    """The -32042 error telling the client a URL elicitation must complete first."""
    return McpError(
        URL_ELICITATION_REQUIRED,
        error_message or "This request requires more information.",
        {
            "elicitations": [
                {
                    "mode": "url",
                    "elicitationId": elicitation_id or new_elicitation_id(),
                    "url": url,
                    "message": message,
                }
            ]
        },
    )
