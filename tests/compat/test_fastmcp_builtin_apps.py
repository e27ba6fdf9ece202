"""fastmcp's built-in apps (``fastmcp.apps.approval``, ``choice``, ``form``, ``file_upload``,
``generative``): its examples run on fastmcp and unchanged on mcpkit, compared through the
official client, then driven as a host drives them.

What a client or a host relies on is compared as it is: tool names, input and output
schemas, ``_meta`` (``ui``, ``fastmcp``), resources, call results (content, structured data,
the Prefab payload's version, state and ``_meta``). Two things are mcpkit's own words and
are normalised (docs/migration.md, "fastmcp's built-in apps"): the tools' descriptions and
their parameters' descriptions, and the layout of a Prefab UI (the ``view`` tree of the
payload), checked here by what it does instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.apps.conftest import ext_apps_schema as ext_apps_schema  # the fixture
from tests.compat.test_examples_fastmcp import (
    LIST,
    PREFAB_RENDERER,
    call,
    commands,
    failing,
    read,
)
from tests.compat.test_unchanged import assert_same, drive_both, normalised, peer

#: Text that is ours (descriptions, a UI's layout), replaced on both sides before comparing.
OURS = "<own words>"


def own_words(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with the descriptions of tools and their parameters, and the ``view`` of
    each Prefab payload, replaced by :data:`OURS` (where the side has one)."""
    for op in report["ops"]:
        for tool in op.get("tools", ()):
            if "description" in tool:
                tool["description"] = OURS
            for prop in tool["inputSchema"].get("properties", {}).values():
                if "description" in prop:
                    prop["description"] = OURS
        payload = op.get("result", {}).get("structuredContent")
        if isinstance(payload, dict) and "$prefab" in payload:
            payload["view"] = OURS
    return report


def nodes(tree: Any) -> Iterator[dict[str, Any]]:
    """Every object of a Prefab ``view`` tree, depth first."""
    if isinstance(tree, dict):
        yield tree
        for value in tree.values():
            yield from nodes(value)
    elif isinstance(tree, list):
        for item in tree:
            yield from nodes(item)


def run_both(name: str, script: list[dict[str, Any]], tmp: Path) -> tuple[Any, Any]:
    """The two reports of ``script`` on example ``name``, raw (before :func:`own_words`)."""
    theirs_cmd, ours_cmd = commands(name, "mcp", [], tmp)
    reports = drive_both(
        script,
        [str(peer("fastmcp")), *theirs_cmd],
        [sys.executable, "-m", "mcpkit.compat", *ours_cmd],
        tmp,
    )
    theirs, ours = (normalised(r) for r in reports)
    return theirs, ours


