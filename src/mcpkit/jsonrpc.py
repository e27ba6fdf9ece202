"""JSON-RPC 2.0 as MCP uses it: error codes, message classification, the id rule.

Everything here is pure: no I/O, no event loop. Messages are plain ``dict`` objects decoded by
orjson; the session engine builds and reads them directly (no model round trip on the
envelope). :class:`~mcpkit.errors.McpError` is importable from here too.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Final, TypeGuard

from mcpkit.errors import McpError

__all__ = [
    "CONNECTION_CLOSED",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "REQUEST_TIMEOUT",
    "RESOURCE_NOT_FOUND",
    "URL_ELICITATION_REQUIRED",
    "JSONObject",
    "McpError",
    "MessageKind",
    "RequestId",
    "classify",
    "error_response",
    "is_valid_id",
    "readable_id",
]

JSONObject = dict[str, Any]
RequestId = str | int

# Standard JSON-RPC 2.0 codes.
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# MCP-defined codes.
RESOURCE_NOT_FOUND: Final = -32002
URL_ELICITATION_REQUIRED: Final = -32042
# Codes mcpkit uses locally (never sent on the wire): the peer went away, or a request timed out.
CONNECTION_CLOSED: Final = -32000
REQUEST_TIMEOUT: Final = -32001


class MessageKind(Enum):
    """What a decoded JSON value is, as a JSON-RPC message."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESULT = "result"
    ERROR = "error"
    INVALID = "invalid"


def is_valid_id(value: object) -> TypeGuard[RequestId]:
    """Request ids are strings or integers; never null, never booleans or floats."""
    t = type(value)
    return t is str or t is int


def readable_id(msg: Any) -> RequestId | None:
    """The ``id`` of a decoded message when it is a valid one, else None (for an error
    answer to a message that cannot be served)."""
    rid = msg.get("id") if type(msg) is dict else None
    t = type(rid)
    return rid if t is str or t is int else None


def classify(msg: Any) -> tuple[MessageKind, str | None]:
    """Classify one decoded message; for INVALID the second item says why."""
    if type(msg) is not dict:
        return MessageKind.INVALID, "a JSON-RPC message must be a JSON object"
    if msg.get("jsonrpc") != "2.0":
        return MessageKind.INVALID, 'missing or wrong "jsonrpc" member (must be "2.0")'
    if "method" in msg:
        method = msg["method"]
        if type(method) is not str:
            return MessageKind.INVALID, '"method" must be a string'
        params = msg.get("params")
        if params is not None and type(params) is not dict:
            return MessageKind.INVALID, '"params" must be an object'
        if "id" in msg:
            if not is_valid_id(msg["id"]):
                return MessageKind.INVALID, '"id" must be a string or an integer'
            return MessageKind.REQUEST, None
        return MessageKind.NOTIFICATION, None
    if "id" not in msg:
        return MessageKind.INVALID, 'a message needs "method" or "id"'
    if "result" in msg:
        if "error" in msg:
            return MessageKind.INVALID, 'a response cannot carry both "result" and "error"'
        return MessageKind.RESULT, None
    if "error" in msg:
        return MessageKind.ERROR, None
    return MessageKind.INVALID, 'a response needs "result" or "error"'


def error_response(
    request_id: RequestId | None, code: int, message: str, data: Any = None
) -> JSONObject:
    """Build an error response; ``request_id`` is None only when the id could not be read."""
    err: JSONObject = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "error": err, "id": request_id}
