"""tests.wire.WireChecker on the 2026-07-28 wire: valid modern traffic passes, invalid is caught."""

from __future__ import annotations

from typing import Any

import pytest

from tests.wire import WireChecker

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}
ELICIT = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
}


def req(rid: int, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}}


def res(rid: int, **result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def server_side(*exchange: tuple[str, dict[str, Any]]) -> WireChecker:
    """A checker seen from the server, legacy default version, fed ``exchange``."""
    checker = WireChecker()
    for direction, message in exchange:
        checker(direction, message)
    return checker


def test_valid_modern_conversation_passes() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}}
    checker = server_side(
        ("recv", req(1, "server/discover")),
        (
            "send",
            res(
                1,
                resultType="complete",
                supportedVersions=[V],
                capabilities={"tools": {"listChanged": True}},
                ttlMs=60000,
                cacheScope="public",
                _meta=SERVER_META,
            ),
        ),
        ("recv", req(2, "tools/list")),
        ("send", res(2, resultType="complete", tools=[tool], ttlMs=0, cacheScope="public")),
        ("recv", req(3, "tools/call", name="t", arguments={})),
        (
            "send",
            res(3, resultType="input_required", inputRequests={"who": ELICIT}, requestState="s"),
        ),
        (
            "recv",
            req(
                4,
                "tools/call",
                name="t",
                arguments={},
                inputResponses={"who": {"action": "accept", "content": {"name": "A"}}},
                requestState="s",
            ),
        ),
        ("send", res(4, resultType="complete", content=[{"type": "text", "text": "hi A"}])),
        ("recv", req(5, "subscriptions/listen", notifications={"toolsListChanged": True})),
        (
            "send",
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {
                    "_meta": {"io.modelcontextprotocol/subscriptionId": 5},
                    "notifications": {"toolsListChanged": True},
                },
            },
        ),
        (
            "send",
            {
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 5}},
            },
        ),
        (
            "send",
            res(5, resultType="complete", _meta={"io.modelcontextprotocol/subscriptionId": 5}),
        ),
        ("recv", req(6, "tools/list")),
        (
            "send",
            {
                "jsonrpc": "2.0",
                "id": 6,
                "error": {
                    "code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {"supported": [V], "requested": "1900-01-01"},
                },
            },
        ),
    )
    assert checker.version == V
    assert checker.errors == []


INVALID: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "request without the _meta envelope": [
        ("recv", req(1, "server/discover")),
        ("recv", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    ],
    "envelope without clientCapabilities": [
        ("recv", req(1, "server/discover")),
        (
            "recv",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/list",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": V}},
            },
        ),
    ],
    "result without resultType": [
        ("recv", req(1, "tools/call", name="t")),
        ("send", res(1, content=[])),
    ],
    "list result without caching hints": [
        ("recv", req(1, "tools/list")),
        ("send", res(1, resultType="complete", tools=[])),
    ],
    "discover result without supportedVersions": [
        ("recv", req(1, "server/discover")),
        ("send", res(1, resultType="complete", capabilities={}, ttlMs=0, cacheScope="public")),
    ],
    "bad cacheScope": [
        ("recv", req(1, "prompts/list")),
        ("send", res(1, resultType="complete", prompts=[], ttlMs=0, cacheScope="shared")),
    ],
    "input request that is no client request": [
        ("recv", req(1, "tools/call", name="t")),
        (
            "send",
            res(1, resultType="input_required", inputRequests={"x": {"method": "tools/list"}}),
        ),
    ],
    "InputRequiredResult on tools/list": [
        ("recv", req(1, "tools/list")),
        ("send", res(1, resultType="input_required", inputRequests={"who": ELICIT})),
    ],
    "server-to-client request instead of MRTR": [
        ("recv", req(1, "tools/call", name="t")),
        ("send", {"jsonrpc": "2.0", "id": 9, **ELICIT}),
    ],
    "unsupported-version error without data": [
        ("recv", req(1, "tools/list")),
        ("send", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "no"}}),
    ],
    "removed method ping": [
        ("recv", req(1, "ping")),
    ],
    "acknowledgement without its subscription filter": [
        ("recv", req(1, "subscriptions/listen", notifications={})),
        (
            "send",
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}},
            },
        ),
    ],
}


# What each report must mention: the invalid case is caught for its own reason.
REASON = {
    "request without the _meta envelope": "'_meta' is a required property",
    "envelope without clientCapabilities": "clientCapabilities",
    "result without resultType": "'resultType' is a required property",
    "list result without caching hints": "'ttlMs' is a required property",
    "discover result without supportedVersions": "'supportedVersions' is a required",
    "bad cacheScope": "ListPromptsResult (2026-07-28) at /cacheScope",
    "input request that is no client request": "InputRequiredResult (2026-07-28) at /inputRequests",
    "InputRequiredResult on tools/list": "only prompts/get, resources/read, tools/call",
    "server-to-client request instead of MRTR": "inside an InputRequiredResult (MRTR)",
    "unsupported-version error without data": "UnsupportedProtocolVersionError (2026-07-28)",
    "removed method ping": "'ping' is not in the 2026-07-28 schema",
    "acknowledgement without its subscription filter": "'notifications' is a required property",
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_modern_message_is_caught(case: str) -> None:
    checker = server_side(*INVALID[case])
    assert any(REASON[case] in e for e in checker.errors), checker.errors


def test_each_response_is_checked_against_its_request_version() -> None:
    # A legacy session and a modern request in one trace (a dual-era server's view): the
    # legacy ping's empty result is valid on 2025-11-25, though 2026-07-28 has no ping.
    checker = server_side(
        ("recv", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        ("recv", req(2, "tools/list")),
        ("send", res(1)),
        ("send", res(2, resultType="complete", tools=[], ttlMs=0, cacheScope="public")),
    )
    assert checker.errors == []


def test_dual_era_server_sees_a_legacy_session_and_modern_requests() -> None:
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"},
    }
    checker = server_side(
        ("recv", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}),
        (
            "send",
            res(0, protocolVersion="2025-11-25", capabilities={}, serverInfo=init["clientInfo"]),
        ),
        ("recv", req(1, "tools/list")),
        ("send", res(1, resultType="complete", tools=[], ttlMs=0, cacheScope="public")),
        ("recv", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),  # the legacy session
        ("send", res(2, tools=[])),
    )
    assert checker.errors == []


def test_client_side_sees_the_same_rules() -> None:
    # The checker as a client's tracer: it sends the requests and receives the results.
    checker = WireChecker()
    checker("send", req(1, "resources/read", uri="file:///x"))
    checker("recv", res(1, resultType="complete", contents=[], ttlMs=5, cacheScope="private"))
    assert checker.errors == []
    checker("recv", res(1, contents=[]))
    assert any("resultType" in e for e in checker.errors)


def test_legacy_handshake_still_checked() -> None:
    checker = server_side(
        (
            "recv",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"},
                },
            },
        ),
        (
            "send",
            res(
                0,
                protocolVersion="2025-06-18",
                capabilities={},
                serverInfo={"name": "s", "version": "1"},
            ),
        ),
        ("recv", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("send", res(1, tools=[{"name": "t"}])),  # inputSchema missing
    )
    assert checker.version == "2025-06-18"
    assert len(checker.errors) == 1 and "inputSchema" in checker.errors[0]
