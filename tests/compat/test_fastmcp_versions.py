"""fastmcp's several versions of one component name on mcpkit
(``mcpkit.compat.fastmcp._versions``): listings, the version a request's
``_meta.fastmcp.version`` selects, unknown versions, ``disable(version=...)``,
``VersionFilter`` and mounting, compared with fastmcp through the official client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_unchanged import SERVERS, assert_same, both


def ask(op: dict[str, Any], wanted: Any) -> dict[str, Any]:
    return {**op, "meta": {"fastmcp": {"version": wanted}}}


def script(prefix: str = "", uri_prefix: str = "") -> list[dict[str, Any]]:
    """Every kind, by default and in each version (some not served), under the names a
    mount gives them."""
    calc, pr = f"{prefix}calc", f"{prefix}pr"
    res, tpl = f"res://{uri_prefix}a", f"tpl://{uri_prefix}q"
    out: list[dict[str, Any]] = [{"op": "list"}]
    for wanted in (None, "1.0", "1", "2.0", "v3", "9.0", 2, "beta"):
        for op in (
            {"op": "call", "name": calc, "args": {"x": 1}},
            {"op": "call", "name": f"{prefix}plain", "args": {}},
            {"op": "read", "uri": res},
            {"op": "read", "uri": f"res://{uri_prefix}plain"},
            {"op": "read", "uri": tpl},
            {"op": "get", "name": pr, "args": {"text": "t"}},
        ):
            out.append(op if wanted is None else ask(op, wanted))
    out += [
        ask({"op": "call", "name": calc, "args": {"x": 1, "y": 2}}, "1.0"),  # v1 has no y
        ask({"op": "call", "name": f"{prefix}nope", "args": {}}, "1.0"),
        ask({"op": "read", "uri": "res://nope"}, "1"),
        ask({"op": "get", "name": f"{prefix}nope", "args": {}}, "1.0"),
        {"op": "call", "name": calc, "args": {"x": 1}, "meta": {"fastmcp": "1.0"}},
    ]
    return out


@pytest.mark.parametrize("mode", ["plain", "disable", "filter", "filter_strict", "mount"])
def test_versions_served_as_fastmcp_serves_them(mode: str, tmp_path: Path) -> None:
    ops = script("ns_", "ns/") if mode == "mount" else script()
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_versions_many.py", ops, tmp_path, mode)
    assert_same(theirs, ours)
    listed = {t["name"]: t["_meta"]["fastmcp"] for t in ours["ops"][0]["tools"]}
    calc = listed["ns_calc" if mode == "mount" else "calc"]
    expected = {
        "plain": ("v3.0", ["v3.0", "2.0", "1.0"]),
        "mount": ("v3.0", ["v3.0", "2.0", "1.0"]),
        "disable": ("1.0", ["1.0"]),
        "filter": ("2.0", ["2.0", "1.0"]),
        "filter_strict": ("v3.0", ["v3.0", "2.0"]),
    }[mode]
    assert (calc["version"], calc["versions"]) == expected


def test_versioned_and_unversioned_do_not_mix() -> None:
    from mcpkit.compat.fastmcp import FastMCP

    mcp = FastMCP("v")

    @mcp.tool(version="1")
    def calc() -> int:
        return 1

    with pytest.raises(ValueError, match="Cannot add unversioned tool 'calc'"):
        mcp.tool(name="calc")(lambda: 2)

    @mcp.prompt
    def hello() -> str:
        return "hi"

    with pytest.raises(ValueError, match="Cannot add versioned prompt 'hello'"):
        mcp.prompt(name="hello", version="2")(lambda: "hey")
    with pytest.raises(TypeError, match="Version must be a string, int, or float"):
        mcp.tool(name="other", version=["1"])(lambda: 2)
    with pytest.raises(ValueError, match="cannot contain '@'"):
        mcp.tool(name="other", version="1@2")(lambda: 2)


async def test_same_version_replaces_and_order_is_kept() -> None:
    """A version registered again replaces the earlier one (fastmcp warns); a name keeps
    the place of its first version in the list."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.testing import connected

    mcp = FastMCP("v")
    mcp.tool(name="calc", version="1")(lambda: 1)
    mcp.tool(name="plain")(lambda: 0)
    mcp.tool(name="calc", version="2")(lambda: 2)
    mcp.tool(name="calc", version="2")(lambda: 22)
    async with connected(mcp.native) as client:
        tools = await client.list_tools()
        assert [t.name for t in tools] == ["calc", "plain"]
        assert tools[0].meta == {"fastmcp": {"versions": ["2", "1"], "tags": [], "version": "2"}}
        result = await client.call_tool("calc", {})
        assert result.content[0].text == "22"


