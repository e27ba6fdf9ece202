"""Streamable HTTP header rules of the modern revisions (pure checks)."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from mcpkit.envelope import CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY
from mcpkit.errors import HeaderMismatch, McpError
from mcpkit.transports.http.modern_headers import (
    check_method_header,
    check_modern_request,
    check_name_header,
    check_protocol_version_header,
    http_status,
    is_modern_request,
)
from mcpkit.versions import V2026_07_28
from tests.modern.schema import check, error_response

META = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}}


def headers(**over: str | None) -> dict[str, str]:
    h = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
    for k, v in over.items():
        name = k.replace("_", "-")
        for existing in list(h):
            if existing.lower() == name.lower():
                del h[existing]
        if v is not None:
            h[name] = v
    return h


def call(name: str = "echo", **extra: Any) -> dict[str, Any]:
    return {"name": name, "arguments": {}, "_meta": dict(META), **extra}


def rejected(exc: pytest.ExceptionInfo[McpError], fragment: str) -> None:
    assert exc.value.code == -32020
    assert isinstance(exc.value, HeaderMismatch)
    assert fragment in exc.value.message
    assert http_status(exc.value) == 400
    check("HeaderMismatchError", error_response(exc.value))


def test_conformant_request_passes_and_returns_the_envelope() -> None:
    env = check_modern_request(headers(), "tools/call", call())
    assert env.version is V2026_07_28


def test_header_names_are_case_insensitive() -> None:
    h = {"mcp-protocol-version": "2026-07-28", "MCP-METHOD": "tools/list"}
    check_modern_request(h, "tools/list", {"_meta": META})


def test_surrounding_whitespace_is_not_part_of_the_value() -> None:
    check_modern_request(headers(Mcp_Name="  echo \t"), "tools/call", call())


@pytest.mark.parametrize(
    "over, method, params, fragment",
    [
        ({"MCP_Protocol_Version": None}, "tools/call", call(), "missing MCP-Protocol-Version"),
        ({"Mcp_Method": None}, "tools/call", call(), "missing Mcp-Method"),
        ({"Mcp_Method": "prompts/list"}, "tools/list", {"_meta": META}, "'prompts/list'"),
        ({"Mcp_Method": "TOOLS/LIST"}, "tools/list", {"_meta": META}, "'TOOLS/LIST'"),
        ({"Mcp_Name": "wrong_tool_name"}, "tools/call", call(), "'wrong_tool_name'"),
        ({"Mcp_Name": None}, "tools/call", call(), "missing Mcp-Name"),
        ({"Mcp_Name": "caf\u00e9"}, "tools/call", call("caf\u00e9"), "invalid characters"),
        ({"Mcp_Name": "=?base64?ZWNobw?="}, "tools/call", call(), "base64"),
        ({"Mcp_Name": "=?base64?ZW!!obw==?="}, "tools/call", call(), "base64"),
    ],
)
def test_header_mismatches(
    over: dict[str, str | None], method: str, params: Any, fragment: str
) -> None:
    h = headers(**over)
    if method != "tools/call":
        h.pop("Mcp-Name", None)
    with pytest.raises(McpError) as info:
        check_modern_request(h, method, params)
    rejected(info, fragment)


def test_version_header_must_equal_the_meta_version_before_support_is_judged() -> None:
    params = {"_meta": {**META, PROTOCOL_VERSION_KEY: "v999.0.0"}}
    with pytest.raises(McpError) as info:
        check_modern_request(headers(Mcp_Method="server/discover"), "server/discover", params)
    rejected(info, "'2026-07-28' does not match body value 'v999.0.0'")


def test_unsupported_version_when_header_and_meta_agree() -> None:
    params = {"_meta": {**META, PROTOCOL_VERSION_KEY: "v999.0.0"}}
    h = headers(Mcp_Method="server/discover", MCP_Protocol_Version="v999.0.0")
    with pytest.raises(McpError) as info:
        check_modern_request(h, "server/discover", params)
    assert info.value.code == -32022 and http_status(info.value) == 400
    assert info.value.data == {"supported": ["2026-07-28"], "requested": "v999.0.0"}


def test_missing_meta_is_invalid_params_with_400() -> None:
    with pytest.raises(McpError) as info:
        check_modern_request(headers(Mcp_Method="server/discover"), "server/discover", {})
    assert info.value.code == -32602 and http_status(info.value) == 400


def test_base64_name_is_decoded_before_comparison() -> None:
    uri = "file:///caf\u00e9.txt"
    encoded = "=?base64?" + base64.b64encode(uri.encode()).decode() + "?="
    params = {"uri": uri, "_meta": META}
    check_modern_request(
        headers(Mcp_Method="resources/read", Mcp_Name=encoded), "resources/read", params
    )
    literal = "=?base64?literal?="
    enc2 = "=?base64?" + base64.b64encode(literal.encode()).decode() + "?="
    check_name_header(enc2, "prompts/get", {"name": literal})


def test_name_header_only_for_named_methods() -> None:
    check_name_header(None, "tools/list", {})
    check_name_header("anything", "resources/list", {})
    with pytest.raises(McpError):
        check_name_header("a", "resources/read", {"uri": "b"})


def test_single_checks() -> None:
    check_protocol_version_header("2026-07-28", "2026-07-28")
    with pytest.raises(HeaderMismatch):
        check_protocol_version_header(None, "2026-07-28")
    check_method_header("tools/list", "tools/list")
    with pytest.raises(HeaderMismatch):
        check_method_header("tools/call", "tools/list")


def test_http_status_mapping() -> None:
    assert http_status(McpError(-32601, "Method not found")) == 404
    assert http_status(McpError(-32021, "x")) == 400
    assert http_status(McpError(-32603, "x")) == 200


@pytest.mark.parametrize(
    "hdrs, params, modern",
    [
        ({"MCP-Protocol-Version": "2026-07-28"}, {"_meta": META}, True),
        ({"MCP-Protocol-Version": "2026-07-28"}, {}, True),
        ({}, {"_meta": META}, True),
        ({"mcp-session-id": "abc", "MCP-Protocol-Version": "2026-07-28"}, {"_meta": META}, False),
        ({"MCP-Protocol-Version": "2025-11-25"}, {"_meta": {"progressToken": 1}}, False),
        ({"MCP-Protocol-Version": "2025-06-18"}, {}, False),
        ({}, {"protocolVersion": "2025-11-25"}, False),
        ({"MCP-Protocol-Version": "v999.0.0"}, {}, True),
    ],
)
def test_era_routing(hdrs: dict[str, str], params: Any, modern: bool) -> None:
    assert is_modern_request(hdrs, params) is modern


def test_tasks_methods_name_their_task() -> None:
    params = {"taskId": "task-1", "_meta": META}
    h = headers(Mcp_Method="tasks/get", Mcp_Name="task-1")
    check_modern_request(h, "tasks/get", params)
    with pytest.raises(McpError) as info:
        check_modern_request(
            headers(Mcp_Method="tasks/get", Mcp_Name="task-2"), "tasks/get", params
        )
    rejected(info, "'task-2'")
