"""Checks real traffic against the official schema.json of the negotiated protocol version.

A :class:`WireChecker` is a session tracer: give one to every session a test makes
(``Session(..., tracer=checker)``). It learns the negotiated version from the ``initialize``
exchange (handshake era) or from each request's ``_meta``
(``io.modelcontextprotocol/protocolVersion``, the 2026-07-28 era), remembers which method and
version each request id belongs to, and validates every message sent and received: requests
and notifications by their method's definition, results by the result definition of the
request they answer (an ``InputRequiredResult`` by its own), errors by the error definition
of their code where the schema has one. Problems are collected in ``checker.errors``; the
``wire`` fixture fails the test if any remain.

On the 2026-07-28 wire it also reports what the schema alone cannot: a JSON-RPC request
from server to client (``sampling/createMessage``, ``elicitation/create``, ``roots/list``
travel inside an ``InputRequiredResult`` instead) and an ``InputRequiredResult`` answering a
method that may not ask for input. The tasks extension's ``tasks/get``, ``tasks/update``,
``tasks/cancel`` and ``CreateTaskResult`` are checked against its own shapes
(tests/tasks/wire_tasks.py).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema
import orjson

SCHEMA_DIR = Path(__file__).parent / "schemas"
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
#: The stateless revisions: the version travels in every request's ``_meta``.
MODERN_VERSIONS = ("2026-07-28",)
PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"
#: The only requests an ``InputRequiredResult`` may answer (basic/patterns/mrtr).
INPUT_REQUIRED_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})
#: The requests of the tasks extension (io.modelcontextprotocol/tasks) on the modern wire,
#: checked by tests/tasks/wire_tasks.py (the core schema has none).
TASKS_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
#: The requests of the Skills extension (io.modelcontextprotocol/skills), both eras, checked
#: by tests/skills/wire_skills.py.
SKILLS_METHODS = frozenset({"skills/list", "skills/get", "resources/directory/read"})

# Result definitions whose name is not simply "<Request name minus Request>Result".
_RESULT_EXCEPTIONS = {
    "PingRequest": "EmptyResult",
    "SetLevelRequest": "EmptyResult",
    "SubscribeRequest": "EmptyResult",
    "UnsubscribeRequest": "EmptyResult",
}


@functools.cache
def schema(version: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMA_DIR / f"{version}.json").read_text())
    _apply_errata(loaded)
    return loaded


def _apply_errata(root: dict[str, Any]) -> None:
    """Known mistakes of the generated schema.json, corrected to the normative TypeScript
    types (schema.mdx). Each one is narrow and documented.

    - ``ElicitResult.content`` values are ``string | number | boolean | string[]`` in the
      type reference, but the generated JSON says ``integer`` instead of ``number``, which
      would reject a valid reply such as ``{"score": 95.5}``.
    """
    defs_ = root.get("$defs") or root.get("definitions") or {}
    content = defs_.get("ElicitResult", {}).get("properties", {}).get("content", {})
    for option in content.get("additionalProperties", {}).get("anyOf", []):
        if option.get("type") == ["string", "integer", "boolean"]:
            option["type"] = ["string", "number", "boolean"]


def defs_key(version: str) -> str:
    return "$defs" if "$defs" in schema(version) else "definitions"


def defs(version: str) -> dict[str, Any]:
    return schema(version)[defs_key(version)]


@functools.cache
def validator(version: str, name: str) -> jsonschema.protocols.Validator:
    root = schema(version)
    cls = jsonschema.validators.validator_for(root)
    return cls({**root, "$ref": f"#/{defs_key(version)}/{name}"})


@functools.cache
def method_defs(version: str) -> tuple[dict[str, str], dict[str, str]]:
    """(request method -> def name, notification method -> def name)."""
    requests: dict[str, str] = {}
    notifications: dict[str, str] = {}
    for name, d in defs(version).items():
        props = d.get("properties", {})
        method = props.get("method", {}).get("const")
        if not isinstance(method, str) or name.startswith("JSONRPC"):
            continue
        if "id" in props or name.endswith("Request"):
            requests.setdefault(method, name)
        else:
            notifications.setdefault(method, name)
    return requests, notifications


@functools.cache
def error_defs(version: str) -> dict[int, str]:
    """error code -> the definition of a whole error response with that code (2026-07-28:
    -32020 ``HeaderMismatchError``, -32021, -32022; 2025-11-25: -32042)."""
    out: dict[int, str] = {}
    for name, d in defs(version).items():
        error = d.get("properties", {}).get("error", {})
        for part in error.get("allOf", []):
            code = part.get("properties", {}).get("code", {}).get("const")
            if isinstance(code, int):
                out.setdefault(code, name)
    return out


def is_modern(version: str) -> bool:
    """Whether ``version`` is a stateless revision (its requests carry the ``_meta`` envelope)."""
    return version in MODERN_VERSIONS


def request_version(msg: Any) -> str | None:
    """The known modern version a request declares in its ``_meta``, else None."""
    params = msg.get("params") if isinstance(msg, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    pv = meta.get(PROTOCOL_VERSION_META) if isinstance(meta, dict) else None
    return pv if isinstance(pv, str) and is_modern(pv) else None


def result_def(version: str, request_def: str) -> str:
    if request_def in _RESULT_EXCEPTIONS:
        name = _RESULT_EXCEPTIONS[request_def]
    else:
        name = request_def.removesuffix("Request") + "Result"
    d = defs(version)
    if name in d:
        return name
    return "EmptyResult" if "EmptyResult" in d else "Result"


def validate(version: str, name: str, instance: Any) -> list[str]:
    return [
        f"{name} ({version}) at /{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator(version, name).iter_errors(instance)
    ]


class WireChecker:
    """Session tracer that validates every message against the official schema."""

    def __init__(self, version: str = "2025-11-25", *, check_received: bool = True) -> None:
        self.version = version
        self.check_received = check_received
        self.errors: list[str] = []
        self.messages: list[tuple[str, Any]] = []
        # The version an initialize handshake fixed, if any: requests without the modern
        # _meta envelope belong to that session (a dual-era peer may see both eras).
        self._legacy: str | None = None
        # id -> (method, params, version) for requests we sent / received
        self._sent: dict[Any, tuple[str, Any, str]] = {}
        self._received: dict[Any, tuple[str, Any, str]] = {}

    def __call__(self, direction: str, message: Any) -> None:
        if direction == "recv-invalid":
            self.messages.append((direction, message))
            if self.check_received:
                # Bytes that are no JSON at all: e.g. a stray print on a stdio server's stdout.
                self.errors.append(f"recv: not JSON: {bytes(message)[:300]!r}")
            return
        # Normalise exactly as the wire would (orjson.Fragment etc.).
        message = orjson.loads(orjson.dumps(message))
        self.messages.append((direction, message))
        if direction == "recv" and not self.check_received:
            self._track(direction, message)
            return
        items = message if isinstance(message, list) else [message]
        if isinstance(message, list):
            if self.version != "2025-03-26":
                self.errors.append(f"{direction}: batch on {self.version}")
        for item in items:
            try:
                self._check(direction, item)
            except Exception as exc:  # a checker bug must fail the test, not the session
                self.errors.append(f"{direction}: checker error {exc!r} on {item!r}")

    def _track(self, direction: str, message: Any) -> None:
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict) and "method" in item and "id" in item:
                (self._received if direction == "recv" else self._sent)[item["id"]] = (
                    item["method"],
                    item.get("params"),
                    request_version(item) or self.version,
                )

    def _check(self, direction: str, msg: Any) -> None:
        where = f"{direction} {msg!r:.300}"
        if not isinstance(msg, dict):
            self.errors.append(f"{where}: not an object")
            return
        if "method" in msg:
            self._check_request(direction, msg, where)
            return
        rid = msg.get("id")
        origin = (self._received if direction == "send" else self._sent).get(rid)
        version = origin[2] if origin is not None else self.version
        if "error" in msg:
            self._check_error(msg, version, rid, where)
            return
        if origin is None:
            self.errors.append(f"{where}: response to an id that was never requested")
            return
        method, params, version = origin
        if method == "initialize":
            pv = (msg.get("result") or {}).get("protocolVersion")
            if pv in VERSIONS:
                self.version = self._legacy = version = pv
        env = (
            "JSONRPCResultResponse"
            if "JSONRPCResultResponse" in defs(version)
            else "JSONRPCResponse"
        )
        self.errors.extend(f"{where}: {e}" for e in validate(version, env, msg))
        if method in SKILLS_METHODS:  # the Skills extension's (either era)
            from tests.skills.wire_skills import check_result as check_skills

            self.errors.extend(check_skills(method, msg.get("result"), version, where))
            return
        req_def = method_defs(version)[0].get(method)
        if req_def is None and is_modern(version) and method in TASKS_METHODS:
            req_def = method  # the tasks extension's, checked below
        if req_def is None:
            self.errors.append(f"{where}: answered method {method!r} unknown to {version}")
            return
        result = msg.get("result")
        result_type = result.get("resultType") if isinstance(result, dict) else None
        if is_modern(version) and result_type == "input_required":
            if method not in INPUT_REQUIRED_METHODS:
                self.errors.append(
                    f"{where}: InputRequiredResult answers {method!r}; only "
                    f"{', '.join(sorted(INPUT_REQUIRED_METHODS))} may ask for input"
                )
            self.errors.extend(
                f"{where}: {e}" for e in validate(version, "InputRequiredResult", result)
            )
            return
        if is_modern(version):
            from tests.tasks.wire_tasks import check_result

            problems = check_result(method, result, where)
            if problems is not None:  # the tasks extension's (not in the core schema)
                self.errors.extend(problems)
                return
        errs = validate(version, result_def(version, req_def), result)
        if errs and isinstance(params, dict) and "task" in params:
            errs = validate(version, "CreateTaskResult", result)
        self.errors.extend(f"{where}: {e}" for e in errs)

    def _check_request(self, direction: str, msg: dict[str, Any], where: str) -> None:
        method = msg["method"]
        if method == "initialize":
            pv = (msg.get("params") or {}).get("protocolVersion")
            if pv in VERSIONS:
                self.version = self._legacy = pv
        elif "id" in msg:
            declared = request_version(msg) or self._legacy
            if declared is not None:
                self.version = declared
        version = self.version
        requests, notifications = method_defs(version)
        if is_modern(version) and method in TASKS_METHODS and "id" in msg:
            from tests.tasks.wire_tasks import check_request

            (self._sent if direction == "send" else self._received)[msg["id"]] = (
                method,
                msg.get("params"),
                version,
            )
            self.errors.extend(check_request(method, msg.get("params"), version, where))
            return
        if method in SKILLS_METHODS and "id" in msg:
            from tests.skills.wire_skills import check_request as check_skills

            (self._sent if direction == "send" else self._received)[msg["id"]] = (
                method,
                msg.get("params"),
                version,
            )
            self.errors.extend(check_skills(method, msg.get("params"), version, where))
            return
        if "id" in msg:
            (self._sent if direction == "send" else self._received)[msg["id"]] = (
                method,
                msg.get("params"),
                version,
            )
            name = requests.get(method)
            if (
                name is not None
                and is_modern(version)
                and "id" not in defs(version)[name].get("properties", {})
            ):
                self.errors.append(
                    f"{where}: {method!r} sent as a JSON-RPC request on the {version} wire; "
                    "it only travels inside an InputRequiredResult (MRTR)"
                )
                return
        else:
            name = notifications.get(method)
        if name is None:
            self.errors.append(f"{where}: method {method!r} is not in the {version} schema")
            return
        self.errors.extend(f"{where}: {e}" for e in validate(version, name, msg))

    def _check_error(self, msg: dict[str, Any], version: str, rid: Any, where: str) -> None:
        env = "JSONRPCErrorResponse" if "JSONRPCErrorResponse" in defs(version) else "JSONRPCError"
        if rid is None:
            # JSON-RPC 2.0 answers unparseable input with id null; the MCP schema only
            # types request ids, so check the rest of the envelope.
            msg = {**msg, "id": 0}
        self.errors.extend(f"{where}: {e}" for e in validate(version, env, msg))
        error = msg.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        specific = error_defs(version).get(code) if isinstance(code, int) else None
        if specific is not None:
            self.errors.extend(f"{where}: {e}" for e in validate(version, specific, msg))

    def sent(self, method: str | None = None) -> list[Any]:
        """Messages this side sent (optionally only those with ``method``)."""
        return [
            m
            for d, m in self.messages
            if d == "send"
            and (method is None or (isinstance(m, dict) and m.get("method") == method))
        ]

    def received(self, method: str | None = None) -> list[Any]:
        """Messages this side received (optionally only those with ``method``)."""
        return [
            m
            for d, m in self.messages
            if d == "recv"
            and (method is None or (isinstance(m, dict) and m.get("method") == method))
        ]
