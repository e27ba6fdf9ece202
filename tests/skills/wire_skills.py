"""The Skills extension's messages for :class:`~tests.wire.WireChecker`.

Neither core schema has ``skills/list``, ``skills/get`` or ``resources/directory/read``: the
extension (``io.modelcontextprotocol/skills``, specification/stable/skills.mdx) defines them.
The shapes below are written from its TypeScript types; directory children are checked
against the core ``Resource`` of the negotiated revision. On 2026-07-28 the results are
``CacheableResult``s (``resultType: "complete"``, ``ttlMs``, ``cacheScope`` required); the
handshake era has none of those fields.
"""

from __future__ import annotations

from typing import Any

import jsonschema

METHODS = frozenset({"skills/list", "skills/get", "resources/directory/read"})

SKILL_RESOURCE = {
    "type": "object",
    "properties": {
        "uri": {"type": "string", "minLength": 1},
        "digest": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
        "size": {"type": "integer", "minimum": 0},
    },
    "required": ["uri", "digest", "size"],
}
SKILL = {
    "type": "object",
    "properties": {
        "uri": {"type": "string", "pattern": "/SKILL\\.md$"},
        "frontmatter": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "description": {"type": "string"}},
            "required": ["name", "description"],
        },
        "resources": {"anyOf": [{"type": "array", "items": SKILL_RESOURCE}, {"const": "dynamic"}]},
    },
    "required": ["uri", "frontmatter", "resources"],
}
_CURSOR = {"type": "string"}
PARAMS = {
    "skills/list": {"type": "object", "properties": {"cursor": _CURSOR}},
    "skills/get": {
        "type": "object",
        "properties": {"uri": {"type": "string"}},
        "required": ["uri"],
    },
    "resources/directory/read": {
        "type": "object",
        "properties": {"uri": {"type": "string"}, "cursor": _CURSOR},
        "required": ["uri"],
    },
}
_CACHEABLE = {
    "properties": {
        "resultType": {"const": "complete"},
        "ttlMs": {"type": "integer", "minimum": 0},
        "cacheScope": {"enum": ["public", "private"]},
    },
    "required": ["resultType", "ttlMs", "cacheScope"],
}
_LEGACY = {"not": {"anyOf": [{"required": [k]} for k in ("resultType", "ttlMs", "cacheScope")]}}


def _result(method: str, modern: bool) -> dict[str, Any]:
    if method == "skills/list":
        shape: dict[str, Any] = {
            "type": "object",
            "properties": {"skills": {"type": "array", "items": SKILL}, "nextCursor": _CURSOR},
            "required": ["skills"],
        }
    elif method == "skills/get":
        shape = {
            "type": "object",
            "properties": {"skill": SKILL},
            "required": ["skill"],
            "not": {"required": ["nextCursor"]},
        }
    else:
        shape = {
            "type": "object",
            "properties": {"resources": {"type": "array"}, "nextCursor": _CURSOR},
            "required": ["resources"],
        }
        if modern:
            shape["allOf"] = [
                {"properties": {"resultType": {"const": "complete"}}, "required": ["resultType"]}
            ]
        return shape
    shape["allOf"] = [_CACHEABLE if modern else _LEGACY]
    return shape


def _errors(schema: dict[str, Any], instance: Any, where: str) -> list[str]:
    return [
        f"{where}: {e.message}"
        for e in jsonschema.Draft202012Validator(schema).iter_errors(instance)
    ]


def check_request(method: str, params: Any, version: str, where: str) -> list[str]:
    """Problems of a skills request's params (with the envelope on the modern wire)."""
    from tests.wire import is_modern, validate

    problems = _errors(PARAMS[method], params if params is not None else {}, where)
    if is_modern(version):
        problems.extend(f"{where}: {e}" for e in validate(version, "RequestParams", params))
    return problems


def check_result(method: str, result: Any, version: str, where: str) -> list[str]:
    """Problems of a skills result; directory children against the core ``Resource``."""
    from tests.wire import is_modern, validate

    problems = _errors(_result(method, is_modern(version)), result, where)
    if method == "resources/directory/read" and isinstance(result, dict):
        for child in result.get("resources") or []:
            problems.extend(f"{where}: {e}" for e in validate(version, "Resource", child))
    return problems