def test_version_spec_and_keys() -> None:
    from mcpkit.compat.fastmcp.utilities.versions import (
        VersionSpec,
        compare_versions,
        parse_version_key,
    )

    assert VersionSpec(eq="v1.0").matches("1")
    assert not VersionSpec(eq="1.0").matches("1.0.1")
    assert VersionSpec(gte="2.0", lt="10").matches("9.5")
    assert not VersionSpec(lt="2").matches("2.0")
    assert VersionSpec(gte="1").matches(None) and not VersionSpec(gte="1").matches(
        None, match_none=False
    )
    # PEP 440 before plain strings, nothing lowest; dates compare as strings.
    order = sorted(["2025-01-15", "10", None, "2", "2024-12-01"], key=parse_version_key)
    assert order == [None, "2", "10", "2024-12-01", "2025-01-15"]
    assert compare_versions("1.0", "1") == 0
    assert VersionSpec(lt="3").intersect(VersionSpec(eq="4")).matches("4") is False
    assert VersionSpec(lt="3").intersect(VersionSpec(gte="1")) == VersionSpec(gte="1", lt="3")


@pytest.mark.parametrize("server", ["api_v1", "api_v2", "api_v3"])
def test_version_filters_example(server: str, tmp_path: Path) -> None:
    """fastmcp's ``versioning/version_filters`` example (copied unchanged): three servers
    over one ``LocalProvider``, each with its ``VersionFilter``, served by their objects."""
    import sys

    from tests.compat.test_examples_fastmcp import commands
    from tests.compat.test_unchanged import drive_both, normalised, peer

    ops: list[dict[str, Any]] = [{"op": "list"}]
    for wanted in (None, "1.0", "2", "3.0", "4.0"):
        for op in (
            {"op": "call", "name": "process", "args": {"data": "Hello"}},
            {"op": "call", "name": "process", "args": {"data": "Hello", "mode": "lower"}},
            {"op": "call", "name": "health", "args": {}},
        ):
            ops.append(op if wanted is None else ask(op, wanted))
    theirs_cmd, ours_cmd = commands("versioning_version_filters.py", server, [], tmp_path)
    reports = drive_both(
        ops,
        [str(peer("fastmcp")), *theirs_cmd],
        [sys.executable, "-m", "mcpkit.compat", *ours_cmd],
        tmp_path,
    )
    theirs, ours = (normalised(r) for r in reports)
    assert_same(theirs, ours)
    listed = {t["name"]: t["_meta"]["fastmcp"].get("version") for t in ours["ops"][0]["tools"]}
    assert listed == {"process": server[-1] + ".0", "health": None}


async def test_remove_one_version_or_all() -> None:
    """``mcp.remove_tool(name, version=...)`` drops that version (the next one is served);
    without a version, every version goes."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.testing import connected

    mcp = FastMCP("v")
    for v in ("1", "2", "3"):
        mcp.tool(name="calc", version=v)(lambda v=v: f"v{v}")
    mcp.tool(name="plain")(lambda: "p")
    mcp.remove_tool("calc", version="3")
    with pytest.raises(KeyError, match="Tool 'calc' version '3' not found"):
        mcp.remove_tool("calc", version="3")
    with pytest.raises(KeyError, match="Tool 'plain' version '1' not found"):
        mcp.remove_tool("plain", version="1")
    async with connected(mcp.native) as client:
        tools = await client.list_tools()
        assert tools[0].meta == {"fastmcp": {"versions": ["2", "1"], "tags": [], "version": "2"}}
        assert (await client.call_tool("calc", {})).content[0].text == "v2"
        mcp.remove_tool("calc")
        assert [t.name for t in await client.list_tools()] == ["plain"]
        mcp.remove_tool("plain")
        assert await client.list_tools() == []
    with pytest.raises(KeyError, match="Tool 'calc' not found"):
        mcp.remove_tool("calc")
    mcp.tool(name="calc")(lambda: "unversioned now")  # no version of it is left
