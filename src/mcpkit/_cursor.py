"""Opaque list cursors: URL-safe base64 of ``{"o": offset}``, shared by every paginated list
(the server's ``*/list`` methods and ``tasks/list``)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS


def encode_cursor(offset: int) -> str:
    """An opaque cursor pointing at ``offset``."""
    return base64.urlsafe_b64encode(orjson.dumps({"o": offset})).decode().rstrip("=")


def decode_cursor(cursor: Any) -> int:
    """The offset a cursor points at; raise McpError(-32602) for anything we did not issue."""
    if not isinstance(cursor, str) or not cursor or len(cursor) > 64:
        raise McpError(INVALID_PARAMS, "Invalid cursor")
    try:
        data = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        raise McpError(INVALID_PARAMS, "Invalid cursor") from None
    offset = data.get("o") if isinstance(data, dict) else None
    if type(offset) is not int or offset < 0:
        raise McpError(INVALID_PARAMS, "Invalid cursor")
    return offset
