"""fastmcp's MCP Apps options on compat, beyond what its examples use (an ``AppConfig`` on
a resource and on a tool naming it, ``PrefabAppConfig`` with a CSP, permissions and a
domain of its own, a Prefab return type inferred without ``app=``, ``app=True`` on a tool
returning data, a ``FastMCPApp`` backend tool renamed and referenced by name and by
function): the server ``servers/fastmcp_apps.py`` run on fastmcp and unchanged on mcpkit,
compared through the official client."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.apps.conftest import ext_apps_schema as ext_apps_schema  # the fixture
from tests.compat.test_examples_fastmcp import LIST, call, failing, read
from tests.compat.test_unchanged import assert_same, drive_both, normalised, peer

SERVER = Path(__file__).resolve().parent / "servers" / "fastmcp_apps.py"


def test_app_options_served_as_fastmcp_serves_them(
    tmp_path: Path, ext_apps_schema: Callable[[str, Any], list[str]]
) -> None:
    script = [
        LIST,
        read("ui://widgets/clock.html"),
        call("time_now"),
        call("framed", title="t"),
        call("inferred", text="x"),
        call("plain", n=2),
        call("counter"),
        call("bump", by=2),
        # a backend tool called by its identity address (hash of app and name, then name)
        call("__d6124558f8f8_bump", by=2),
        failing(call("__5e96bb20da50_bump_count")),
        failing(call("__d6124558f8f8_nothing")),
    ]
    launch = tmp_path / "launch.py"
    launch.write_text(f"import runpy\nrunpy.run_path({str(SERVER)!r})['mcp'].run()\n")
    theirs, ours = (
        normalised(r)
        for r in drive_both(
            script,
            [str(peer("fastmcp")), str(launch)],
            [sys.executable, "-m", "mcpkit.compat", f"{SERVER}:mcp"],
            tmp_path,
        )
    )
    assert_same(theirs, ours)
    listed = ours["ops"][0]
    renderers = [r for r in listed["resources"] if r["name"] == "Prefab Renderer"]
    assert len(renderers) == 2  # the framed tool's own CSP makes a renderer of its own
    names = ours["ops"][6]["result"]["structuredContent"]["_meta"]["fastmcp"]["toolNames"]
    assert names["bump"].endswith("_bump")
    # the metadata is the MCP Apps extension's (ext-apps' own JSON Schemas)
    for tool in listed["tools"]:
        assert ext_apps_schema("McpUiToolMeta", tool["_meta"]["ui"]) == [], tool["name"]
    for resource in listed["resources"]:
        assert ext_apps_schema("McpUiResourceMeta", resource["_meta"]["ui"]) == []
    contents = ours["ops"][1]["result"]["contents"][0]
    assert ext_apps_schema("McpUiResourceMeta", contents["_meta"]["ui"]) == []
    assert ours["ops"][8]["result"]["structuredContent"] == {"result": 3}
    for op in ours["ops"][9:]:
        assert op["result"]["isError"], op


def test_resource_app_config_refuses_tool_fields() -> None:
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp.apps import AppConfig

    mcp = FastMCP("x")
    with pytest.raises(ValueError, match="resource_uri cannot be set on resources"):
        mcp.resource("ui://a.html", app=AppConfig(resource_uri="ui://b.html"))
    with pytest.raises(ValueError, match="visibility cannot be set on resources"):
        mcp.resource("ui://a.html", app=AppConfig(visibility=["app"]))
