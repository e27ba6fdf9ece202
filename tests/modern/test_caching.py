"""Caching hints: defaults, overrides, the handler's own fields, legacy and MRTR results."""

from __future__ import annotations

import pytest

from mcpkit.server.caching import (
    CACHEABLE_METHODS,
    DEFAULT_HINTS,
    CacheHints,
    CachePolicy,
    apply_cache_hints,
    strip_cache_hints,
)
from mcpkit.server.mrtr import input_required_result
from tests.modern.schema import check, valid

TOOL = {"name": "echo", "inputSchema": {"type": "object"}}
LISTS = {
    "tools/list": ("ListToolsResult", {"tools": [TOOL]}),
    "prompts/list": ("ListPromptsResult", {"prompts": [{"name": "p"}]}),
    "resources/list": ("ListResourcesResult", {"resources": [{"uri": "file:///a", "name": "a"}]}),
    "resources/templates/list": (
        "ListResourceTemplatesResult",
        {"resourceTemplates": [{"uriTemplate": "file:///{x}", "name": "t"}]},
    ),
    "resources/read": (
        "ReadResourceResult",
        {"contents": [{"uri": "file:///a", "text": "hi"}]},
    ),
}


def test_cacheable_methods_are_the_specs() -> None:
    assert CACHEABLE_METHODS == {"server/discover", *LISTS}


@pytest.mark.parametrize("method", sorted(LISTS))
def test_defaults_make_a_complete_result_valid(method: str) -> None:
    name, body = LISTS[method]
    bare = {"resultType": "complete", **body}
    assert not valid(name, bare)
    out = apply_cache_hints(bare, method)
    assert out["ttlMs"] == 0 and out["cacheScope"] == "private"
    check(name, out)
    assert "ttlMs" not in bare


def test_server_default_and_per_method_overrides() -> None:
    policy = CachePolicy(
        default=CacheHints(300_000, "public"),
        per_method={"resources/read": CacheHints(1000, "private")},
    )
    listed = apply_cache_hints({"resultType": "complete", "tools": []}, "tools/list", policy)
    assert (listed["ttlMs"], listed["cacheScope"]) == (300_000, "public")
    read = apply_cache_hints({"resultType": "complete", "contents": []}, "resources/read", policy)
    assert (read["ttlMs"], read["cacheScope"]) == (1000, "private")
    item = policy.hints_for("resources/read", CacheHints(5, "public"))
    assert item == CacheHints(5, "public")
    with pytest.raises(ValueError):
        CachePolicy(per_method={"tools/call": CacheHints()})


def test_handler_fields_win() -> None:
    result = {"resultType": "complete", "tools": [], "ttlMs": 42}
    out = apply_cache_hints(result, "tools/list", CacheHints(999, "public"))
    assert out["ttlMs"] == 42 and out["cacheScope"] == "public"
    out = apply_cache_hints(
        {**result, "cacheScope": "private"}, "tools/list", CacheHints(1, "public")
    )
    assert out["cacheScope"] == "private"
    with pytest.raises(ValueError):
        apply_cache_hints({**result, "ttlMs": -1}, "tools/list")
    with pytest.raises(ValueError):
        apply_cache_hints({**result, "cacheScope": "shared"}, "tools/list")


def test_retried_requests_get_safe_defaults() -> None:
    out = apply_cache_hints(
        {"resultType": "complete", "contents": []},
        "resources/read",
        CacheHints(300_000, "public"),
        retried=True,
    )
    assert (out["ttlMs"], out["cacheScope"]) == (0, "private")


def test_never_on_input_required_results() -> None:
    interim = {**input_required_result(request_state="s"), "ttlMs": 5, "cacheScope": "public"}
    out = apply_cache_hints(interim, "resources/read", CacheHints(10, "public"))
    assert "ttlMs" not in out and "cacheScope" not in out
    check("InputRequiredResult", out)


def test_stripped_for_legacy_sessions() -> None:
    result = {"tools": [], "ttlMs": 5, "cacheScope": "public"}
    assert apply_cache_hints(result, "tools/list", modern=False) == {"tools": []}
    assert strip_cache_hints(result) == {"tools": []}


def test_non_cacheable_methods_unchanged() -> None:
    result = {"resultType": "complete", "content": []}
    assert apply_cache_hints(result, "tools/call", CacheHints(5, "public")) == result


def test_hints_validate_and_combine() -> None:
    with pytest.raises(ValueError):
        CacheHints(-1)
    with pytest.raises(ValueError):
        CacheHints(True)
    with pytest.raises(ValueError):
        CacheHints(1, "shared")  # type: ignore[arg-type]
    assert CacheHints.combine() == DEFAULT_HINTS
    both = CacheHints.combine(CacheHints(100, "public"), CacheHints(50, "public"))
    assert both == CacheHints(50, "public")
    assert CacheHints.combine(CacheHints(100, "public"), CacheHints(500, "private")).scope == (
        "private"
    )
    assert CacheHints(7, "public").to_fields() == {"ttlMs": 7, "cacheScope": "public"}
