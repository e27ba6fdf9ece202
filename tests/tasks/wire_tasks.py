"""A :class:`~tests.wire.WireChecker` that also knows the tasks extension's messages.

The 2026-07-28 schema has no ``tasks/*``: the extension (``io.modelcontextprotocol/tasks``)
defines them. :class:`TasksWireChecker` checks its requests (``tasks/get``, ``tasks/update``,
``tasks/cancel`` with their ``_meta`` envelope, by the core ``RequestParams``) and its
results (``CreateTaskResult``, ``DetailedTask``, the bare acks) against the shapes below,
written from the extension's text; everything else goes to the core checker.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from tests.wire import WireChecker, defs, is_modern, request_version, validate

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


class TasksWireChecker(WireChecker):
    """Core schema for the core, the extension's shapes for its messages."""

    def _check_request(self, direction: str, msg: dict[str, Any], where: str) -> None:
        method = msg["method"]
        version = request_version(msg)
        if method in REQUEST_PARAMS and version is not None and is_modern(version):
            self.version = version
            if "id" in msg:
                (self._sent if direction == "send" else self._received)[msg["id"]] = (
                    method,
                    msg.get("params"),
                    version,
                )
            params = msg.get("params")
            self.errors.extend(_errors(REQUEST_PARAMS[method], params, where))
            if "RequestParams" in defs(version):
                self.errors.extend(
                    f"{where}: {e}" for e in validate(version, "RequestParams", params)
                )
            return
        super()._check_request(direction, msg, where)

    def _check(self, direction: str, msg: Any) -> None:
        if isinstance(msg, dict) and "result" in msg and "method" not in msg:
            origin = (self._received if direction == "send" else self._sent).get(msg.get("id"))
            if origin is not None and is_modern(origin[2]):
                method, _, _ = origin
                result = msg["result"]
                where = f"{direction} {msg!r:.300}"
                if method in RESULTS:
                    self.errors.extend(_errors(RESULTS[method], result, where))
                    return
                if isinstance(result, dict) and result.get("resultType") == "task":
                    self.errors.extend(_errors(CREATE_TASK_RESULT, result, where))
                    return
        super()._check(direction, msg)
