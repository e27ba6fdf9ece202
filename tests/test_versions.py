"""The protocol revisions: eras, feature flags, handshake negotiation and lookup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpkit import versions
from mcpkit.versions import V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28

SPEC = Path("/work/shared/spec")


def test_eras() -> None:
    assert V2026_07_28.era == "modern" and V2026_07_28.modern
    for v in versions.LEGACY_SUPPORTED:
        assert v.era == "legacy" and not v.modern
    assert versions.MODERN_SUPPORTED == (V2026_07_28,)
    assert all(v.era == "modern" for v in versions.MODERN_SUPPORTED)


def test_get_finds_both_eras() -> None:
    assert versions.get("2026-07-28") is V2026_07_28
    assert versions.get("2025-11-25") is V2025_11_25
    assert versions.get("2024-11-05") is V2024_11_05
    assert versions.get("1900-01-01") is None


def test_negotiate_is_legacy_only() -> None:
    assert versions.negotiate("2025-06-18") is V2025_06_18
    assert versions.negotiate("1900-01-01") is V2025_11_25
    # A handshake asking for a stateless revision lands on the newest legacy one.
    both = (V2026_07_28, *versions.LEGACY_SUPPORTED)
    assert versions.negotiate("2026-07-28", both) is V2025_11_25
    assert versions.negotiate(None, both) is V2025_11_25
    with pytest.raises(ValueError):
        versions.negotiate("2026-07-28", versions.MODERN_SUPPORTED)


def test_supported_stays_the_handshake_list() -> None:
    assert versions.SUPPORTED == versions.LEGACY_SUPPORTED
    assert versions.LATEST is V2025_11_25 is versions.LATEST_LEGACY
    assert "2026-07-28" not in versions.SUPPORTED_VERSIONS


def test_modern_wire_flags() -> None:
    v = V2026_07_28
    for flag in (
        "request_meta",
        "server_discover",
        "input_required",
        "result_type",
        "cache_hints",
        "subscriptions_listen",
        "tasks_extension",
    ):
        assert getattr(v, flag) is True, flag
        assert all(getattr(old, flag) is False for old in versions.LEGACY_SUPPORTED), flag
    for flag in ("initialize", "ping", "logging_set_level", "resource_subscribe", "sessions"):
        assert getattr(v, flag) is False, flag
        assert all(getattr(old, flag) is True for old in versions.LEGACY_SUPPORTED), flag
    assert not v.tasks and not v.sse_polling and not v.batching and not v.elicitation_complete
    assert v.resource_not_found_code == -32602
    assert all(old.resource_not_found_code == -32002 for old in versions.LEGACY_SUPPORTED)
    # What 2025-11-25 had and 2026-07-28 keeps.
    for flag in ("structured_content", "icons", "url_elicitation", "version_header"):
        assert getattr(v, flag) and getattr(V2025_11_25, flag), flag


def test_modern_flags_match_the_schema() -> None:
    schema = json.loads((SPEC / "2026-07-28" / "schema.json").read_text())
    defs = schema.get("$defs") or schema.get("definitions")
    assert "DiscoverRequest" in defs or "DiscoverResult" in defs
    assert "InputRequiredResult" in defs
    assert "InitializeRequest" not in defs and "PingRequest" not in defs
    assert "SetLevelRequest" not in defs and "SubscribeRequest" not in defs
    old = json.loads((SPEC / "2025-11-25" / "schema.json").read_text())
    old_defs = old.get("$defs") or old.get("definitions")
    assert "InitializeRequest" in old_defs and "PingRequest" in old_defs


def test_former_flag_names_map_to_the_new_ones() -> None:
    for v in (*versions.LEGACY_SUPPORTED, V2026_07_28):
        assert v.audio is v.audio_content
        assert v.audio is v.tool_annotations is v.completions_capability is v.progress_message
        assert v.structured_output is v.structured_content
        assert v.structured_output is v.elicitation is v.resource_links is v.titles
    assert not V2024_11_05.audio and V2025_03_26.audio and not V2025_03_26.structured_output
    assert V2025_06_18.structured_output