def same_but_own_words(theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    import copy

    assert_same(own_words(copy.deepcopy(theirs)), own_words(copy.deepcopy(ours)))


def check_ui_meta(report: dict[str, Any], check: Callable[[str, Any], list[str]]) -> None:
    """The listed ``_meta.ui`` against ext-apps' JSON Schemas."""
    listed = report["ops"][0]
    for tool in listed["tools"]:
        if "ui" in tool.get("_meta", {}):
            assert check("McpUiToolMeta", tool["_meta"]["ui"]) == [], tool["name"]
    for resource in listed["resources"]:
        assert check("McpUiResourceMeta", resource["_meta"]["ui"]) == [], resource["uri"]


def answers(view: Any) -> dict[str, list[dict[str, Any]]]:
    """Button label -> what clicking it does (its actions)."""
    found = {}
    for node in nodes(view):
        if node.get("type") == "Button" and "onClick" in node:
            actions = node["onClick"]
            found[node["label"]] = actions if isinstance(actions, list) else [actions]
    return found


APPROVAL = "apps/approval/approval_server.py"
APPROVAL_SCRIPT = [
    LIST,
    call("request_approval", summary="Deploy v3.2 to production"),
    call(
        "request_approval",
        summary="Drop table users",
        details="All rows are deleted.",
        title="Danger",
        approve_text="Ship it",
        reject_text="Abort",
        approve_variant="destructive",
        reject_variant="default",
    ),
    failing(call("request_approval")),
    read(PREFAB_RENDERER),
]


def test_approval_example(tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]) -> None:
    theirs, ours = run_both(APPROVAL, APPROVAL_SCRIPT, tmp_path)
    same_but_own_words(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    # What a host does with the card: the button pressed sends the user's answer as a
    # message and marks the card answered. Both sides' buttons do the same.
    for side in (theirs, ours):
        first = side["ops"][1]["result"]["structuredContent"]
        assert first["state"] == {"decided": False}
        assert answers(first["view"]) == {
            label: [
                {
                    "action": "sendMessage",
                    "content": f'"Deploy v3.2 to production" — I selected: {label}',
                },
                {"action": "setState", "key": "decided", "value": True},
            ]
            for label in ("Approve", "Reject")
        }
        custom = side["ops"][2]["result"]["structuredContent"]["view"]
        assert set(answers(custom)) == {"Ship it", "Abort"}
        variants = {n["label"]: n["variant"] for n in nodes(custom) if n.get("type") == "Button"}
        assert variants == {"Ship it": "destructive", "Abort": "default"}
        texts = {n.get("content") for n in nodes(custom)}
        assert {"Danger", "Drop table users", "All rows are deleted."} <= texts


CHOICE_SCRIPT = [
    LIST,
    call("choose", prompt="Which deployment strategy?", options=["Blue-green", "Canary"]),
    call("choose", prompt="Pick one", options=[], title="Nothing to pick"),
    failing(call("choose", prompt="Which?", options="not a list")),
    read(PREFAB_RENDERER),
]


def test_choice_example(tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]) -> None:
    theirs, ours = run_both("apps/choice/choice_server.py", CHOICE_SCRIPT, tmp_path)
    same_but_own_words(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    for side in (theirs, ours):
        payload = side["ops"][1]["result"]["structuredContent"]
        assert payload["state"] == {"decided": False}
        assert answers(payload["view"]) == {
            option: [
                {
                    "action": "sendMessage",
                    "content": f'"Which deployment strategy?" — I selected: {option}',
                },
                {"action": "setState", "key": "decided", "value": True},
            ]
            for option in ("Blue-green", "Canary")
        }
        empty = side["ops"][2]["result"]["structuredContent"]["view"]
        assert answers(empty) == {}
        assert "Nothing to pick" in {n.get("content") for n in nodes(empty)}


GENERATIVE_SCRIPT = [
    LIST,
    call("search_prefab_components", query="Chart"),
    call("search_prefab_components", query="Button", detail=True, limit=1),
    # The code runs in prefab-ui's Pyodide sandbox, which needs Deno and the network: on
    # neither side here, and both answer the same error result saying so.
    failing(call("generate_prefab_ui", code="from prefab_ui.components import Text\nText('hi')")),
    failing(call("generate_prefab_ui", code="x = 1", data="{not json")),
    read("ui://prefab/generative.html"),
]


def test_generative_ui_example(
    tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]
) -> None:
    theirs, ours = run_both("apps/generative_ui.py", GENERATIVE_SCRIPT, tmp_path)
    # prefab-ui's own functions and docstrings on both sides: nothing to normalise.
    assert_same(theirs, ours)
    check_ui_meta(ours, ext_apps_schema)
    listed = ours["ops"][0]
    assert [t["name"] for t in listed["tools"]] == [
        "generate_prefab_ui",
        "search_prefab_components",
    ]
    assert "BarChart" in ours["ops"][1]["result"]["structuredContent"]["result"]
    html = ours["ops"][5]["result"]["contents"][0]
    assert html["mimeType"] == "text/html;profile=mcp-app" and "<html" in html["text"].lower()
    assert ext_apps_schema("McpUiResourceMeta", html["_meta"]["ui"]) == []
    error = ours["ops"][3]["result"]["content"][0]["text"]
    assert "Deno is required" in error, error
