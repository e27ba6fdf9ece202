"""server/capabilities.py as a table: what is registered (or declared) -> the features ->
the capabilities of each protocol version."""

from __future__ import annotations

import pytest

from mcpkit import versions
from mcpkit.server.capabilities import Features, declare, features_of

NOTHING = dict(tools=0, resources=0, templates=0, prompts=0, completions=False, task_tools=0)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, Features(False, False, False, False, False)),
        ({"tools": 2}, Features(True, False, False, False, False)),
        ({"resources": 1}, Features(False, True, False, False, False)),
        # a template's variables can be completed; so can a prompt's arguments
        ({"templates": 1}, Features(False, True, False, True, False)),
        ({"prompts": 1}, Features(False, False, True, True, False)),
        ({"completions": True}, Features(False, False, False, True, False)),
        ({"tools": 1, "task_tools": 1}, Features(True, False, False, False, True)),
        ({"declared": ("tools",)}, Features(True, False, False, False, False)),
        ({"declared": ("resources",)}, Features(False, True, False, True, False)),
        ({"declared": ("completions",)}, Features(False, False, False, True, False)),
    ],
)
def test_features_of(given: dict[str, object], expected: Features) -> None:
    assert features_of(**{**NOTHING, **given}) == expected  # type: ignore[arg-type]


EVERYTHING = Features(True, True, True, True, True)


def test_latest_2025_declares_everything_with_tasks() -> None:
    version = versions.get("2025-11-25")
    assert version is not None
    caps = declare(version, EVERYTHING, modern=True)
    assert caps == {
        "logging": {},
        "completions": {},
        "prompts": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "tools": {"listChanged": True},
        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
    }


def test_first_revision_has_no_completions_nor_tasks() -> None:
    version = versions.get("2024-11-05")
    assert version is not None
    caps = declare(version, EVERYTHING, modern=False)
    assert "completions" not in caps and "tasks" not in caps
    assert caps["resources"] == {"subscribe": True, "listChanged": True}


@pytest.mark.parametrize(("modern", "subscribe"), [(True, True), (False, False)])
def test_modern_resources_subscribe_only_when_listen_is_served(
    modern: bool, subscribe: bool
) -> None:
    version = versions.MODERN_SUPPORTED[0]
    caps = declare(version, Features(False, True, False, False, False), modern=modern)
    assert ("subscribe" in caps["resources"]) is subscribe


def test_nothing_is_logging_only() -> None:
    assert declare(versions.LATEST, features_of(**NOTHING), modern=True) == {"logging": {}}  # type: ignore[arg-type]
