"""mcpkit.http_headers: x-mcp-header parameters mirrored as Mcp-Param-* headers."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.errors import HeaderMismatch
from mcpkit.http_headers import (
    HEADER_MISMATCH_STATUS,
    STANDARD_HEADERS,
    HeaderParam,
    InvalidHeaderAnnotation,
    decode_value,
    encode_value,
    header_params,
    param_headers,
    request_headers,
    split_valid_tools,
    validate_param_headers,
)


def prop(kind: str, header: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": kind}
    if header is not None:
        out["x-mcp-header"] = header
    return out


# The tool and the first call of the conformance suite's http-custom-headers scenario.
CUSTOM = {
    "type": "object",
    "properties": {
        "region": prop("string", "Region"),
        "priority": prop("integer", "Priority"),
        "verbose": prop("boolean", "Verbose"),
        "debug": prop("boolean", "Debug"),
        "empty_val": prop("string", "EmptyVal"),
        "method_val": prop("string", "Method"),
        "float_val": prop("number"),
        "non_ascii_val": prop("string", "NonAscii"),
        "whitespace_val": prop("string", "Whitespace"),
        "leading_space_val": prop("string", "LeadingSpace"),
        "trailing_space_val": prop("string", "TrailingSpace"),
        "internal_space_val": prop("string", "InternalSpace"),
        "control_char_val": prop("string", "ControlChar"),
        "crlf_val": prop("string", "Crlf"),
        "tab_val": prop("string", "Tab"),
        "query": prop("string"),
    },
}
CALL = {
    "region": "us-west1",
    "priority": 42,
    "verbose": False,
    "debug": True,
    "empty_val": "",
    "method_val": "test-method",
    "float_val": 3.14159,
    "non_ascii_val": "Hello, 世界",
    "whitespace_val": " padded ",
    "leading_space_val": " us-west1",
    "trailing_space_val": "us-west1 ",
    "internal_space_val": "us west 1",
    "control_char_val": "line1\nline2",
    "crlf_val": "line1\r\nline2",
    "tab_val": "\tindented",
    "query": "SELECT * FROM users",
}


def test_client_mirrors_annotated_parameters_with_the_spec_encoding() -> None:
    headers = param_headers(header_params(CUSTOM), CALL)
    assert headers == {
        "Mcp-Param-Region": "us-west1",
        "Mcp-Param-Priority": "42",
        "Mcp-Param-Verbose": "false",
        "Mcp-Param-Debug": "true",
        "Mcp-Param-EmptyVal": "",
        "Mcp-Param-Method": "test-method",
        "Mcp-Param-NonAscii": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        "Mcp-Param-Whitespace": "=?base64?IHBhZGRlZCA=?=",
        "Mcp-Param-LeadingSpace": "=?base64?IHVzLXdlc3Qx?=",
        "Mcp-Param-TrailingSpace": "=?base64?dXMtd2VzdDEg?=",
        "Mcp-Param-InternalSpace": "us west 1",
        "Mcp-Param-ControlChar": "=?base64?bGluZTEKbGluZTI=?=",
        "Mcp-Param-Crlf": "=?base64?bGluZTENCmxpbmUy?=",
        "Mcp-Param-Tab": "=?base64?CWluZGVudGVk?=",
    }


def test_null_and_absent_arguments_send_no_header() -> None:
    params = header_params(CUSTOM)
    assert param_headers(params, {"region": "us-east1", "priority": 1, "verbose": None}) == {
        "Mcp-Param-Region": "us-east1",
        "Mcp-Param-Priority": "1",
    }


def test_spec_encoding_examples() -> None:
    assert encode_value("us-west1") == "us-west1"
    assert encode_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
    assert encode_value("line1\nline2") == "=?base64?bGluZTEKbGluZTI=?="
    for value in ("us-west1", "Hello, 世界", " padded ", "=?base64?literal?=", "", "a b"):
        assert decode_value(encode_value(value)) == value


def test_nested_properties_are_reachable() -> None:
    schema = {
        "type": "object",
        "properties": {
            "target": {"type": "object", "properties": {"zone": prop("string", "Zone")}}
        },
    }
    (param,) = header_params(schema)
    assert param == HeaderParam("Zone", ("target", "zone"), "string")
    assert param_headers([param], {"target": {"zone": "eu"}}) == {"Mcp-Param-Zone": "eu"}
    assert param_headers([param], {"target": {}}) == {}


def test_annotation_like_keys_in_instance_data_are_no_annotations() -> None:
    schema = {
        "type": "object",
        "properties": {"x-mcp-header": {"type": "object", "default": {"x-mcp-header": 1}}},
    }
    assert header_params(schema) == ()


# The invalid tools of the suite's http-invalid-tool-headers scenario, and the other
# places an annotation may not be.
INVALID = {
    "empty": {"properties": {"r": prop("string", "")}},
    "object": {"properties": {"r": prop("object", "R")}},
    "array": {"properties": {"r": prop("array", "R")}},
    "null": {"properties": {"r": prop("null", "R")}},
    "number": {"properties": {"r": prop("number", "R")}},
    "untyped": {"properties": {"r": {"x-mcp-header": "R"}}},
    "duplicate same case": {
        "properties": {"a": prop("string", "Region"), "b": prop("string", "Region")}
    },
    "duplicate other case": {
        "properties": {"a": prop("string", "MyField"), "b": prop("string", "myfield")}
    },
    "space": {"properties": {"r": prop("string", "My Region")}},
    "colon": {"properties": {"r": prop("string", "Region:Primary")}},
    "non-ASCII": {"properties": {"r": prop("string", "Région")}},
    "control character": {"properties": {"r": prop("string", "Region\t1")}},
    "not a string": {"properties": {"r": {"type": "string", "x-mcp-header": 5}}},
    "under items": {"properties": {"r": {"type": "array", "items": prop("string", "R")}}},
    "under anyOf": {"properties": {"r": {"anyOf": [prop("string", "R")]}}},
    "under $defs": {
        "$defs": {"d": prop("string", "R")},
        "properties": {"r": {"$ref": "#/$defs/d"}},
    },
    "on the root": {"type": "object", "x-mcp-header": "R"},
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_annotations_are_rejected(case: str) -> None:
    with pytest.raises(InvalidHeaderAnnotation):
        header_params({"type": "object", **INVALID[case]})


def test_client_drops_invalid_tools_and_says_why() -> None:
    tools = [
        {
            "name": "valid_tool",
            "inputSchema": {"type": "object", "properties": {"region": prop("string", "Region")}},
        },
        {"name": "invalid_number_header", "inputSchema": {"type": "object", **INVALID["number"]}},
        {"name": "plain", "inputSchema": {"type": "object"}},
    ]
    valid, rejected = split_valid_tools(tools)
    assert [t["name"] for t in valid] == ["valid_tool", "plain"]
    assert [name for name, _ in rejected] == ["invalid_number_header"]
    assert "number" in rejected[0][1]


def test_request_headers_of_a_modern_tools_call() -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "execute_sql",
            "arguments": {"region": "us-west1", "query": "SELECT 1"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
        },
    }
    params = header_params({"type": "object", "properties": {"region": prop("string", "Region")}})
    assert request_headers(message, params) == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "execute_sql",
        "Mcp-Param-Region": "us-west1",
    }
    read = {"method": "resources/read", "params": {"uri": "file:///a b/ü.txt"}}
    assert request_headers(read) == {
        "Mcp-Method": "resources/read",
        "Mcp-Name": encode_value("file:///a b/ü.txt"),
    }
    assert request_headers(read)["Mcp-Name"].startswith("=?base64?")
    assert STANDARD_HEADERS == ("MCP-Protocol-Version", "Mcp-Method", "Mcp-Name")


def test_arguments_that_cannot_be_mirrored_are_a_clear_error() -> None:
    params = [HeaderParam("R", ("r",), "string")]
    with pytest.raises(ValueError, match="only strings, integers and booleans"):
        param_headers(params, {"r": ["a"]})
    with pytest.raises(ValueError, match="safe integer range"):
        param_headers([HeaderParam("N", ("n",), "integer")], {"n": 2**53})


# --- server side: the suite's http-custom-header-server-validation cases ---

GREETING = [HeaderParam("Greeting", ("greeting",), "string")]


@pytest.mark.parametrize(
    "header", ["Hello", "=?base64?SGVsbG8=?=", "  Hello\t", "=?base64?SGVsbG8=?= "]
)
def test_server_accepts_matching_headers(header: str) -> None:
    validate_param_headers({"mcp-param-greeting": header}, GREETING, {"greeting": "Hello"})


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({"Mcp-Param-Greeting": "=?base64?SGVsbG8?="}, "base64"),  # bad padding
        ({"Mcp-Param-Greeting": "=?base64?SGVs!!!bG8=?="}, "base64"),  # bad characters
        ({"Mcp-Param-Greeting": "=?base64?SGVsbG8=?"}, "does not match"),  # literal, differs
        ({"Mcp-Param-Greeting": "Goodbye"}, "does not match"),
        ({"Mcp-Param-Greeting": "Hell\x00o"}, "invalid characters"),
        ({"Mcp-Param-Greeting": "Héllo"}, "invalid characters"),
        ({}, "missing"),
    ],
)
def test_server_rejects_bad_headers_with_header_mismatch(
    headers: dict[str, str], reason: str
) -> None:
    with pytest.raises(HeaderMismatch, match=reason) as caught:
        validate_param_headers(headers, GREETING, {"greeting": "Hello"})
    assert caught.value.code == -32020
    assert HEADER_MISMATCH_STATUS == 400


def test_server_compares_integers_numerically_and_booleans_exactly() -> None:
    params = header_params(CUSTOM)
    args = {"region": "r", "priority": 42, "verbose": False}
    validate_param_headers(
        {"Mcp-Param-Region": "r", "Mcp-Param-Priority": "42.0", "Mcp-Param-Verbose": "false"},
        params,
        args,
    )
    with pytest.raises(HeaderMismatch):
        validate_param_headers(
            {"Mcp-Param-Region": "r", "Mcp-Param-Priority": "42", "Mcp-Param-Verbose": "False"},
            params,
            args,
        )
    with pytest.raises(HeaderMismatch):
        validate_param_headers(
            {"Mcp-Param-Region": "r", "Mcp-Param-Priority": "41", "Mcp-Param-Verbose": "false"},
            params,
            args,
        )


def test_server_rejects_a_header_without_its_argument() -> None:
    with pytest.raises(HeaderMismatch, match="argument is absent"):
        validate_param_headers({"Mcp-Param-Greeting": "Hello"}, GREETING, {"greeting": None})
    validate_param_headers({}, GREETING, {})


def test_encoded_values_round_trip_through_the_server_check() -> None:
    params = header_params(CUSTOM)
    validate_param_headers(param_headers(params, CALL), params, CALL)
