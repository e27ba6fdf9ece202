"""mcpkit.client.era: choosing modern, retry or fallback from the first modern answer."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.client.era import (
    CLIENT_VERSIONS,
    EraDecision,
    EraMemo,
    decide_http,
    decide_stdio,
    http_target,
)

V = "2026-07-28"


def error(code: int, data: Any = None, rid: int = 1) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": "m"}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": err}


def result(**fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": fields}


DISCOVER = result(
    resultType="complete", supportedVersions=[V], capabilities={}, ttlMs=0, cacheScope="public"
)


def http(status: int, response: Any, method: str = "server/discover", **kw: Any) -> EraDecision:
    return decide_http(status, response, method=method, requested=kw.pop("requested", V), **kw)


def test_client_versions_prefer_modern() -> None:
    assert CLIENT_VERSIONS[0] == V and "2025-11-25" in CLIENT_VERSIONS


def test_discover_result_is_modern_with_a_mutual_version() -> None:
    assert http(200, DISCOVER) == EraDecision(
        "modern", V, "server/discover lists the requested version"
    )
    other = result(resultType="complete", supportedVersions=["2027-01-01", V])
    assert http(200, other, requested="2027-01-01").version == V
    none = result(resultType="complete", supportedVersions=["2099-01-01"])
    assert http(200, none).action == "incompatible"


def test_request_metadata_scenario_retries_once_with_a_supported_version() -> None:
    # The conformance suite's request-metadata mock rejects the first request with 400/-32022.
    first = http(
        400, error(-32022, {"supported": [V], "requested": "2026-99-99"}), requested="2026-99-99"
    )
    assert (first.action, first.version, first.era) == ("retry", V, "modern")
    # A second refusal after the retry does not loop.
    again = http(400, error(-32022, {"supported": [V], "requested": V}), retried=True)
    assert again.action == "incompatible"


def test_unsupported_version_listing_only_legacy_versions_falls_back_to_that_version() -> None:
    decision = http(400, error(-32022, {"supported": ["2025-11-25", "2025-06-18"]}))
    assert (decision.action, decision.version, decision.era) == ("fallback", "2025-11-25", "legacy")
    assert http(400, error(-32022, {"supported": ["1999-01-01"]})).action == "incompatible"
    assert http(400, error(-32022)).action == "incompatible"


@pytest.mark.parametrize("code", [-32020, -32021])
def test_other_modern_errors_mean_modern(code: int) -> None:
    decision = http(400, error(code), method="tools/list")
    assert (decision.action, decision.version) == ("modern", V)


@pytest.mark.parametrize(
    ("status", "response"),
    [
        (400, error(-32600)),  # e.g. "no valid session id"
        (400, error(-32000)),
        (400, error(-32602)),
        (200, error(-32601)),  # legacy server: server/discover is an unknown method
        (404, error(-32601)),  # server/discover is something every modern server answers
        (400, None),  # empty or non-JSON body
        (404, None),
        (405, None),
        (200, None),
        (406, {"jsonrpc": "2.0", "id": 1}),
    ],
)
def test_anything_else_falls_back_whatever_the_code(status: int, response: Any) -> None:
    decision = http(status, response)
    assert (decision.action, decision.era) == ("fallback", "legacy")


def test_method_not_found_on_404_for_another_method_is_modern() -> None:
    assert http(404, error(-32601), method="tools/list").action == "modern"
    assert http(200, error(-32601), method="tools/list").action == "fallback"


def test_result_without_result_type_is_a_legacy_server() -> None:
    assert http(200, result(tools=[]), method="tools/list").action == "fallback"
    modern = http(
        200,
        result(resultType="complete", tools=[], ttlMs=0, cacheScope="public"),
        method="tools/list",
    )
    assert (modern.action, modern.version) == ("modern", V)


@pytest.mark.parametrize("status", [401, 403, 500, 503])
def test_auth_and_server_errors_say_nothing(status: int) -> None:
    decision = http(status, error(-32000))
    assert decision.action == "undetermined" and decision.era is None


def test_stdio_probe() -> None:
    assert decide_stdio(DISCOVER, requested=V).action == "modern"
    assert decide_stdio(None, requested=V).action == "fallback"  # timed out
    for code in (-32601, -32602, -32600, -32000, 0):
        assert decide_stdio(error(code), requested=V).action == "fallback"
    retry = decide_stdio(error(-32022, {"supported": [V]}), requested="2026-99-99")
    assert (retry.action, retry.version) == ("retry", V)
    assert decide_stdio(error(-32021), requested=V).action == "modern"
    assert decide_stdio({"jsonrpc": "2.0", "id": 1}, requested=V).action == "fallback"


def test_memo_keeps_settled_decisions_per_target() -> None:
    memo = EraMemo(max_targets=2)
    a, b, c = (http_target(u) for u in ("http://A:80/mcp", "https://b/x", "http://[::1]:9/"))
    assert a == http_target("http://a/other") == "http://a:80"
    assert b == "https://b:443" and c == "http://[::1]:9"
    memo.remember(a, EraDecision("modern", V, ""))
    memo.remember(b, EraDecision("undetermined", None, ""))
    assert memo.get(a) == ("modern", V) and memo.get(b) is None
    memo.remember(b, EraDecision("fallback", "2025-11-25", ""))
    memo.get(a)  # a is now the most recent
    memo.remember(c, EraDecision("retry", V, ""))
    assert memo.get(b) is None and memo.get(a) == ("modern", V) and memo.get(c) == ("modern", V)
    memo.forget(a)
    assert memo.get(a) is None


def test_a_refusal_listing_the_requested_version_is_retried_once() -> None:
    refused = error(-32022, {"supported": [V], "requested": V})
    first = decide_stdio(refused, requested=V)
    assert (first.action, first.version) == ("retry", V)
    assert decide_stdio(refused, requested=V, retried=True).action == "incompatible"
