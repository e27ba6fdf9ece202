"""fastmcp's own example servers (its repository's ``examples/``, copied unchanged into
``examples/fastmcp``, see ``examples/NOTICE``), run on fastmcp and unchanged on mcpkit,
compared through the official client like ``test_examples.py``.

An example that only defines its server object is served through it: on fastmcp by a
launcher calling the object's ``run()``, on mcpkit as ``python -m mcpkit.compat FILE:OBJ``.
An example with a ``__main__`` block runs as a script on both, with its own arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import Job, warmed
from tests.compat.test_unchanged import (
    assert_same,
    drive_both,
    normalised,
    peer,
    report_of,
    selected,
    start_both,
)

EXAMPLES = Path(__file__).resolve().parent / "examples" / "fastmcp"

LIST: dict[str, Any] = {"op": "list"}


def call(name: str, /, **args: Any) -> dict[str, Any]:
    return {"op": "call", "name": name, "args": args}


def read(uri: str) -> dict[str, Any]:
    return {"op": "read", "uri": uri}


def get(name: str, /, **args: Any) -> dict[str, Any]:
    return {"op": "get", "name": name, "args": args}


def version(op: dict[str, Any], wanted: Any) -> dict[str, Any]:
    """``op`` asking for version ``wanted`` of its component (``_meta.fastmcp.version``)."""
    return {**op, "meta": {"fastmcp": {"version": wanted}}}


def failing(op: dict[str, Any]) -> dict[str, Any]:
    """``op``, expected to fail the same way on both (an error or an ``isError`` result)."""
    return {**op, "fails": True}


#: The URI of the Prefab renderer resource (prefab-ui 0.21.1 from its CDN, the CSP its
#: own): the same for every tool that sets no CSP, permissions, domain or border of its own.
PREFAB_RENDERER = (
    "ui://prefab/renderer/d3fc8f3feb740ac6c6f4440a7f161de958f5f7d86645fa704b90891ddedac012"
    "/renderer.html"
)

#: file -> (how it is started, its arguments, what the client does). How: "main" runs the
#: file as a script; any other word names the server object the file defines.
CASES: dict[str, tuple[str, list[str], list[dict[str, Any]]]] = {
    "simple_echo.py": ("mcp", [], [LIST, call("echo", text="hi")]),
    "echo.py": (
        "mcp",
        [],
        [
            LIST,
            call("echo_tool", text="hi"),
            read("echo://static"),
            read("echo://abc"),
            get("echo", text="x"),
        ],
    ),
    "complex_inputs.py": (
        "mcp",
        [],
        [LIST, call("name_shrimp", tank={"shrimp": [{"name": "bob"}]}, extra_names=["al"])],
    ),
    "config_server.py": (
        "main",
        ["--name", "MyServer", "--debug"],
        [LIST, call("get_status"), call("echo_message", message="hi")],
    ),
    "desktop.py": ("mcp", [], [LIST, call("add", a=1, b=2), read("greeting://Ada")]),
    "tool_result_echo.py": ("mcp", [], [LIST, call("echo", text="hello world")]),
    "elicitation.py": (
        "mcp",
        [],
        [
            LIST,
            {**call("greet"), "answer": {"value": "Ada"}},
            {**call("survey"), "answer": {"favorite_color": "teal", "lucky_number": 7}},
            failing({**call("survey"), "answer": {"favorite_color": "teal", "lucky_number": "x"}}),
            failing({**call("survey"), "answer": {"favorite_color": "teal"}}),
            failing({**call("greet"), "answer": {"value": 3}}),
        ],
    ),
    "testing_demo_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("add", a=1, b=2),
            failing(call("add", a="one", b=2)),
            failing(call("add", a=1)),
            failing(call("add", a=1, b=2, c=3)),
            call("greet", name="Ada"),
            call("async_multiply", x=1.5, y=2),
            read("demo://info"),
            read("demo://greeting/Ada"),
            get("hello"),
            get("explain", topic="tea", detail_level="simple"),
        ],
    ),
    "fastmcp_config_server.py": (
        "main",
        [],
        [LIST, call("echo", text="hi"), call("add", a=1, b=2), read("config://example")],
    ),
    "custom_tool_serializer_decorator.py": (
        "server",
        [],
        [LIST, call("get_example_data"), call("get_json_data")],
    ),
    # The tools take a screenshot (a display is needed): listed only.
    "screenshot.py": ("mcp", [], [LIST]),
    "fastmcp_config_demo_server.py": ("mcp", [], [LIST]),
    "mount_example.py": (
        "app",
        [],
        [
            LIST,
            call("check_app_status"),
            call("weather_get_weather_forecast", location="Paris"),
            call("news_get_news_headlines"),
            read("weather://weather/forecast"),
            read("news://news/headlines"),
        ],
    ),
    "persistent_state_server.py": (
        "server",
        [],
        [
            LIST,
            call("get_value", key="colour"),
            call("set_value", key="colour", value="teal"),
            call("get_value", key="colour"),
            call("set_value", key="colour", value="red"),
            call("get_value", key="colour"),
        ],
    ),
    "namespace_activation_server.py": (
        "main",
        [],
        [
            LIST,
            failing(call("list_users")),
            call("activate_finance"),
            LIST,
            call("get_market_data", symbol="ACME"),
            failing(call("list_users")),
            call("activate_admin"),
            LIST,
            call("list_users"),
            call("deactivate_all"),
            LIST,
            failing(call("analyze_portfolio", symbols=["ACME"])),
        ],
    ),
    "search_server_regex.py": (
        "main",
        [],
        [
            LIST,
            call("search_tools", pattern="string|text"),
            call("search_tools", pattern="^(add|multiply)"),
            call("search_tools", pattern="[unclosed"),
            call("call_tool", name="fibonacci", arguments={"n": 7}),
            call("call_tool", name="reverse_string", arguments={"text": "mcpkit"}),
            call("word_count", text="three little words"),
            failing(call("call_tool", name="no_such_tool")),
        ],
    ),
    "code_mode_server.py": (
        "main",
        [],
        [
            LIST,
            call("search", query="text"),
            call("search", query="add numbers", detail="detailed", limit=2),
            call("search", query="zzz qqq"),
            call("get_schema", tools=["fibonacci", "no_such_tool"]),
            call("get_schema", tools=["add"], detail="full"),
            call(
                "execute",
                code="s = await call_tool('add', {'a': 1, 'b': 2})\n"
                "f = await call_tool('fibonacci', {'n': s['result'] + 4})\n"
                "up = await call_tool('to_uppercase', {'text': 'mcp'})\n"
                "return {'sum': s['result'], 'fib': f['result'], 'up': up['result']}",
            ),
            call("execute", code="return 'plain text'"),
            call("add", a=2, b=3),
            failing(call("execute", code="raise ValueError('boom')")),
            failing(call("execute", code="return await call_tool('no_such_tool', {})")),
            failing(call("execute", code="return await call_tool('add', {'a': 'x', 'b': 2})")),
            failing(call("execute", code="return await call_tool('add', {'a': 1})")),
            failing(
                call("execute", code="return await call_tool('read_file', {'path': '/no/such'})")
            ),
            failing(call("execute", code="x = 1 +")),
        ],
    ),
    "search_server_bm25.py": (
        "main",
        [],
        [
            LIST,
            call("search_tools", query="count the words in some text"),
            call("search_tools", query="read a file"),
            call("search_tools", query="zzz qqq"),
            call("call_tool", name="multiply", arguments={"x": 1.5, "y": 4}),
            call("call_tool", name="to_uppercase", arguments={"text": "abc"}),
            call("add", a=1, b=2),
            failing(call("call_tool", name="search_tools")),
        ],
    ),
    "prompts_as_tools_server.py": (
        "main",
        [],
        [
            LIST,
            call("list_prompts"),
            call("get_prompt", name="explain_concept", arguments={"concept": "recursion"}),
            call(
                "get_prompt",
                name="analyze_code",
                arguments={"code": "x = 1", "focus": "style"},
            ),
            failing(call("get_prompt", name="no_such_prompt")),
            failing(
                call(
                    "get_prompt",
                    name="review_pull_request",
                    arguments={"title": "t", "description": "d"},
                )
            ),
        ],
    ),
    "resources_as_tools_server.py": (
        "main",
        [],
        [
            LIST,
            call("list_resources"),
            call("read_resource", uri="config://app"),
            call("read_resource", uri="user://42/profile"),
            call("read_resource", uri="file://docs/readme.md"),
            failing(call("read_resource", uri="nothing://here")),
        ],
    ),
    "filesystem-provider/server.py": (
        "mcp",
        [],
        [
            LIST,
            call("add-numbers", a=1, b=2.5),
            call("multiply", a=3, b=4),
            call("greet", name="Ada"),
            call("farewell", name="Ada"),
            failing(call("add", a=1, b=2)),
            failing(call("greet")),
            read("config://app"),
            read("config://env/prod"),
            read("config://env/qa"),
            read("config://features"),
            failing(read("config://nothing")),
            get("code_review", code="x=1"),
            get("explain-concept", topic="monads", audience="child"),
            failing(get("explain", topic="x")),
            failing(get("code_review")),
        ],
    ),
    "skills/server.py": (
        "mcp",
        [],
        [
            LIST,
            read("skill://pdf-processing/SKILL.md"),
            read("skill://pdf-processing/_manifest"),
            read("skill://pdf-processing/reference.md"),
            read("skill://code-review/SKILL.md"),
            read("skill://code-review/_manifest"),
            failing(read("skill://code-review/nothing.md")),
            failing(read("skill://nothing/SKILL.md")),
            failing(read("skill://pdf-processing/../code-review/SKILL.md")),
        ],
    ),
    "versioning_versioned_components.py": (
        "mcp",
        [],
        [
            LIST,
            call("calculate", x=5, y=3),
            version(call("calculate", x=5, y=3), "1.0"),
            version(call("calculate", x=5, y=3, z=2), "2.0"),
            version(call("calculate", x=5, y=3), "v1"),
            failing(version(call("calculate", x=5, y=3, z=2), "1.0")),
            failing(version(call("calculate", x=5, y=3), "99.0")),
            read("config://app"),
            version(read("config://app"), "1.0"),
            failing(version(read("config://app"), "3.0")),
            get("summarize", text="t"),
            version(get("summarize", text="t", style="brief"), "2.0"),
            version(get("summarize", text="t"), "1.0"),
            failing(version(get("summarize", text="t"), "1.5")),
        ],
    ),
    "apps/greet_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("greet", name="Ada"),
            call("farewell", name="Ada", language="French"),
            failing(call("greet", name="Ada", language="Klingon")),
            read(PREFAB_RENDERER),
            failing(read("ui://prefab/renderer.html")),
        ],
    ),
    "apps/chart_server.py": (
        "mcp",
        [],
        [LIST, call("sales_chart"), call("sales_chart", stacked=True), read(PREFAB_RENDERER)],
    ),
    "apps/datatable_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("team_directory"),
            call("team_directory", department="Engineering"),
            read(PREFAB_RENDERER),
        ],
    ),
    "apps/patterns_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("quarterly_revenue"),
            call("quarterly_revenue", year=2024),
            call("usage_trend"),
            call("ticket_breakdown"),
            call("employee_directory"),
            call("contact_form"),
            call("save_contact", name="Ada", email="ada@example.com"),
            call("system_status"),
            call("feature_flags"),
            call("project_overview"),
            call("api_health"),
            read(PREFAB_RENDERER),
        ],
    ),
    "apps/contacts/contacts_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("contact_manager"),
            call("list_contacts"),
            call("search_contacts", query="a"),
            call("save_contact", data={"name": "Ada", "email": "ada@example.com"}),
            failing(call("save_contact", data={"name": "", "email": "x"})),
            call("list_contacts"),
        ],
    ),
    "apps/inventory/inventory_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("inventory_manager"),
            call("search_items", query="desk"),
            call("filter_by_category", category="Furniture"),
            call("add_item", data={"name": "Lamp", "category": "Furniture", "quantity": 2}),
            call("update_quantity", item_id=1, delta=-1),
            call("delete_item", item_id=2),
            call("filter_by_category", category="Electronics"),
        ],
    ),
    "apps/approvals/approvals_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("approval_dashboard"),
            call("list_requests"),
            call("list_requests", status="pending"),
            call("get_request_details", request_id="REQ-001"),
            call("approve_request", request_id="REQ-001"),
            call("reject_request", request_id="REQ-002"),
            call("add_comment", request_id="REQ-003", comment="Looks fine"),
            call("get_request_details", request_id="REQ-003"),
        ],
    ),
    "apps/explorer/explorer_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("data_explorer"),
            call("get_summary"),
            call("analyze_data"),
            call("analyze_data", region="North", product="Widget A"),
            call("filter_data", region="South"),
        ],
    ),
    "apps/quiz/quiz_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("take_quiz"),
            # The questions as an LLM may write them: keys the TypedDict does not have
            # are dropped, not refused.
            call(
                "take_quiz",
                topic="Capitals",
                questions=[
                    {"question": "Capital of Peru?", "options": ["Lima", "Cusco"], "correct": 0},
                    {
                        "question": "Of Chad?",
                        "options": ["Abeche", "N'Djamena"],
                        "correct": 1,
                        "hint": "on the Chari",
                        "difficulty": 2,
                    },
                ],
            ),
            failing(call("take_quiz", questions=[{"question": "q", "options": ["a"]}])),
            call(
                "submit_answer",
                question_index=0,
                selected=2,
                correct=2,
                total_questions=5,
                current_score=0,
            ),
            call(
                "submit_answer",
                question_index=4,
                selected=0,
                correct=3,
                total_questions=5,
                current_score=3,
            ),
            read(PREFAB_RENDERER),
        ],
    ),
    "apps/system_monitor/system_monitor_server.py": (
        "mcp",
        [],
        [LIST, call("system_dashboard"), call("refresh"), call("refresh"), read(PREFAB_RENDERER)],
    ),
    "apps/qr_server/qr_server.py": (
        "mcp",
        [],
        [
            LIST,
            call("generate_qr"),
            call(
                "generate_qr",
                text="https://example.com/a?b=c",
                box_size=2,
                border=1,
                error_correction="h",
                fill_color="red",
                back_color="#FFFFFF",
            ),
            failing(call("generate_qr", error_correction="Z")),
            failing(call("generate_qr", box_size=0)),
            read("ui://qr-server/view.html"),
        ],
    ),
    "apps/showcase_server.py": ("mcp", [], [LIST, call("showcase")]),
    "apps/sales_dashboard/sales_dashboard_server.py": ("mcp", [], [LIST, call("sales_dashboard")]),
    "apps/inspector_demo.py": (
        "mcp",
        [],
        [
            LIST,
            call("demo"),
            call("echo", message="hi"),
            call("echo_with_logs", message="hi"),
            failing(call("fail")),
        ],
    ),
}


def without_timings(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` without the one value that differs by nature: the time a call took, which
    ``tool_result_echo.py`` measures and sends in its result's ``_meta`` (checked to be one)."""
    for op in report["ops"]:
        meta = op.get("result", {}).get("_meta", {})
        if "execution_time_ms" in meta:
            took = meta.pop("execution_time_ms")
            assert isinstance(took, int | float) and took >= 0, took
    return report


