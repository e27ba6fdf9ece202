"""server/discover results built from what the server has."""

from __future__ import annotations

import pytest

from mcpkit.envelope import SERVER_INFO_KEY
from mcpkit.server.caching import CacheHints, CachePolicy
from mcpkit.server.discover import discover_result, modern_capabilities
from mcpkit.versions import V2025_11_25, V2026_07_28
from tests.modern.schema import check

SERVER = {"name": "ExampleServer", "version": "1.0.0"}


def test_minimal_discover_result_is_valid() -> None:
    out = discover_result(server_info=SERVER, capabilities={"tools": {"listChanged": True}})
    check("DiscoverResult", out)
    assert out["resultType"] == "complete"
    assert out["supportedVersions"] == ["2026-07-28"]
    assert out["capabilities"] == {"tools": {"listChanged": True}}
    assert out["_meta"] == {SERVER_INFO_KEY: SERVER}
    assert (out["ttlMs"], out["cacheScope"]) == (0, "private")
    assert "instructions" not in out and "serverInfo" not in out


def test_full_discover_result() -> None:
    out = discover_result(
        server_info=SERVER,
        capabilities={
            "tools": {},
            "resources": {"subscribe": True},
            "tasks": {"list": {}},
            "extensions": {"com.example/old": {"a": 1}},
        },
        supported_versions=[V2026_07_28, V2025_11_25],
        instructions="Use the weather tools.",
        extensions={"io.modelcontextprotocol/tasks": {}},
        cache=CachePolicy(per_method={"server/discover": CacheHints(3_600_000, "public")}),
    )
    check("DiscoverResult", out)
    assert out["supportedVersions"] == ["2026-07-28", "2025-11-25"]
    assert "tasks" not in out["capabilities"]
    assert out["capabilities"]["extensions"] == {
        "com.example/old": {"a": 1},
        "io.modelcontextprotocol/tasks": {},
    }
    assert out["instructions"] == "Use the weather tools."
    assert (out["ttlMs"], out["cacheScope"]) == (3_600_000, "public")


def test_capabilities_are_checked() -> None:
    with pytest.raises(ValueError):
        modern_capabilities({"tools": True})
    with pytest.raises(ValueError):
        modern_capabilities({}, {"noprefix": {}})
    with pytest.raises(ValueError):
        modern_capabilities({}, {"com.example/x": []})  # type: ignore[dict-item]
    assert modern_capabilities({"extensions": {}}) == {}
    with pytest.raises(ValueError):
        discover_result(server_info=SERVER, capabilities={}, supported_versions=[])
