"""Servers written for the official SDK (1.x and 2.x, low-level and high-level) and for
fastmcp, run UNCHANGED: once on the package they were written for (its venv under
``.cache/peers``), once on mcpkit with ``python -m mcpkit.compat FILE`` (the import names
``mcp``/``fastmcp`` served by the compat layer). The official Python client drives both
(``drive.py``); what it saw must be equal after normalising what differs by nature (the
SDK's version string in ``serverInfo``). mcpkit's side of each conversation is checked
against the protocol's schema."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import Job, submit
from tests.compat.test_compat import drop_schema_title
from tests.interop.conftest import PEER_SCRIPTS, PEERS_DIR, check_recorded

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
EXAMPLES = HERE / "examples"

PEERS = {
    "mcp1": PEERS_DIR / "mcp1" / "bin" / "python",
    "mcp2": PEERS_DIR / "py" / "bin" / "python",
    "fastmcp": PEERS_DIR / "fastmcp" / "bin" / "python",
}


def peer(name: str) -> Path:
    """A peer's interpreter (fails, never skips, when it is not installed)."""
    python = PEERS[name]
    if not python.exists():
        pytest.fail(f"{python} is missing: run scripts/peers.sh", pytrace=False)
    return python


def start(script: list[Any], command: list[str], tmp: Path, tag: str) -> Job:
    """Start the official client running ``script`` against the stdio ``command`` (in the
    driver of :mod:`tests.compat.driving`; ``tmp`` is the test's folder)."""
    return submit(peer("mcp2"), script, tag, command=command)


def report_of(job: Job, tag: str) -> dict[str, Any]:
    """What the client started by :func:`start` saw."""
    return job.report()


def drive(script: list[Any], command: list[str], tmp: Path, tag: str) -> dict[str, Any]:
    """What the official client saw running ``script`` against the stdio ``command``."""
    return report_of(start(script, command, tmp, tag), tag)


def start_both(script: list[Any], theirs: list[str], ours: list[str], tmp: Path) -> tuple[Job, Job]:
    """:func:`start` on both commands at once."""
    return start(script, theirs, tmp, "theirs"), start(script, ours, tmp, "ours")


def drive_both(
    script: list[Any], theirs: list[str], ours: list[str], tmp: Path
) -> tuple[dict[str, Any], dict[str, Any]]:
    """:func:`drive` on both commands at once."""
    runs = start_both(script, theirs, ours, tmp)
    return report_of(runs[0], "theirs"), report_of(runs[1], "ours")


def selected(request: pytest.FixtureRequest, test: str) -> list[Any]:
    """The ``name`` of each selected run of the parametrized ``test`` of the requesting
    module, in the order they run (for a fixture that starts their conversations early)."""
    return [
        item.callspec.params["name"]
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.module is request.module
        and item.originalname == test
    ]


