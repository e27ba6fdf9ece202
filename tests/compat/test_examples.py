"""The official SDK's own example servers (1.x: its ``examples/`` and documentation
snippets, copied unchanged into ``examples/official_v1``, see ``examples/NOTICE``), run on
``mcp`` 1.x and unchanged on mcpkit, compared through the official client like
``test_unchanged.py``.

A snippet that only defines ``mcp = FastMCP(...)`` is served through its object: on the SDK
by a launcher calling ``mcp.run()``, on mcpkit as ``python -m mcpkit.compat FILE:mcp``. An
example packaged with a console script (``main()``, click options) runs through a launcher
like the one pip writes, on both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import Job
from tests.compat.test_unchanged import (
    assert_same,
    normalised,
    peer,
    report_of,
    selected,
    start_both,
)

EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v1"

LIST: dict[str, Any] = {"op": "list"}


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"op": "call", "name": name, "args": args}


#: file -> (how it is started, what the client does). "main": runs as a script;
#: "mcp": its FastMCP object; "console": its main() as a console script.
CASES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "basic_tool.py": ("mcp", [LIST, call("sum", a=1, b=2), call("get_weather", city="Oslo")]),
    "basic_prompt.py": (
        "mcp",
        [LIST, {"op": "get", "name": "debug_error", "args": {"error": "boom"}}],
    ),
    "basic_resource.py": (
        "mcp",
        [
            LIST,
            {"op": "read", "uri": "file://documents/readme"},
            {"op": "read", "uri": "config://settings"},
        ],
    ),
    "resource_templates.py": ("mcp", [LIST, {"op": "read", "uri": "users://7/profile"}]),
    "structured_output.py": ("mcp", [LIST]),
    "completion.py": (
        "mcp",
        [
            LIST,
            {
                "op": "complete",
                "ref": {"type": "ref/resource", "uri": "github://repos/{owner}/{repo}"},
                "argument": {"name": "repo", "value": "py"},
                "context": {"owner": "modelcontextprotocol"},
            },
            {
                "op": "complete",
                "ref": {"type": "ref/prompt", "name": "review_code"},
                "argument": {"name": "language", "value": "py"},
            },
        ],
    ),
    "notifications.py": ("mcp", [LIST, call("process_data", data="abc")]),
    "sampling.py": ("mcp", [LIST, call("generate_poem", topic="tea")]),
    "elicitation.py": (
        "mcp",
        [LIST, call("book_table", date="2024-12-25", time="19:00", party_size=2)],
    ),
    "direct_call_tool_result.py": (
        "mcp",
        [LIST, call("advanced_tool"), call("validated_tool"), call("empty_result_tool")],
    ),
    "lifespan_example.py": ("mcp", [LIST, call("query_db")]),
    "fastmcp_echo.py": (
        "mcp",
        [
            LIST,
            call("echo_tool", text="hi"),
            {"op": "read", "uri": "echo://static"},
            {"op": "read", "uri": "echo://abc"},
            {"op": "get", "name": "echo", "args": {"text": "x"}},
        ],
    ),
    "fastmcp_weather_structured.py": (
        "mcp",
        [
            LIST,
            call("get_weather_summary", city="Oslo"),
            call("get_temperature", city="Oslo", unit="fahrenheit"),
        ],
    ),
    "fastmcp_parameter_descriptions.py": ("mcp", [LIST]),
    "fastmcp_complex_inputs.py": (
        "mcp",
        [LIST, call("name_shrimp", tank={"shrimp": [{"name": "bob"}]}, extra_names=["al"])],
    ),
    "fastmcp_unicode_example.py": (
        "mcp",
        [LIST, call("hello_unicode"), call("multilingual_hello")],
    ),
    "fastmcp_logging_and_progress.py": ("mcp", [LIST, call("echo", text="hello")]),
    "lowlevel/basic.py": (
        "main",
        [LIST, {"op": "get", "name": "example-prompt", "args": {"arg1": "x"}}],
    ),
    "lowlevel/structured_output.py": ("main", [LIST, call("get_weather", city="Oslo")]),
    "lowlevel/lifespan.py": ("main", [LIST, call("query_db", query="SELECT 1")]),
    "lowlevel/direct_call_tool_result.py": ("main", [LIST, call("advanced_tool")]),
    "server_mcp_simple_prompt.py": (
        "console",
        [LIST, {"op": "get", "name": "simple", "args": {"context": "c", "topic": "t"}}],
    ),
    "server_mcp_simple_resource.py": (
        "console",
        [LIST, {"op": "read", "uri": "file:///greeting.txt"}],
    ),
    "server_mcp_simple_pagination.py": (
        "console",
        [LIST, call("tool_3", input="x"), {"op": "read", "uri": "file:///path/to/resource_2.txt"}],
    ),
}


def commands(name: str, kind: str, tmp: Path) -> tuple[list[str], list[str]]:
    """How the SDK runs the example, and how mcpkit does (the same launcher for both, but
    for an object, which mcpkit serves as ``FILE:mcp``)."""
    path = EXAMPLES / name
    if kind == "main":
        return [str(path)], [str(path)]
    launcher = tmp / "launch.py"
    if kind == "mcp":
        launcher.write_text(f"import runpy\nrunpy.run_path({str(path)!r})['mcp'].run()\n")
        return [str(launcher)], [f"{path}:mcp"]
    launcher.write_text(
        f"import sys\nsys.path.insert(0, {str(path.parent)!r})\n"
        f"sys.argv = ['server']\nfrom {path.stem} import main\nsys.exit(main())\n"
    )
    return [str(launcher)], [str(launcher)]


@pytest.fixture(scope="module")
def conversations(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[Job, Job]]:
    """Both conversations of every selected example, handed to the official client before
    the first test (it runs a few at a time, in the tests' order)."""
    import sys

    started = {}
    for name in selected(request, "test_official_example_runs_unchanged"):
        kind, script = CASES[name]
        tmp = tmp_path_factory.mktemp("example")
        sdk, ours = commands(name, kind, tmp)
        started[name] = start_both(
            script, [str(peer("mcp1")), *sdk], [sys.executable, "-m", "mcpkit.compat", *ours], tmp
        )
    return started


@pytest.mark.parametrize("name", sorted(CASES))
def test_official_example_runs_unchanged(
    name: str, conversations: dict[str, tuple[Job, Job]]
) -> None:
    jobs = conversations[name]
    reports = report_of(jobs[0], "theirs"), report_of(jobs[1], "ours")
    theirs, mine = (normalised(r) for r in reports)
    assert_same(theirs, mine)
    # Errors are compared above; only a list may fail (a kind the example does not serve).
    assert all("error" not in op for op in mine["ops"] if op["op"] != "list"), mine["ops"]


def test_official_streamable_http_example_runs_unchanged(tmp_path: Path) -> None:
    """The SDK's stateless Streamable HTTP example: a 1.x low-level server behind
    ``StreamableHTTPSessionManager``, mounted in its own Starlette app and served by
    uvicorn, started with its own command line; the same over HTTP on both."""
    import sys

    from tests.compat.test_compat import finish, free_port, serve, start_drive

    path = EXAMPLES / "server_mcp_simple_streamablehttp_stateless.py"
    launcher = tmp_path / "launch.py"
    launcher.write_text(
        f"import sys\nsys.path.insert(0, {str(path.parent)!r})\n"
        f"from {path.stem} import main\nsys.exit(main())\n"
    )
    script = [
        LIST,
        call("start-notification-stream", interval=0.01, count=2, caller="compat"),
    ]
    ports = free_port(), free_port()
    procs = [serve([str(peer("mcp1")), str(launcher), "--port"], ports[0])]
    try:
        procs.append(
            serve([sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"], ports[1])
        )
        runs = [
            start_drive(
                peer("mcp2"), script, ["--url", f"http://127.0.0.1:{port}/mcp"], tmp_path, tag
            )
            for port, tag in zip(ports, ("theirs", "ours"), strict=True)
        ]
        theirs, ours = (normalised(finish(run)) for run in runs)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    assert_same(theirs, ours)
    assert ours["ops"][1]["result"]["content"][0]["text"].startswith("Sent 2 notifications")