def live_stats(value: Any) -> Any:
    """``value`` with the system monitor's live readings (CPU and memory load, disk use,
    uptime, the load history's readings and times, the busiest processes) replaced by their
    kinds, in its stats wherever they appear (a state, ``structuredContent``, the JSON text);
    what a machine has (cores, total memory and disk, platform, host name) is kept."""
    if isinstance(value, list):
        return [live_stats(v) for v in value]
    if not isinstance(value, dict):
        return value
    if {"cpu", "mem_pct", "history", "top_procs"} <= value.keys():
        out = dict(value)
        for key in ("cpu", "mem_pct", "mem_used", "disk_pct", "disk_used", "uptime", "healthy"):
            out[key] = type(value[key]).__name__
        out["history"] = [{k: type(v).__name__ for k, v in h.items()} for h in value["history"]]
        out["top_procs"] = [{k: type(v).__name__ for k, v in p.items()} for p in value["top_procs"]]
        return out
    out = {k: live_stats(v) for k, v in value.items()}
    text = out.get("text")
    if out.get("type") == "text" and isinstance(text, str) and text.startswith("{"):
        import json

        parsed = json.loads(text)
        stats = live_stats(parsed)
        if stats != parsed:  # the stats as JSON text: their form is compared too
            compact = text == json.dumps(parsed, separators=(",", ":"))
            out["text"] = {"compact": compact, "stats": stats}
    return out


