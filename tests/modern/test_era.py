"""The era of a connection, decided in one place: the table and its pure functions."""

from __future__ import annotations

import pytest

from mcpkit.lifecycle import (
    ERA_OF_FIRST_REQUEST,
    ERA_REMOVED_METHODS,
    era_of_first_request,
    era_refusal,
)

META = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}


@pytest.mark.parametrize(
    ("method", "params", "era"),
    [
        ("initialize", {"protocolVersion": "2025-11-25"}, "legacy"),
        ("initialize", META, "legacy"),
        ("tools/list", META, "modern"),
        ("server/discover", META, "modern"),
        ("tools/list", None, None),
        ("ping", None, None),
        ("tools/list", {"_meta": {"progressToken": 1}}, None),
        ("tools/list", {"_meta": "not an object"}, None),
        ("tools/list", [1, 2], None),
    ],
)
def test_first_request_decides_the_era(method: str, params: object, era: str | None) -> None:
    assert era_of_first_request(method, params) == era


def test_the_table_covers_every_case() -> None:
    assert set(ERA_OF_FIRST_REQUEST) == {(a, b) for a in (True, False) for b in (True, False)}


@pytest.mark.parametrize(
    "method",
    ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"],
)
def test_methods_removed_in_the_modern_era(method: str) -> None:
    error = era_refusal("modern", method)
    assert error is not None and error.code == -32601
    assert method in error.message
    assert era_refusal("legacy", method) is None


@pytest.mark.parametrize("method", ["server/discover", "subscriptions/listen"])
def test_methods_the_legacy_era_does_not_have(method: str) -> None:
    error = era_refusal("legacy", method)
    assert error is not None and error.code == -32601
    assert era_refusal("modern", method) is None


def test_common_methods_exist_in_both_eras() -> None:
    for method in ("tools/list", "tools/call", "resources/read", "completion/complete"):
        assert era_refusal("legacy", method) is None
        assert era_refusal("modern", method) is None
    assert not ERA_REMOVED_METHODS["modern"] & ERA_REMOVED_METHODS["legacy"]
