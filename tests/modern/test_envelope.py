"""The modern request envelope: parsing, errors and their data, result metadata."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.envelope import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    PROTOCOL_VERSION_KEY,
    SERVER_INFO_KEY,
    Envelope,
    build_request_meta,
    finish_result,
    has_request_meta,
    missing_client_capabilities,
    parse_request_envelope,
    read_request_envelope,
    require_client_capabilities,
    result_meta,
    should_log,
)
from mcpkit.errors import McpError
from mcpkit.versions import V2025_11_25, V2026_07_28
from tests.modern.schema import check, error_response, valid

INFO = {"name": "conformance-client", "version": "1.0.0"}


def meta(**over: Any) -> dict[str, Any]:
    m: dict[str, Any] = {
        PROTOCOL_VERSION_KEY: "2026-07-28",
        CLIENT_CAPABILITIES_KEY: {},
        CLIENT_INFO_KEY: INFO,
    }
    for k, v in over.items():
        key = {"version": PROTOCOL_VERSION_KEY, "caps": CLIENT_CAPABILITIES_KEY}.get(k, k)
        if v is None:
            m.pop(key, None)
        else:
            m[key] = v
    return m


def test_keys_are_the_spec_names() -> None:
    assert PROTOCOL_VERSION_KEY == "io.modelcontextprotocol/protocolVersion"
    assert CLIENT_CAPABILITIES_KEY == "io.modelcontextprotocol/clientCapabilities"
    assert CLIENT_INFO_KEY == "io.modelcontextprotocol/clientInfo"
    assert LOG_LEVEL_KEY == "io.modelcontextprotocol/logLevel"
    assert SERVER_INFO_KEY == "io.modelcontextprotocol/serverInfo"


def test_parse_valid_envelope() -> None:
    m = meta(caps={"elicitation": {}}, progressToken="t1", traceparent="00-ab-cd-01")
    m[LOG_LEVEL_KEY] = "warning"
    env = parse_request_envelope({"_meta": m, "name": "x"})
    assert env.version is V2026_07_28
    assert env.protocol_version == "2026-07-28"
    assert env.client_capabilities == {"elicitation": {}}
    assert env.client_info == INFO
    assert env.log_level == "warning"
    assert env.progress_token == "t1"
    assert env.extra == {"progressToken": "t1", "traceparent": "00-ab-cd-01"}
    check("RequestMetaObject", m)


def test_client_info_is_optional() -> None:
    env = parse_request_envelope({"_meta": meta(**{CLIENT_INFO_KEY: None})})
    assert env.client_info is None and env.log_level is None


@pytest.mark.parametrize(
    "params, fragment",
    [
        (None, "Missing params._meta"),
        ({}, "Missing params._meta"),
        ([], "params must be an object"),
        ({"_meta": "x"}, "must be an object"),
        ({"_meta": meta(version=None)}, "Missing io.modelcontextprotocol/protocolVersion"),
        ({"_meta": meta(version=2026)}, "non-empty string"),
        ({"_meta": meta(version="")}, "non-empty string"),
        ({"_meta": meta(caps=None)}, "Missing io.modelcontextprotocol/clientCapabilities"),
        ({"_meta": meta(caps=[])}, "clientCapabilities must be an object"),
        ({"_meta": meta(caps={"sampling": True})}, "clientCapabilities.sampling"),
        ({"_meta": meta(caps={"extensions": {"a.b/c": 1}})}, "extensions['a.b/c']"),
        ({"_meta": meta(**{CLIENT_INFO_KEY: {"name": "x"}})}, "clientInfo"),
        ({"_meta": meta(**{LOG_LEVEL_KEY: "loud"})}, "logLevel"),
    ],
)
def test_malformed_envelope_is_invalid_params(params: Any, fragment: str) -> None:
    with pytest.raises(McpError) as info:
        parse_request_envelope(params)
    assert info.value.code == -32602
    assert fragment in info.value.message
    check("JSONRPCErrorResponse", error_response(info.value))


def test_unsupported_version_error_and_data() -> None:
    with pytest.raises(McpError) as info:
        parse_request_envelope({"_meta": meta(version="v999.0.0")})
    err = info.value
    assert err.code == -32022
    assert err.message == "Unsupported protocol version"
    assert err.data == {"supported": ["2026-07-28"], "requested": "v999.0.0"}
    check("UnsupportedProtocolVersionError", error_response(err, 301))


def test_legacy_version_on_the_modern_path_is_unsupported_unless_listed() -> None:
    params = {"_meta": meta(version="2025-11-25")}
    with pytest.raises(McpError) as info:
        parse_request_envelope(params)
    assert info.value.data["requested"] == "2025-11-25"
    env = parse_request_envelope(params, supported=(V2026_07_28, V2025_11_25))
    assert env.version is V2025_11_25


def test_read_does_not_judge_the_version() -> None:
    env = read_request_envelope({"_meta": meta(version="v999.0.0")})
    assert env.version is None and env.protocol_version == "v999.0.0"
    assert has_request_meta({"_meta": meta()})
    assert not has_request_meta({"_meta": {"progressToken": 1}})
    assert not has_request_meta(None)


def test_build_request_meta_round_trips() -> None:
    m = build_request_meta(
        "2026-07-28",
        {"sampling": {}},
        INFO,
        log_level="debug",
        progress_token=7,
        extra={PROTOCOL_VERSION_KEY: "spoofed", "com.example/trace": "x"},
    )
    check("RequestMetaObject", m)
    assert m[PROTOCOL_VERSION_KEY] == "2026-07-28"
    env = parse_request_envelope({"_meta": m})
    assert env.client_capabilities == {"sampling": {}}
    assert env.log_level == "debug" and env.progress_token == 7
    assert env.extra["com.example/trace"] == "x"
    with pytest.raises(ValueError):
        build_request_meta("2026-07-28", {}, log_level="loud")


def test_result_meta_and_finish_result() -> None:
    server = {"name": "s", "version": "1.0"}
    assert result_meta(server) == {SERVER_INFO_KEY: server}
    out = finish_result({"tools": [], "_meta": {"com.example/x": 1}}, server)
    assert out["resultType"] == "complete"
    assert out["_meta"] == {SERVER_INFO_KEY: server, "com.example/x": 1}
    check("Result", out)
    own = finish_result({"resultType": "input_required", "requestState": "s"}, server)
    assert own["resultType"] == "input_required"
    assert "_meta" not in finish_result({}, None)
    assert not valid("Result", {"tools": []})


def test_missing_client_capabilities_is_recursive() -> None:
    assert missing_client_capabilities({}, {"sampling": {}}) == {"sampling": {}}
    assert missing_client_capabilities({"sampling": {}}, {"sampling": {}}) == {}
    assert missing_client_capabilities({"sampling": {}}, {"sampling": {"tools": {}}}) == {
        "sampling": {"tools": {}}
    }
    assert (
        missing_client_capabilities(
            {"sampling": {"tools": {}}, "roots": {}}, {"sampling": {"tools": {}}, "roots": {}}
        )
        == {}
    )


def test_require_client_capabilities_raises_minus_32021() -> None:
    env = parse_request_envelope({"_meta": meta(caps={"roots": {}})})
    require_client_capabilities(env, {"roots": {}})
    with pytest.raises(McpError) as info:
        require_client_capabilities(env, {"sampling": {}, "roots": {}})
    assert info.value.code == -32021
    assert info.value.data == {"requiredCapabilities": {"sampling": {}}}
    check("MissingRequiredClientCapabilityError", error_response(info.value, 401))


def test_should_log_only_with_a_log_level() -> None:
    base = parse_request_envelope({"_meta": meta()})
    assert not should_log(base, "emergency")
    env = Envelope(V2026_07_28, "2026-07-28", {}, log_level="warning")
    assert should_log(env, "error") and should_log(env, "warning")
    assert not should_log(env, "info")