def normalised(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` without what differs by nature: the server's version string when the
    server names none (each SDK fills in its own)."""
    out = json.loads(json.dumps(report))
    out["serverInfo"].pop("version", None)
    return out


#: The two ways of running a server unchanged on mcpkit.
PYTHON_M = ["-m", "mcpkit.compat"]
MCPKIT_RUN = ["-m", "mcpkit", "run", "--compat"]


def both(
    sdk: str, server: Path, script: list[Any], tmp: Path, *args: str, via: list[str] = PYTHON_M
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reports of the official client on ``server`` run by the ``sdk`` peer and run
    unchanged on mcpkit (``via``: ``python -m mcpkit.compat`` or ``mcpkit run --compat``),
    mcpkit's wire checked."""
    log = tmp / "wire.jsonl"
    recorded = [sys.executable, str(PEER_SCRIPTS / "tee.py"), str(log), "--"]
    theirs, ours = drive_both(
        script,
        [str(peer(sdk)), str(server), *args],
        [*recorded, sys.executable, *via, str(server), *args],
        tmp,
    )
    assert not check_recorded(log).errors
    return normalised(theirs), normalised(ours)


def assert_same(theirs: dict[str, Any], ours: dict[str, Any]) -> None:
    """Every part of what the client saw is equal, op by op (for a readable failure)."""
    for key in ("serverInfo", "capabilities", "instructions"):
        assert ours[key] == theirs[key], key
    assert len(ours["ops"]) == len(theirs["ops"])
    for mine, ref in zip(ours["ops"], theirs["ops"], strict=True):
        what = f"{ref['op']} {ref.get('name') or ref.get('uri') or ''}"
        assert mine == ref, what
    assert ours["notifications"] == theirs["notifications"]
    # The one difference kept on purpose: mcpkit sends an elicitation's restricted form
    # schema without the model's top-level "title" (docs/migration.md).
    assert drop_schema_title(ours["answered"]) == drop_schema_title(theirs["answered"])


LOWLEVEL_V1_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "add-note", "args": {"name": "third", "content": "!"}},
    {"op": "call", "name": "add-note", "args": {"name": "fourth"}},
    {"op": "call", "name": "stats"},
    {"op": "call", "name": "bad-stats"},
    {"op": "call", "name": "both"},
    {"op": "call", "name": "picture"},
    {"op": "call", "name": "direct"},
    {"op": "call", "name": "slow"},
    {"op": "call", "name": "protocol-error"},
    {"op": "call", "name": "boom"},
    {"op": "call", "name": "unknown-tool"},
    {"op": "read", "uri": "note://internal/first"},
    {"op": "read", "uri": "note://internal/third"},
    {"op": "read", "uri": "data://pixel"},
    {"op": "read", "uri": "note://internal/missing"},
    {"op": "get", "name": "summarize", "args": {"style": "long"}},
    {"op": "get", "name": "nope"},
    {
        "op": "complete",
        "ref": {"type": "ref/prompt", "name": "summarize"},
        "argument": {"name": "style", "value": "b"},
    },
    {"op": "list"},
]


def test_lowlevel_1x_decorators(tmp_path: Path) -> None:
    """The 1.x low-level server: decorators, ``request_context``, ``stdio_server`` and
    ``InitializationOptions``; input and output validation, every result form, errors."""
    theirs, ours = both("mcp1", SERVERS / "lowlevel_v1.py", LOWLEVEL_V1_SCRIPT, tmp_path)
    assert_same(theirs, ours)
    assert ours["capabilities"]["resources"] == {"subscribe": False, "listChanged": True}
    ops = ours["ops"]
    assert ops[2]["result"]["content"][0]["text"].startswith("Input validation error:")
    assert ops[4]["result"]["content"][0]["text"].startswith("Output validation error:")
    assert ops[8]["progress"] == [[1, 2, "step 1"], [2, 2, "step 2"]]
    assert ops[9]["result"]["content"][0]["text"] == "refused here"
    assert ours["notifications"] == ["notifications/resources/list_changed"]


LOWLEVEL_V2_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "convert", "args": {"value": 100}},
    {"op": "call", "name": "log"},
    {"op": "call", "name": "crash"},
    {"op": "call", "name": "other"},
    {"op": "read", "uri": "memo://today"},
    {"op": "read", "uri": "memo://tomorrow"},
    {"op": "get", "name": "greet", "args": {"who": "Ada"}},
    {
        "op": "complete",
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "who", "value": "A"},
    },
]


def test_lowlevel_2x_constructor_handlers(tmp_path: Path) -> None:
    """The 2.x low-level server: ``on_*`` handlers taking ``(ctx, params)``, the lifespan's
    state in ``ctx.lifespan_context``, ``create_initialization_options()``; a handler's
    crash is the JSON-RPC error the SDK answers in the handshake era (code 0, its text); a
    method with no handler is not found."""
    theirs, ours = both(
        "mcp2", SERVERS / "lowlevel_v2.py", LOWLEVEL_V2_SCRIPT, tmp_path, via=MCPKIT_RUN
    )
    assert_same(theirs, ours)
    assert "code=0 message='secret detail'" in ours["ops"][3]["error"]  # as 2.x answers it
    assert "completions" not in ours["capabilities"]


FASTMCP_V1_SCRIPT: list[dict[str, Any]] = [
    {"op": "list"},
    {"op": "call", "name": "add", "args": {"a": 2, "b": 3}},
    {"op": "call", "name": "weather", "args": {"city": "Oslo"}},
    {"op": "call", "name": "point", "args": {"x": 4}},
    {"op": "call", "name": "plain_class", "args": {"name": "abc"}},
    {"op": "call", "name": "typed_dict_return"},
    {"op": "call", "name": "bare_dict"},
    {"op": "call", "name": "builtin_dict"},
    {"op": "call", "name": "text", "args": {"value": "ab"}},
    {"op": "call", "name": "direct"},
    {"op": "call", "name": "picture"},
    {"op": "call", "name": "refuse"},
    {"op": "call", "name": "crash", "args": {"n": 7}},
    {"op": "call", "name": "work", "args": {"steps": 2}},
    {"op": "read", "uri": "config://app"},
    {"op": "read", "uri": "data://numbers"},
    {"op": "read", "uri": "users://42/profile"},
    {"op": "get", "name": "review", "args": {"code": "x = 1"}},
    {"op": "get", "name": "debug_error", "args": {"error": "KeyError"}},
    {"op": "get", "name": "plan", "args": {"days": "x"}},
    {"op": "get", "name": "plan", "args": {"days": "3", "extra": "1"}},
    {"op": "get", "name": "plan", "args": {"days": "3", "style": "long"}},
    {"op": "call", "name": "no_such_tool"},
]


def test_fastmcp_1x_import_path(tmp_path: Path) -> None:
    """``mcp.server.fastmcp.FastMCP`` (1.x): output schemas of every annotation kind
    (``typing.Dict`` wrapped, a bare ``dict`` without one, a plain annotated class),
    docstrings sent as written, 1.x's error texts (the message shown for any exception),
    ``Context[ServerSession, State, Any]``, resources, templates and prompts."""
    theirs, ours = both("mcp1", SERVERS / "fastmcp_v1.py", FASTMCP_V1_SCRIPT, tmp_path)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert "outputSchema" not in tools["bare_dict"]
    assert tools["typed_dict_return"]["outputSchema"]["required"] == ["result"]
    assert tools["add"]["description"].startswith("Add two numbers.\n\n    Args:")
    assert (
        ours["ops"][12]["result"]["content"][0]["text"] == "Error executing tool crash: 'missing 7'"
    )
    refused, extra, planned = ours["ops"][-4:-1]
    assert refused["error"].startswith(
        'MCPError: code=0 message="Error rendering prompt plan: 1 validation error for plan'
        "\\ndays\\n  Input should be a valid integer"
    )
    assert "extra\\n  Unexpected keyword argument" in extra["error"]
    assert "Plan 4 days, long." in json.dumps(planned)
    unknown = ours["ops"][-1]["result"]  # an error result, not a JSON-RPC error
    assert unknown["isError"] and unknown["content"][0]["text"] == "Unknown tool: no_such_tool"


def test_mcpserver_2x_unchanged(tmp_path: Path) -> None:
    """The 2.x ``MCPServer`` server of the rewritten-imports test, run unchanged; a call of
    an unknown tool is an error result there too."""
    from tests.compat.test_compat import CORE_SCRIPT

    script = [*CORE_SCRIPT, {"op": "call", "name": "no_such_tool"}]
    theirs, ours = both("mcp2", SERVERS / "official_core.py", script, tmp_path)
    assert_same(theirs, ours)
    assert ours["ops"][-1]["result"]["content"][0]["text"] == "Unknown tool: no_such_tool"


def test_fastmcp_unchanged(tmp_path: Path) -> None:
    """The fastmcp server of the rewritten-imports test, run unchanged."""
    from tests.compat.test_compat import FASTMCP_SCRIPT

    theirs, ours = both("fastmcp", SERVERS / "fastmcp_app.py", FASTMCP_SCRIPT, tmp_path)
    assert_same(theirs, ours)


def test_fastmcp_docstrings_and_titles(tmp_path: Path) -> None:
    """fastmcp moves a docstring's parameter sections (Google, NumPy, Sphinx) into the
    parameters' descriptions, keeps the text before them as the description, and takes a
    tool's title from its annotations."""
    script: list[dict[str, Any]] = [{"op": "list"}]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_docstrings.py", script, tmp_path)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    assert tools["google"]["inputSchema"]["properties"]["days"]["description"] == "How many days."
    assert tools["numpy_style"]["title"] == "Annotated Title"


def test_fastmcp_schemas_and_unknown_tools(tmp_path: Path) -> None:
    """fastmcp's schemas: generated ones without pydantic's titles (a property named
    ``title`` and a default holding one kept), a schema handed over kept as written, both
    with their references inlined (a recursive model keeps its ``$defs``); a call of an
    unknown tool is an error result; ``mcp.shared.message``'s classes."""
    script: list[dict[str, Any]] = [
        {"op": "list"},
        {
            "op": "call",
            "name": "plan",
            "args": {"trip": {"title": "t", "stops": []}, "start": {"title": "Oslo"}},
        },
        {"op": "call", "name": "given", "args": {"name": "g"}},
        {"op": "call", "name": "places", "args": {"n": 2}},
        {"op": "call", "name": "tree", "args": {"depth": 2}},
        {"op": "call", "name": "related", "args": {"request": 7}},
        {"op": "call", "name": "either", "args": {"as_text": True}},
        {"op": "call", "name": "either", "args": {"as_text": False}},
        {"op": "call", "name": "no_such_tool"},
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_schemas.py", script, tmp_path)
    assert_same(theirs, ours)
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    plan = tools["plan"]
    assert "$defs" not in plan["inputSchema"] and "$defs" not in plan["outputSchema"]
    assert "title" not in plan["inputSchema"]["properties"]["start"]
    assert plan["outputSchema"]["properties"]["note"]["default"] == {"title": "kept"}
    assert tools["given"]["outputSchema"]["title"] == "Trip"  # as handed over
    assert "$defs" in tools["tree"]["outputSchema"]
    assert ours["ops"][5]["result"]["structuredContent"] == {"related": 7, "sends": True}
    assert tools["either"]["outputSchema"]["x-fastmcp-wrap-result"] is True  # str in a union
    assert ours["ops"][6]["result"]["structuredContent"] == {"result": "plain"}
    assert ours["ops"][-1]["result"]["content"][0]["text"] == "Unknown tool: 'no_such_tool'"


def test_fastmcp_mount_namespaces(tmp_path: Path) -> None:
    """fastmcp's ``mount(server, namespace=...)``: the same names, URIs, templates and
    titles listed, and calls, reads and prompts reaching the mounted servers (nested too);
    fastmcp's texts for an unknown tool or prompt, missing prompt arguments and a resource
    nothing serves (-32602 in both eras)."""
    script: list[dict[str, Any]] = [
        {"op": "list"},
        {"op": "call", "name": "status"},
        {"op": "call", "name": "weather_forecast", "args": {"city": "Oslo"}},
        {"op": "call", "name": "weather_now_conditions"},
        {"op": "call", "name": "weather_deep_echo", "args": {"text": "hi"}},
        {"op": "call", "name": "plain_ping"},
        {"op": "call", "name": "forecast", "args": {"city": "Oslo"}},
        {"op": "read", "uri": "weather://weather/stations"},
        {"op": "read", "uri": "weather://weather/Oslo/report"},
        {"op": "read", "uri": "notes://weather/deep/todo"},
        {"op": "get", "name": "weather_brief", "args": {"city": "Oslo"}},
        {"op": "get", "name": "weather_nope"},
        {"op": "get", "name": "weather_brief"},
        {"op": "read", "uri": "weather://weather/nowhere/at/all"},
        {"op": "read", "uri": "zzz://nowhere"},
        {"op": "call", "name": "weather_nope"},
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_mount.py", script, tmp_path)
    assert_same(theirs, ours)
    assert [t["name"] for t in ours["ops"][0]["tools"]] == [
        "status",
        "weather_forecast",
        "weather_now_conditions",
        "weather_deep_echo",
        "plain_ping",
    ]
    assert ours["ops"][6]["result"]["isError"]  # the mounted name only


def test_fastmcp_mount_renames_tools(tmp_path: Path) -> None:
    """fastmcp's ``mount(..., tool_names={old: new})``: the same names and titles listed,
    the new names called, the old ones unknown (namespaced or not), a prompt of the same
    name as a renamed tool untouched."""
    script: list[dict[str, Any]] = [
        {"op": "list"},
        {"op": "call", "name": "weather_tomorrow", "args": {"city": "Oslo"}},
        {"op": "call", "name": "weather_now"},
        {"op": "call", "name": "weather_alerts"},
        {"op": "call", "name": "plain_ping"},
        {"op": "call", "name": "status_of", "args": {"name": "db"}},
        {"op": "get", "name": "weather_forecast", "args": {"city": "Oslo"}},
        {"op": "call", "name": "weather_forecast", "args": {"city": "Oslo"}},
        {"op": "call", "name": "weather_now_conditions"},
        {"op": "call", "name": "ping"},
        {"op": "call", "name": "forecast", "args": {"city": "Oslo"}},
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_mount_renamed.py", script, tmp_path)
    assert_same(theirs, ours)
    tools = ours["ops"][0]["tools"]
    assert [(t["name"], t.get("title")) for t in tools] == [
        ("status", "Status"),
        ("weather_tomorrow", "Weather Tomorrow"),
        ("weather_now", "Current conditions"),
        ("weather_alerts", "Weather Alerts"),
        ("status_of", "Status Of"),
        ("plain_ping", "Plain Ping"),
    ]
    assert [op["result"]["isError"] for op in ours["ops"][7:]] == [True] * 4


@pytest.mark.parametrize("kind", ["regex", "bm25"])
def test_fastmcp_search_transforms(kind: str, tmp_path: Path) -> None:
    """fastmcp's ``RegexSearchTransform`` and ``BM25SearchTransform``: the same list (the
    pinned tool, the search tool, the proxy), the same tools found in the same order for
    each query, the proxy calling them, the pinned and the unlisted tools called by name."""
    arg = "pattern" if kind == "regex" else "query"
    queries = (
        ["weather|email", "NUMBERS", "(", "nothing_like_this", "a"]
        if kind == "regex"
        else ["weather forecast for a city", "multiply numbers", "email", "zzz", "files"]
    )
    script: list[dict[str, Any]] = [{"op": "list"}]
    script += [{"op": "call", "name": "search_tools", "args": {arg: q}} for q in queries]
    script += [
        {"op": "call", "name": "call_tool", "args": {"name": "add", "arguments": {"a": 2, "b": 3}}},
        {
            "op": "call",
            "name": "call_tool",
            "args": {"name": "get_weather", "arguments": {"city": "Oslo"}},
        },
        {"op": "call", "name": "call_tool", "args": {"name": "help"}},
        {"op": "call", "name": "multiply", "args": {"x": 2, "y": 4}},
        {"op": "call", "name": "help"},
    ]
    failing: list[dict[str, Any]] = [
        {"op": "call", "name": "call_tool", "args": {"name": "nope"}},
        {"op": "call", "name": "call_tool", "args": {"name": "search_tools"}},
        {"op": "call", "name": "call_tool", "args": {"name": "add", "arguments": {"a": "x"}}},
    ]
    args = ["bm25"] if kind == "bm25" else []
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_search.py", script + failing, tmp_path, *args)
    assert_same(theirs, ours)
    listed = [t["name"] for t in ours["ops"][0]["tools"]]
    assert listed == ["help", "search_tools", "call_tool"]
    ops = ours["ops"]
    assert not any(op["result"].get("isError") for op in ops[1 : len(script)])
    assert all(op["result"].get("isError") for op in ops[len(script) :])
    found = [op["result"]["structuredContent"]["result"] for op in ops[1 : len(queries) + 1]]
    assert found[0][0]["name"] == "get_weather"  # found first, in either kind
    assert found[3] == []  # nothing matches


def _code(name: str, code: str) -> dict[str, Any]:
    return {"op": "call", "name": name, "args": {"code": code}}


CODE_MODE: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "options": (
        [
            {"op": "list"},
            {"op": "call", "name": "search", "args": {"query": "weather forecast"}},
            {"op": "call", "name": "search", "args": {"query": "numbers", "tags": ["math"]}},
            {
                "op": "call",
                "name": "search",
                "args": {"query": "text", "tags": ["untagged"], "detail": "brief"},
            },
            {"op": "call", "name": "search", "args": {"query": "add", "detail": "full"}},
            {"op": "call", "name": "search", "args": {"query": "a", "limit": -1}},
            {"op": "call", "name": "search", "args": {"query": "zzz", "limit": None}},
            {"op": "call", "name": "schemas", "args": {"tools": ["add", "get_weather", "nope"]}},
            {"op": "call", "name": "schemas", "args": {"tools": ["nope"]}},
            {"op": "call", "name": "schemas", "args": {"tools": ["mean"], "detail": "brief"}},
            {"op": "call", "name": "tags", "args": {}},
            {"op": "call", "name": "tags", "args": {"detail": "full"}},
            {"op": "call", "name": "list_tools", "args": {}},
            {"op": "call", "name": "list_tools", "args": {"detail": "detailed"}},
            _code(
                "run_code",
                "w = await call_tool('get_weather', {'city': 'Oslo'})\n"
                "m = await call_tool('mean', {'values': [w['high'], 1]})\n"
                "s = await call_tool('shout', {'text': w['sky']})\n"
                "return [w, m, s]",
            ),
            _code(
                "run_code",
                "try:\n    await call_tool('fail', {'reason': 'no'})\n"
                "except Exception as e:\n    return str(e)",
            ),
            _code("run_code", "x = 6 * 7"),
            _code("run_code", "return await call_tool('picture', {})"),
            _code("run_code", "return 'done'"),
            {"op": "call", "name": "add", "args": {"a": 1, "b": 2}},
        ],
        [
            _code("run_code", "for i in range(4):\n    await call_tool('add', {'a': i, 'b': 1})"),
            _code("run_code", "return await call_tool('secret', {})"),
            _code("run_code", "return await call_tool('fail', {'reason': 'why'})"),
            _code("run_code", "return await call_tool('add', {'a': 1, 'b': 2, 'c': 3})"),
            _code("run_code", "return await call_tool('get_weather', {'city': 3})"),
            _code("run_code", "return undefined_name"),
            {"op": "call", "name": "secret", "args": {}},
            {"op": "call", "name": "execute", "args": {"code": "return 1"}},
        ],
    ),
    "limits": (
        [{"op": "list"}, _code("execute", "return await call_tool('add', {'a': 1, 'b': 1})")],
        [
            _code("execute", "while True:\n    pass"),
            _code("execute", "x = [0] * 50_000_000\nreturn len(x)"),
            _code("execute", "def f(n):\n    return f(n + 1)\nreturn f(0)"),
            _code("execute", "return await call_tool('slow', {})"),
        ],
    ),
    "badlimits": ([{"op": "list"}], [_code("execute", "return 1")]),
}


@pytest.mark.parametrize("variant", sorted(CODE_MODE))
def test_fastmcp_code_mode(variant: str, tmp_path: Path) -> None:
    """fastmcp's ``CodeMode`` with its options: the same discovery tools, texts, sandbox
    results and errors (limits, timeouts, refused and failing calls) on both."""
    passing, failing = CODE_MODE[variant]
    theirs, ours = both(
        "fastmcp", SERVERS / "fastmcp_code_mode.py", passing + failing, tmp_path, variant
    )
    assert_same(theirs, ours)
    ops = ours["ops"]
    assert not any(op.get("result", {}).get("isError") for op in ops[1 : len(passing)])
    assert all("error" in op or op.get("result", {}).get("isError") for op in ops[len(passing) :])


def test_fastmcp_component_versions(tmp_path: Path) -> None:
    """fastmcp's ``version=`` on a tool, prompt, resource and template (one version each;
    several: test_fastmcp_versions.py): listed with the same ``_meta.fastmcp`` and served
    the same way."""
    script: list[dict[str, Any]] = [
        {"op": "list"},
        {"op": "call", "name": "calc", "args": {"a": 1, "b": 2}},
        {"op": "call", "name": "lookup", "args": {"key": "k"}},
        {"op": "get", "name": "greet", "args": {"name": "Ada"}},
        {"op": "read", "uri": "config://app"},
        {"op": "read", "uri": "users://7"},
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_versions.py", script, tmp_path)
    assert_same(theirs, ours)
    tools = {t["name"]: t["_meta"]["fastmcp"] for t in ours["ops"][0]["tools"]}
    assert tools["calc"] == {"versions": ["2.0"], "tags": ["math"], "version": "2.0"}
    assert tools["plain"] == {"tags": []}


def test_fastmcp_elicitation_shorthands(tmp_path: Path) -> None:
    """fastmcp's ``ctx.elicit(message, response_type=...)`` with a scalar, a list of
    choices, several choices and a dataclass: the same requests reach the client."""
    answers = {"as_text": "Ada", "pick": "red", "several": ["red", "green"], "number": 3}
    script = [
        {"op": "call", "name": name, "answer": {"value": value}} for name, value in answers.items()
    ]
    script += [
        {"op": "call", "name": "person"},  # answered {"name": "Ada", "age": 36}
        {"op": "call", "name": "number", "answer": {"value": "many"}},  # refused by its type
    ]
    theirs, ours = both("fastmcp", SERVERS / "fastmcp_elicit.py", script, tmp_path)
    assert drop_schema_title(ours["answered"]) == drop_schema_title(theirs["answered"])
    assert ours["ops"] == theirs["ops"]
    texts = [op["result"]["content"][0]["text"] for op in ours["ops"][:4]]
    assert texts == ["accept 'Ada'", "accept 'red'", "accept ['red', 'green']", "accept 3"]


#: Calls whose arguments hold extra keys inside nested types: accepted by every SDK.
NESTED_CALLS: list[dict[str, Any]] = [
    {"op": "list"},
    {
        "op": "call",
        "name": "typed_dict",
        "args": {"answer": {"text": "a", "inner": {"x": 1, "y": 2}, "extra": True}},
    },
    {
        "op": "call",
        "name": "typed_dicts",
        "args": {
            "answers": [{"text": "a", "inner": {"x": 1, "z": 0}, "more": 1}],
            "by_name": {"k": {"text": "b", "inner": {"x": 2}, "w": 3}},
        },
    },
    {
        "op": "call",
        "name": "dataclass_arg",
        "args": {"pin": {"label": "p", "spot": {"x": 1, "y": 2}, "extra": 1}},
    },
    {
        "op": "call",
        "name": "dataclasses_arg",
        "args": {
            "pins": [{"label": "p", "spot": {"x": 1, "y": 2}, "e": 1}],
            "by_name": {"k": {"label": "q", "spot": {"x": 3}, "f": 2}},
        },
    },
    {
        "op": "call",
        "name": "models",
        "args": {
            "plain": {"name": "p", "answer": {"text": "t", "inner": {"x": 1, "q": 1}, "r": 2}},
            "closed": {"name": "c"},
            "open": {"name": "o", "kept": 1},
        },
    },
    {
        "op": "call",
        "name": "model_lists",
        "args": {"plains": [{"name": "p", "z": 1}], "opens": {"k": {"name": "o", "kept": [1]}}},
    },
    {
        "op": "call",
        "name": "optional_answer",
        "args": {"answer": {"text": "a", "inner": {"x": 1, "y": 2}, "e": 1}},
    },
]

#: Refused calls: extra keys in a model with ``extra="forbid"``, a field missing in a
#: nested TypedDict (named alone, its extra key not), an unknown top-level argument.
NESTED_REFUSED: list[dict[str, Any]] = [
    {
        "op": "call",
        "name": "models",
        "args": {"plain": {"name": "p"}, "closed": {"name": "c", "nope": 1}, "open": {"name": "o"}},
    },
    {"op": "call", "name": "typed_dict", "args": {"answer": {"text": "a", "inner": {"y": 2}}}},
    {
        "op": "call",
        "name": "typed_dict",
        "args": {"answer": {"text": "a", "inner": {"x": 1}}, "unknown": 1},
    },
]


@pytest.mark.parametrize("sdk", ["mcp1", "mcp2", "fastmcp"])
def test_nested_argument_types_keep_their_own_rules(sdk: str, tmp_path: Path) -> None:
    """TypedDicts, dataclasses and pydantic models nested in a tool's arguments (alone, in
    lists and in dicts) are listed and validated by their own rules: the same schemas (no
    ``additionalProperties`` inside but where a model sets its ``extra``) and the same
    results, extra keys dropped where the SDK drops them."""
    server = SERVERS / "nested_arguments.py"
    theirs, ours = both(sdk, server, NESTED_CALLS + NESTED_REFUSED, tmp_path, sdk)
    assert_same(theirs, ours)
    refused = ours["ops"][len(NESTED_CALLS) :]
    if sdk == "fastmcp":
        assert [op["result"]["isError"] for op in refused] == [True, True, True]
    else:  # the official SDK drops an unknown top-level argument
        assert [op["result"]["isError"] for op in refused] == [True, True, False]
        assert refused[0]["result"]["content"][0]["text"].startswith(
            "Error executing tool models: 1 validation error for modelsArguments\nclosed.nope\n"
        )
    tools = {t["name"]: t for t in ours["ops"][0]["tools"]}
    answer = tools["typed_dict"]["inputSchema"]
    if sdk == "fastmcp":
        assert "additionalProperties" not in answer["properties"]["answer"]
    else:
        assert "additionalProperties" not in answer["$defs"]["Answer"]
    assert ours["ops"][1]["result"]["content"][0]["text"] == "{'text': 'a', 'inner': {'x': 1}}"
