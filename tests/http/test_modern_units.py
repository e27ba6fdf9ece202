"""Pure pieces of the modern HTTP edge: the header checks' order, the GET/DELETE era rule,
status codes and the Mcp-* header mapping."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.errors import McpError
from mcpkit.transports.http.modern_headers import (
    check_modern_headers,
    is_modern_stream_request,
    status_for_code,
)
from mcpkit.transports.http.modern_server import header_mapping
from tests.http.modern import call, meta


def code_of(headers: dict[str, str], method: str, params: Any) -> int | None:
    try:
        check_modern_headers(headers, method, params)
    except McpError as exc:
        return exc.code
    return None


GOOD = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo"}


def test_the_order_of_the_header_checks() -> None:
    params = call(1, "echo")["params"]
    assert code_of(GOOD, "tools/call", params) is None
    # 1. the version header first, whatever else is wrong
    assert code_of({}, "tools/call", {}) == -32020
    # Mcp-Method next
    assert code_of({**GOOD, "mcp-method": "tools/list"}, "tools/call", {}) == -32020
    # a malformed envelope wins over a version mismatch and a wrong Mcp-Name
    broken = {"name": "echo", "_meta": {"io.modelcontextprotocol/protocolVersion": "x"}}
    assert code_of(GOOD, "tools/call", broken) == -32602
    assert code_of({**GOOD, "mcp-name": "other"}, "tools/call", {"name": "echo"}) == -32602
    # a well-formed envelope with another version: -32020
    other = {"name": "echo", "_meta": meta(version="v999")}
    assert code_of(GOOD, "tools/call", other) == -32020
    # Mcp-Name: required on tools/call, compared after decoding
    assert code_of({**GOOD, "mcp-name": "other"}, "tools/call", params) == -32020
    no_name = {k: v for k, v in GOOD.items() if k != "mcp-name"}
    assert code_of(no_name, "tools/call", params) == -32020
    assert code_of({**GOOD, "mcp-name": "=?base64?ZWNobw==?="}, "tools/call", params) is None
    # a matching but malformed envelope is the session's to judge (-32602 there)
    assert (
        code_of(
            GOOD,
            "tools/call",
            {"name": "echo", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
        )
        is None
    )


@pytest.mark.parametrize(
    ("sid", "version", "modern"),
    [
        (None, "2026-07-28", True),
        (None, "v999", True),
        (None, "2025-11-25", False),
        (None, " 2025-06-18 ", False),
        (None, None, False),
        ("abc", "2026-07-28", False),
    ],
)
def test_which_get_or_delete_is_modern(sid: str | None, version: str | None, modern: bool) -> None:
    assert is_modern_stream_request(sid, version) is modern


def test_status_codes() -> None:
    assert status_for_code(-32601) == 404
    for code in (-32020, -32021, -32022, -32700, -32600, -32602):
        assert status_for_code(code) == 400
    assert status_for_code(-32603) == 200 and status_for_code(-32002) == 200


def test_header_mapping_keeps_mcp_headers_and_joins_repeats() -> None:
    # ASGI header names are lower-case
    raw = [
        (b"host", b"x"),
        (b"mcp-method", b"a"),
        (b"mcp-method", b"b"),
        (b"mcp-protocol-version", b"2026-07-28"),
        (b"mcp-param-region", b"eu"),
    ]
    assert header_mapping(raw) == {
        "mcp-method": "a, b",
        "mcp-protocol-version": "2026-07-28",
        "mcp-param-region": "eu",
    }
