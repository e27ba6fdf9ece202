"""2.x's multi-round-trip surface: its resolver dependencies (``Annotated[T,
Resolve(fn)]``, resolvers returning ``Elicit``, ``Sample`` or ``ListRoots``) and an
``InputRequiredResult`` a low-level handler returns by hand (reading the retry's
``params.input_responses``): the SDK's own documentation examples
(``examples/official_v2/docs_src``, see ``examples/NOTICE``) run on ``mcp`` 2.x and unchanged
on mcpkit, driven by the official client on the handshake era and on 2026-07-28; what it
saw must be equal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import submit
from tests.compat.test_unchanged import assert_same, peer

EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v2" / "docs_src"

LIST: dict[str, Any] = {"op": "list"}


def call(name: str, answer: dict[str, Any] | None = None, **args: Any) -> dict[str, Any]:
    op: dict[str, Any] = {"op": "call", "name": name, "args": args}
    if answer is not None:
        op["answer"] = answer
    return op


CASES: dict[str, list[dict[str, Any]]] = {
    "dependencies/tutorial001.py": [
        LIST,
        call("reserve_book", title="Dune"),
        call("reserve_book", title="Neuromancer"),
    ],
    "dependencies/tutorial002.py": [
        LIST,
        call("order_book", title="Dune"),
        call("order_book", title="Neuromancer"),
    ],
    "dependencies/tutorial003.py": [
        LIST,
        call("order_book", title="Dune"),
        call("order_book", {"confirm": True}, title="Neuromancer"),
        call("order_book", {"confirm": False}, title="Neuromancer"),
    ],
    "dependencies/tutorial004.py": [LIST, call("recommend_book", genre="sf")],
    "sampling_and_roots/tutorial002.py": [LIST, call("catalog_folder")],
}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_resolver_example_runs_unchanged(name: str, mode: str, tmp_path: Path) -> None:
    path = EXAMPLES / name
    launcher = tmp_path / "launch.py"
    launcher.write_text(f"import runpy\nrunpy.run_path({str(path)!r})['mcp'].run()\n")
    script = CASES[name]
    jobs = [
        submit(
            peer("mcp2"), script, "theirs", command=[str(peer("mcp2")), str(launcher)], mode=mode
        ),
        submit(
            peer("mcp2"),
            script,
            "ours",
            command=[sys.executable, "-m", "mcpkit.compat", f"{path}:mcp"],
            mode=mode,
        ),
    ]
    theirs, ours = (job.report() for job in jobs)
    for report in (theirs, ours):  # each SDK names its own version (no serverInfo on 2026)
        (report["serverInfo"] or {}).pop("version", None)
    assert_same(theirs, ours)
    assert all("error" not in op for op in ours["ops"]), ours["ops"]
    tools = ours["ops"][0]["tools"]
    assert all("mcp_resolver_context" not in t["inputSchema"]["properties"] for t in tools)


LAUNCH_LOWLEVEL = """import runpy
import anyio
from mcp.server.stdio import stdio_server

server = runpy.run_path({path!r})["server"]


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
"""


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_input_required_result_by_hand(mode: str, tmp_path: Path) -> None:
    """A 2.x low-level ``on_call_tool`` answering ``InputRequiredResult`` until the retry
    carries the answer: on 2026-07-28 the client's round trip ends in the same result; on
    the handshake era both refuse it with the same error."""
    launcher = tmp_path / "launch.py"
    launcher.write_text(LAUNCH_LOWLEVEL.format(path=str(EXAMPLES / "mrtr" / "tutorial001.py")))
    script = [
        {"op": "call", "name": "provision", "args": {"name": "db"}, "answer": {"region": "eu"}}
    ]
    commands = {
        "theirs": [str(peer("mcp2")), str(launcher)],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(launcher)],
    }
    jobs = [
        submit(peer("mcp2"), script, tag, command=command, mode=mode)
        for tag, command in commands.items()
    ]
    theirs, ours = (job.report() for job in jobs)
    assert ours["ops"] == theirs["ops"]
    if mode == "legacy":
        assert "Handler returned an invalid result" in ours["ops"][0]["error"]
    else:
        assert ours["ops"][0]["result"]["content"][0]["text"] == "Provisioned 'db' in eu."


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_extension_tools_and_settings(mode: str) -> None:
    """``MCPServer(extensions=[...])``: the extension's tool (with its ``_meta``) is listed
    and called, its settings declared where 2.x declares them, the same on ``mcp`` 2.x and
    on mcpkit."""
    server = Path(__file__).resolve().parent / "servers" / "mcpserver_extension.py"
    script = [LIST, call("weather", city="Oslo"), call("ping")]
    commands = {
        "theirs": [str(peer("mcp2")), str(server)],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(server)],
    }
    jobs = [
        submit(peer("mcp2"), script, tag, command=command, mode=mode)
        for tag, command in commands.items()
    ]
    theirs, ours = (job.report() for job in jobs)
    assert ours["ops"] == theirs["ops"]
    weather = next(t for t in ours["ops"][0]["tools"] if t["name"] == "weather")
    assert weather["_meta"] == {"com.example/weather": {"cached": True}}
    assert ours["ops"][1]["result"]["content"][0]["text"] == "Sunny in Oslo"
    assert ours["capabilities"].get("extensions") == theirs["capabilities"].get("extensions")
