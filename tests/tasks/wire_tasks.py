"""The tasks extension's messages for :class:`~tests.wire.WireChecker`.

The 2026-07-28 schema has no ``tasks/*``: the extension (``io.modelcontextprotocol/tasks``)
defines them. :class:`~tests.wire.WireChecker` checks its requests (``tasks/get``, ``tasks/update``,
``tasks/cancel`` with their ``_meta`` envelope, by the core ``RequestParams``) and its
results (``CreateTaskResult``, ``DetailedTask``, the bare acks) against the shapes below,
written from the extension's text, through :func:`check_request` and :func:`check_result`.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from tests.wire import WireChecker

EXTENSION = "io.modelcontextprotocol/tasks"
_ISO = {
    "type": "string",
    "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$",
}
_TASK_PROPERTIES: dict[str, Any] = {
    "taskId": {"type": "string", "minLength": 1},
    "status": {"enum": ["working", "input_required", "completed", "failed", "cancelled"]},
    "statusMessage": {"type": "string"},
    "createdAt": _ISO,
    "lastUpdatedAt": _ISO,
    "ttlMs": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
    "pollIntervalMs": {"type": "integer", "minimum": 1},
    "_meta": {"type": "object"},
}
_TASK_REQUIRED = ["taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"]
_LEGACY_KEYS = ["task", "ttl", "pollInterval", "requestState"]
_FORBID = [{"not": {"required": [k]}} for k in _LEGACY_KEYS]

CREATE_TASK_RESULT = {
    "type": "object",
    "properties": {**_TASK_PROPERTIES, "resultType": {"const": "task"}},
    "required": ["resultType", *_TASK_REQUIRED],
    "allOf": [
        *_FORBID,
        *({"not": {"required": [k]}} for k in ("result", "error", "inputRequests")),
    ],
}
DETAILED_TASK = {
    "type": "object",
    "properties": {
        **_TASK_PROPERTIES,
        "resultType": {"const": "complete"},
        "result": {"type": "object", "required": ["content"]},
        "error": {
            "type": "object",
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        },
        "inputRequests": {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "method": {
                        "enum": ["elicitation/create", "sampling/createMessage", "roots/list"]
                    },
                    "params": {"type": "object"},
                },
                "required": ["method"],
            },
        },
    },
    "required": ["resultType", *_TASK_REQUIRED],
    "allOf": [
        *_FORBID,
        {
            "if": {"properties": {"status": {"const": "completed"}}},
            "then": {"required": ["result"], "not": {"required": ["error"]}},
        },
        {
            "if": {"properties": {"status": {"const": "failed"}}},
            "then": {"required": ["error"], "not": {"required": ["result"]}},
        },
        {
            "if": {"properties": {"status": {"const": "input_required"}}},
            "then": {"required": ["inputRequests"]},
        },
        {
            "if": {"properties": {"status": {"enum": ["working", "cancelled"]}}},
            "then": {
                "not": {"anyOf": [{"required": [k]} for k in ("result", "error", "inputRequests")]}
            },
        },
    ],
}
ACK = {
    "type": "object",
    "properties": {"resultType": {"const": "complete"}, "_meta": {"type": "object"}},
    "required": ["resultType"],
    "additionalProperties": False,
}
_TASK_ID_PARAMS = {
    "type": "object",
    "properties": {"taskId": {"type": "string"}},
    "required": ["taskId"],
}
REQUEST_PARAMS = {
    "tasks/get": _TASK_ID_PARAMS,
    "tasks/cancel": _TASK_ID_PARAMS,
    "tasks/update": {
        **_TASK_ID_PARAMS,
        "properties": {"taskId": {"type": "string"}, "inputResponses": {"type": "object"}},
        "required": ["taskId", "inputResponses"],
    },
}
RESULTS = {"tasks/get": DETAILED_TASK, "tasks/update": ACK, "tasks/cancel": ACK}


def _errors(schema: dict[str, Any], instance: Any, where: str) -> list[str]:
    return [
        f"{where}: {e.message}"
        for e in jsonschema.Draft202012Validator(schema).iter_errors(instance)
    ]


def check_request(method: str, params: Any, version: str, where: str) -> list[str]:
    """Problems of a modern ``tasks/*`` request's params (the envelope included)."""
    from tests.wire import validate

    problems = _errors(REQUEST_PARAMS[method], params, where)
    problems.extend(f"{where}: {e}" for e in validate(version, "RequestParams", params))
    return problems


def check_result(method: str, result: Any, where: str) -> list[str] | None:
    """Problems of a modern result the extension defines (``tasks/*``, a CreateTaskResult),
    or None when it is not one of those."""
    if method in RESULTS:
        return _errors(RESULTS[method], result, where)
    if isinstance(result, dict) and result.get("resultType") == "task":
        return _errors(CREATE_TASK_RESULT, result, where)
    return None


class TasksWireChecker(WireChecker):
    """The core checker (which consults this module for the extension's messages)."""