#: What differs by nature in an example's answers, normalised before they are compared.
NORMALISE: dict[str, Any] = {"apps/system_monitor/system_monitor_server.py": live_stats}


def commands(name: str, how: str, args: list[str], tmp: Path) -> tuple[list[str], list[str]]:
    """How fastmcp runs the example, and how mcpkit does."""
    path = EXAMPLES / name
    if how == "main":
        return [str(path), *args], [str(path), *args]
    launcher = tmp / "launch.py"
    launcher.write_text(f"import runpy\nrunpy.run_path({str(path)!r})[{how!r}].run()\n")
    return [str(launcher), *args], [f"{path}:{how}", *args]


@pytest.fixture(scope="module")
def conversations(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[Job, Job]]:
    """Both conversations of every selected example, handed to the official client before
    the first test (it runs a few at a time, in the tests' order): each test finds its
    reports ready, or nearly."""
    started = {}
    for name in selected(request, "test_fastmcp_example_runs_unchanged"):
        how, args, script = CASES[name]
        tmp = tmp_path_factory.mktemp("example")
        theirs_cmd, ours_cmd = commands(name, how, args, tmp)
        started[name] = start_both(
            script,
            [str(peer("fastmcp")), *theirs_cmd],
            [sys.executable, "-m", "mcpkit.compat", *ours_cmd],
            tmp,
        )
    return started


