"""The modern edge's fast header checks agree with the full checks: whenever
``headers_match`` (or ``fields_match``, on the raw fields of the head) takes a request,
``check_modern_headers`` passes it too."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from mcpkit.errors import McpError
from mcpkit.transports.http.asgi import RequestHeaders
from mcpkit.transports.http.modern_headers import check_modern_headers
from mcpkit.transports.http.modern_server import (
    fields_match,
    header_mapping,
    headers_match,
    routed,
    routing_of,
)

V = "2026-07-28"


def _params(version: Any = V, name: Any = "echo") -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params: dict[str, Any] = {"_meta": meta}
    if name is not None:
        params["name"] = name
    return params


def test_the_usual_request_takes_the_fast_path() -> None:
    headers = {"mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "echo"}
    assert headers_match(headers, "tools/call", _params())
    assert headers_match(
        {"mcp-protocol-version": V, "mcp-method": "tools/list"}, "tools/list", _params()
    )


VALUES = [
    None,
    V,
    " " + V,
    "2025-11-25",
    "echo",
    " echo",
    "echo\t",
    "éc",
    "=?base64?ZWNobw==?=",
    "",
]


@pytest.mark.parametrize("method", ["tools/call", "tools/list", "resources/read"])
def test_whatever_the_fast_path_takes_the_full_checks_pass(method: str) -> None:
    taken = 0
    for version, mname, name, body_version, body_name in itertools.product(
        VALUES,
        [None, method, " " + method, "tools/lis"],
        VALUES,
        [V, " " + V, 7],
        ["echo", 3, None],
    ):
        headers = {
            k: v
            for k, v in (
                ("mcp-protocol-version", version),
                ("mcp-method", mname),
                ("mcp-name", name),
            )
            if v is not None
        }
        params = _params(body_version, body_name)
        if method == "resources/read":
            params["uri"] = params.pop("name", None)
        raw = [(b"host", b"x"), *((k.encode(), v.encode("latin-1")) for k, v in headers.items())]
        fields = dict(raw)
        first = fields_match(fields, method, params)  # values not all seen before: may refuse
        matched = headers_match(header_mapping(raw), method, params)
        assert matched or not first
        # Once header_mapping and headers_match have read these values, both agree.
        assert fields_match(fields, method, params) == matched
        if matched:
            taken += 1
            check_modern_headers(headers, method, params)  # must not raise
    assert taken > 0


def test_a_mismatch_is_left_to_the_full_checks() -> None:
    headers = {"mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "other"}
    assert not headers_match(headers, "tools/call", _params())
    with pytest.raises(McpError) as err:
        check_modern_headers(headers, "tools/call", _params())
    assert err.value.code == -32020


@pytest.mark.parametrize("method", ["tools/call", "tools/list", "resources/read"])
def test_the_routing_kept_per_head_agrees_with_the_full_checks(method: str) -> None:
    # What routing_of finds once per head and routed compares with each body: the same
    # outcome as headers_match on the mapping (a repeated name leaves no fields: False).
    taken = 0
    for version, mname, name, body_version, body_name in itertools.product(
        VALUES,
        [None, method, " " + method, "tools/lis"],
        VALUES,
        [V, " " + V, 7],
        ["echo", 3, None],
    ):
        headers = {
            k: v
            for k, v in (
                ("mcp-protocol-version", version),
                ("mcp-method", mname),
                ("mcp-name", name),
            )
            if v is not None
        }
        params = _params(body_version, body_name)
        if method == "resources/read":
            params["uri"] = params.pop("name", None)
        raw = [(b"host", b"x"), *((k.encode(), v.encode("latin-1")) for k, v in headers.items())]
        routing = routing_of(RequestHeaders(raw).fields)
        matched = routing is not False and routed(routing, method, params)
        assert matched == headers_match(header_mapping(raw), method, params)
        if matched:
            taken += 1
            check_modern_headers(headers, method, params)  # must not raise
    assert taken > 0
    repeated = [(b"mcp-method", method.encode()), (b"mcp-method", method.encode())]
    assert routing_of(RequestHeaders(repeated).fields) is False
    assert routing_of(None) is False
