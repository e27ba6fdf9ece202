"""Checks real traffic against the official schema.json of the negotiated protocol version.

A :class:`WireChecker` is a session tracer: give one to every session a test makes
(``Session(..., tracer=checker)``). It learns the negotiated version from the ``initialize``
exchange, remembers which method each request id belongs to, and validates every message
sent and received: requests and notifications by their method's definition, results by the
result definition of the request they answer, errors by the error definition. Problems are
collected in ``checker.errors``; the ``wire`` fixture fails the test if any remain.
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
        # id -> (method, params) for requests we sent / received
        self._sent: dict[Any, tuple[str, Any]] = {}
        self._received: dict[Any, tuple[str, Any]] = {}

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
                )

    def _check(self, direction: str, msg: Any) -> None:
        where = f"{direction} {msg!r:.300}"
        if not isinstance(msg, dict):
            self.errors.append(f"{where}: not an object")
            return
        requests, notifications = method_defs(self.version)
        if "method" in msg:
            method = msg["method"]
            if method == "initialize":
                pv = (msg.get("params") or {}).get("protocolVersion")
                if pv in VERSIONS:
                    self.version = pv
                    requests, notifications = method_defs(self.version)
            if "id" in msg:
                (self._sent if direction == "send" else self._received)[msg["id"]] = (
                    method,
                    msg.get("params"),
                )
                name = requests.get(method)
            else:
                name = notifications.get(method)
            if name is None:
                self.errors.append(
                    f"{where}: method {method!r} is not in the {self.version} schema"
                )
                return
            self.errors.extend(f"{where}: {e}" for e in validate(self.version, name, msg))
            return
        rid = msg.get("id")
        origin = (self._received if direction == "send" else self._sent).get(rid)
        if "error" in msg:
            env = (
                "JSONRPCErrorResponse"
                if "JSONRPCErrorResponse" in defs(self.version)
                else "JSONRPCError"
            )
            if rid is None:
                # JSON-RPC 2.0 answers unparseable input with id null; the MCP schema only
                # types request ids, so check the rest of the envelope.
                self.errors.extend(
                    f"{where}: {e}" for e in validate(self.version, env, {**msg, "id": 0})
                )
                return
            self.errors.extend(f"{where}: {e}" for e in validate(self.version, env, msg))
            return
        if origin is None:
            self.errors.append(f"{where}: response to an id that was never requested")
            return
        method, params = origin
        if method == "initialize":
            pv = (msg.get("result") or {}).get("protocolVersion")
            if pv in VERSIONS:
                self.version = pv
                requests, notifications = method_defs(self.version)
        env = (
            "JSONRPCResultResponse"
            if "JSONRPCResultResponse" in defs(self.version)
            else "JSONRPCResponse"
        )
        self.errors.extend(f"{where}: {e}" for e in validate(self.version, env, msg))
        req_def = requests.get(method)
        if req_def is None:
            self.errors.append(f"{where}: answered method {method!r} unknown to {self.version}")
            return
        rdef = result_def(self.version, req_def)
        result = msg.get("result")
        errs = validate(self.version, rdef, result)
        if errs and isinstance(params, dict) and "task" in params:
            errs = validate(self.version, "CreateTaskResult", result)
        self.errors.extend(f"{where}: {e}" for e in errs)

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