@pytest.mark.parametrize("name", sorted(CASES))
def test_fastmcp_example_runs_unchanged(
    name: str, conversations: dict[str, tuple[Job, Job]]
) -> None:
    script = CASES[name][2]
    jobs = conversations[name]
    reports = report_of(jobs[0], "theirs"), report_of(jobs[1], "ours")
    theirs, ours = (without_timings(normalised(r)) for r in reports)
    if name in NORMALISE:
        theirs, ours = NORMALISE[name](theirs), NORMALISE[name](ours)
    assert_same(theirs, ours)
    # Errors are compared above; only a list may fail (a kind the example does not serve),
    # and the calls marked as failing must.
    for op, planned in zip(ours["ops"], script, strict=True):
        failed = "error" in op or bool(op.get("result", {}).get("isError"))
        if op["op"] != "list":
            assert failed == planned.get("fails", False), op


#: Examples that serve nothing: they build servers and print what those list (or what a
#: Client in memory sees). Run as scripts on both; what they print must be equal. Each
#: with a line it must print.
PRINTING = {
    "versioning_versioned_components.py": "calculate(5, 3, 2) v2.0  -> 10",
    "versioning_version_filters.py": "API v3: process('Hello') -> 'HELLO'",
    "versioning_client_version_selection.py": "ToolError: Unknown tool: 'charge'",
    "tags_example.py": "Tools (",
    "in_memory_proxy_example.py": "Result from proxied 'echo' call: 'Original server echoes:",
}


