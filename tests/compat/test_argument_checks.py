"""Arguments checked as each SDK checks them, compared with the SDK itself: the official
SDK's high-level server (1.x ``FastMCP``, 2.x ``MCPServer``) and fastmcp run unchanged on
their own package and on mcpkit (``tests/compat/servers/argument_checks.py``), driven by the
official client in both protocol eras. Lax conversion, unknown, missing and unconvertible
arguments, ``Field`` constraints, JSON text in strings: the same results and the same
error texts (pydantic's whole report)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import submit
from tests.compat.test_unchanged import PYTHON_M, assert_same, normalised, peer
from tests.interop.conftest import PEER_SCRIPTS, check_recorded

SERVER = Path(__file__).resolve().parent / "servers" / "argument_checks.py"


def _call(tool: str, /, **args: Any) -> dict[str, Any]:
    return {"op": "call", "name": tool, "args": args}


SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    _call("add", a="1", b=2),  # str -> int, int -> float
    _call("add", a=1, zzz=5),  # an unknown argument
    _call("add", b=1.5),  # a missing one
    _call("add", a="x"),  # cannot be converted
    _call("add", a=1.5),  # a float with a fraction for an int
    _call("flags", on="yes", n="3"),  # str -> bool
    _call("flags", on="maybe", n=True),
    _call(
        "nested",
        answer={"text": "t", "inner": {"x": "2"}},
        pin={"label": "p", "spot": {"x": "3"}},
        plain={"count": "4", "ratio": 1},
    ),
    _call(
        "nested",
        answer={"text": "t", "inner": {"x": "z"}},
        pin={"label": "p", "spot": {}},
        plain={"count": 1.5},
    ),
    _call("limited", n=0),
    _call("limited", n="5", name="a"),
    _call("limited", n="7", name="abc", other=[1]),
    _call("items", values='[1, "2"]', labels='{"a": 1}'),  # JSON text in a string
    _call("items", values=["1", 2.0], labels={"a": "1.5"}),
    _call("items", values=[1, "x"], labels={"a": "b"}),
    _call("nothing", extra=1),
    _call("maybe", x="null", word="[1]"),
    _call("maybe", x="12", word=3),
]


def run_both(sdk: str, tmp: Path, mode: str, *args: str) -> tuple[dict[str, Any], dict[str, Any]]:
    log = tmp / "wire.jsonl"
    recorded = [sys.executable, str(PEER_SCRIPTS / "tee.py"), str(log), "--"]
    python = peer("mcp2")
    theirs = submit(
        python, SCRIPT, "theirs", command=[str(peer(sdk)), str(SERVER), sdk, *args], mode=mode
    )
    ours = submit(
        python,
        SCRIPT,
        "ours",
        command=[*recorded, sys.executable, *PYTHON_M, str(SERVER), sdk, *args],
        mode=mode,
    )
    theirs_report, ours_report = theirs.report(), ours.report()
    assert not check_recorded(log).errors
    if mode != "legacy":  # no handshake: the server names itself in each result's _meta
        return _unversioned(theirs_report), _unversioned(ours_report)
    return normalised(theirs_report), normalised(ours_report)


def _unversioned(value: Any) -> Any:
    """``value`` without the SDK's version string in the results' server info."""
    if isinstance(value, dict):
        return {
            k: (
                {**v, "version": None}
                if k == "io.modelcontextprotocol/serverInfo" and isinstance(v, dict)
                else _unversioned(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_unversioned(v) for v in value]
    return value


CASES = [
    ("mcp1", "legacy"),
    ("mcp2", "legacy"),
    ("mcp2", "2026-07-28"),
    ("fastmcp", "legacy"),
    ("fastmcp", "2026-07-28"),
]


@pytest.mark.parametrize(("sdk", "mode"), CASES)
def test_arguments_checked_as_the_sdk_does(sdk: str, mode: str, tmp_path: Path) -> None:
    """Every call answers as on the SDK itself: the accepted ones with the same converted
    values, the refused ones as error results with the same text."""
    theirs, ours = run_both(sdk, tmp_path, mode)
    assert_same(theirs, ours)
    texts = [op["result"]["content"][0]["text"] for op in ours["ops"][1:]]
    assert texts[0] == "(1, 2.0)"
    if sdk == "fastmcp":
        assert "Unexpected keyword argument" in texts[1]
    else:  # the official SDK drops unknown arguments
        assert texts[1] == "(1, 1.0)"
        assert texts[2].startswith("Error executing tool add: 1 validation error for addArguments")
    assert ours["ops"][3]["result"]["isError"] is True


def test_fastmcp_strict_input_validation(tmp_path: Path) -> None:
    """fastmcp with ``strict_input_validation=True`` converts nothing (``"1"`` is not an
    ``int``) and words each refusal as fastmcp does."""
    theirs, ours = run_both("fastmcp", tmp_path, "legacy", "strict")
    assert_same(theirs, ours)
    first = ours["ops"][1]["result"]
    assert first["isError"] and "Input should be a valid integer" in first["content"][0]["text"]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18"])
async def test_refusals_are_results_in_every_revision(version: str, wire: Any) -> None:
    """The official SDK answers refused arguments with an error result whatever the
    revision; mcpkit's own server answers -32602 before 2025-11-25, as it did."""
    from mcpkit import Server
    from mcpkit.compat.mcp.server.mcpserver import MCPServer
    from mcpkit.errors import McpError
    from tests.server.helpers import call, connected, text

    def add(a: int) -> str:
        return repr(a)

    compat = MCPServer("compat")
    compat.add_tool(add)
    async with connected(compat.native, wire, version=version) as (client, _):
        refused = await call(client, "add", {"a": "x"})
        assert refused["isError"] is True
        assert text(refused).startswith(
            "Error executing tool add: 1 validation error for addArguments\na\n"
        )
        assert text(await call(client, "add", {"a": "2", "b": 1})) == "2"
    native = Server("native")
    native.tool()(add)
    async with connected(native, wire, version=version) as (client, _):
        with pytest.raises(McpError) as caught:
            await call(client, "add", {"a": "2"})
        assert caught.value.code == -32602
