"""Validation of modern-revision shapes against the official 2026-07-28 schema.json."""

from __future__ import annotations

import functools
from typing import Any

import jsonschema

from mcpkit.jsonrpc import error_response as error_response_message
from tests.wire import defs

VERSION = "2026-07-28"


@functools.cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    definitions = defs(VERSION)
    assert name in definitions, f"no $defs/{name} in the {VERSION} schema"
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": definitions})


def check(name: str, instance: Any) -> None:
    """Fail unless ``instance`` is valid against ``$defs/<name>``."""
    errors = sorted(_validator(name).iter_errors(instance), key=str)
    assert not errors, f"not a valid {name}: " + "; ".join(e.message for e in errors[:5])


def valid(name: str, instance: Any) -> bool:
    return _validator(name).is_valid(instance)


def error_response(exc: Any, request_id: int | str = 1) -> dict[str, Any]:
    """The JSON-RPC error response carrying an McpError."""
    return error_response_message(request_id, exc.code, exc.message, exc.data)