@pytest.mark.parametrize("name", sorted(PRINTING))
def test_fastmcp_printing_example_runs_unchanged(name: str) -> None:
    import subprocess

    path = str(EXAMPLES / name)
    runs = [  # both at once
        subprocess.Popen(warmed(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for command in (
            [str(peer("fastmcp")), path],
            [sys.executable, "-m", "mcpkit.compat", path],
        )
    ]
    (theirs, their_err), (ours, our_err) = (run.communicate(timeout=120) for run in runs)
    assert runs[0].returncode == 0, their_err[-2000:]
    assert runs[1].returncode == 0, our_err[-2000:]
    assert PRINTING[name] in theirs
    assert ours == theirs


def test_fastmcp_sqlite_provider_example(tmp_path: Path) -> None:
    """``providers/sqlite``: its ``setup_db.py`` run first, beside a copy of the server, on
    each side. The tools the provider reads from the database are listed the same; calling
    one fails on both, as the example's ``get_tool(self, name)`` cannot take fastmcp's
    ``(name, version)`` (fastmcp answers code 0 with anyio's text, mcpkit -32603 with an
    error id), and fastmcp fails the server's own ``server_info`` with it, where mcpkit
    answers it (docs/migration.md)."""
    import shutil
    import subprocess

    source = EXAMPLES / "providers" / "sqlite"
    launchers = []
    for side, python in (("theirs", str(peer("fastmcp"))), ("ours", sys.executable)):
        home = tmp_path / side
        home.mkdir()
        for name in ("server.py", "setup_db.py"):
            shutil.copy(source / name, home / name)
        subprocess.run([python, str(home / "setup_db.py")], check=True, capture_output=True)
        assert (home / "tools.db").exists()
        launchers.append(home / "server.py")
    script = [LIST, call("add_numbers", a=10, b=5), call("server_info")]
    launch = tmp_path / "launch.py"
    launch.write_text(f"import runpy\nrunpy.run_path({str(launchers[0])!r})['mcp'].run()\n")
    reports = drive_both(
        script,
        [str(peer("fastmcp")), str(launch)],
        [sys.executable, "-m", "mcpkit.compat", f"{launchers[1]}:mcp"],
        tmp_path,
    )
    theirs, ours = (normalised(r) for r in reports)
    for key in ("serverInfo", "capabilities", "instructions", "notifications"):
        assert ours[key] == theirs[key], key
    listed = ours["ops"][0]["tools"]
    for tool in listed:  # the database's path differs by nature: each side has its own
        if tool["name"] == "server_info":
            assert tool == next(t for t in theirs["ops"][0]["tools"] if t["name"] == "server_info")
    assert ours["ops"][0] == theirs["ops"][0]
    assert [t["name"] for t in listed] == [
        "server_info",
        "add_numbers",
        "multiply_numbers",
        "divide_numbers",
    ]
    add_theirs, add_ours = theirs["ops"][1], ours["ops"][1]
    assert add_theirs["error"].startswith("MCPError: code=0 ")
    assert add_ours["error"].startswith("MCPError: code=-32603 message='Internal error")
    assert "error" in theirs["ops"][2]
    info = ours["ops"][2]["result"]["structuredContent"]
    assert info["name"] == "DynamicToolsServer"
    assert info["database"] == str(launchers[1].parent / "tools.db")


#: What OpenStreetMap's Nominatim answers for the places ``apps/map`` asks about (its default
#: landmarks and one more); any other query finds nothing.
PLACES: dict[str, tuple[str, str, str]] = {
    "Statue of Liberty, New York": ("Statue of Liberty, Liberty Island", "40.6892", "-74.0445"),
    "Golden Gate Bridge, San Francisco": ("Golden Gate Bridge, Presidio", "37.8199", "-122.4783"),
    "Space Needle, Seattle": ("Space Needle, Lower Queen Anne", "47.6205", "-122.3493"),
    "Willis Tower, Chicago": ("Willis Tower, Loop", "41.8789", "-87.6359"),
    "Gateway Arch, St. Louis": ("Gateway Arch, Downtown", "38.6247", "-90.1848"),
    "Tower Bridge, London": ("Tower Bridge, Bermondsey", "51.5055", "-0.0754"),
}

#: Runs ``apps/map`` (``argv[2]``) unchanged with ``httpx2``'s requests to Nominatim sent to
#: the stand-in at ``argv[1]`` instead (the same requests, another address).
_GEOCODED = """import runpy, sys
import httpx2

stand_in = httpx2.URL(sys.argv[1])
original = httpx2.HTTPTransport.handle_request


def handle(self, request):
    if request.url.host == "nominatim.openstreetmap.org":
        request.url = request.url.copy_with(
            scheme=stand_in.scheme, host=stand_in.host, port=stand_in.port
        )
        request.headers["host"] = f"{stand_in.host}:{stand_in.port}"
    return original(self, request)


httpx2.HTTPTransport.handle_request = handle
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_fastmcp_map_example_with_a_stand_in_geocoder(tmp_path: Path) -> None:
    """``apps/map`` (a Prefab app geocoding through Nominatim), unchanged, with a local
    stand-in for Nominatim: the default landmarks mapped, a list with a place no one knows
    (its "Could not find" badge), the same on fastmcp and on mcpkit, and the same requests
    reaching the geocoder from both (they run at once)."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlsplit

    asked: list[tuple[str, dict[str, list[str]], str | None]] = []

    class Nominatim(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            asked.append((parts.path, query, self.headers.get("user-agent")))
            place = PLACES.get(query.get("q", [""])[0])
            found = [{"display_name": place[0], "lat": place[1], "lon": place[2]}] if place else []
            body = json.dumps(found).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Nominatim)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        launcher = tmp_path / "geocoded.py"
        launcher.write_text(_GEOCODED)
        args = [
            str(launcher),
            f"http://127.0.0.1:{server.server_port}",
            str(EXAMPLES / "apps/map/map_server.py"),
        ]
        script = [
            LIST,
            call("show_map"),
            call("show_map", locations=["Tower Bridge, London", "Atlantis"], title="Two", zoom=5),
        ]
        reports = drive_both(
            script,
            [str(peer("fastmcp")), *args],
            [sys.executable, "-m", "mcpkit.compat", *args],
            tmp_path,
        )
    finally:
        server.shutdown()
    theirs, ours = (normalised(r) for r in reports)
    assert_same(theirs, ours)
    # Both sides run at once: each of the seven requests reached the geocoder from each.
    requests = sorted(json.dumps(a, sort_keys=True) for a in asked)
    assert len(requests) == 14 and requests[0::2] == requests[1::2]
    assert (
        "/search",
        {"q": ["Statue of Liberty, New York"], "format": ["json"], "limit": ["1"]},
        "fastmcp-map-example/1.0",
    ) in asked
    mapped = json.dumps(ours["ops"][1]["result"]["structuredContent"])
    assert "5 locations mapped" in mapped and "L.marker([40.6892, -74.0445])" in mapped
    assert "Could not find: Atlantis" in json.dumps(ours["ops"][2]["result"]["structuredContent"])
