"""The official SDK's 2026-07-28 stories and snippets on multi round-trip results
(``mcp.server.request_state``), ``subscriptions/listen`` (``mcp.server.subscriptions``) and
in-flight notifications (``stories/streaming``), run unchanged on mcpkit and on mcp 2.x
(``examples/NOTICE``):

- each story's own client (``stories/<name>/client.py``, which asserts what it sees: the
  auto-loop and the manual loop of an ``InputRequiredResult``, a tampered ``requestState``
  refused, a listen stream's acknowledgment, filter and events, progress and logs in
  order, a call cancelled in flight) passes against the story's servers served over
  Streamable HTTP by either side;
- each story server, driven over stdio on 2026-07-28 by the official client, answers alike
  (listings, calls, the input requests answered, notifications).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import submit, warmed
from tests.compat.test_compat import free_port, serve
from tests.compat.test_unchanged import assert_same, peer
from tests.interop.conftest import PEER_SCRIPTS

EXAMPLES = Path(__file__).resolve().parent / "examples" / "official_v2"
MODERN = "2026-07-28"

#: (story, server module, the client's era flag): every leg the SDK's own story matrix runs
#: over HTTP (streaming is a story of both eras).
LEGS = [
    (story, server, era)
    for story in ("mrtr", "subscriptions", "streaming")
    for server in ("server", "server_lowlevel")
    for era in (("modern", "legacy") if story == "streaming" else ("modern",))
]


@pytest.fixture
def stories_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stories import their scaffold as ``stories._hosting`` / ``stories._harness``."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(EXAMPLES), *sys.path]))


def run_story_client(story: str, url: str, era: str) -> subprocess.CompletedProcess[str]:
    """The story's own client (the official SDK's) against ``url``."""
    legacy = ["--legacy"] if era == "legacy" else []
    command = [str(peer("mcp2")), "-m", f"stories.{story}.client", "--http", url, *legacy]
    return subprocess.run(warmed(command), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("story", "server", "era"), LEGS, ids=["-".join(leg) for leg in LEGS])
@pytest.mark.usefixtures("stories_path")
def test_story_client_passes_on_both(story: str, server: str, era: str) -> None:
    path = EXAMPLES / "stories" / story / f"{server}.py"
    sides = {
        "theirs": [str(peer("mcp2")), "-m", f"stories.{story}.{server}", "--http", "--port"],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(path), "--http", "--port"],
    }
    for side, argv in sides.items():
        port = free_port()
        proc = serve(argv, port)
        try:
            done = run_story_client(story, f"http://127.0.0.1:{port}/mcp", era)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        assert done.returncode == 0, f"{side}: {done.stderr[-3000:]}"
        assert f"OK: {story} (http/{era})" in done.stderr, side


#: What each story's server is asked over stdio on 2026-07-28 (the same on both sides).
SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "mrtr": [
        {"op": "call", "name": "deploy", "args": {"env": "prod"}, "answer": {"confirm": True}},
        {"op": "call", "name": "deploy", "args": {"env": "dev"}, "answer": {"confirm": False}},
    ],
    "subscriptions": [
        {"op": "call", "name": "edit_note", "args": {"name": "todo", "text": "water plants"}},
        {"op": "read", "uri": "note://todo"},
        {"op": "call", "name": "enable_search", "args": {}},
        {"op": "call", "name": "search", "args": {"query": "water"}},
    ],
    "streaming": [{"op": "call", "name": "countdown", "args": {"steps": 5}}],
}


def _unversioned(value: Any) -> Any:
    """``value`` without the server's version string (each SDK fills in its own)."""
    if isinstance(value, dict):
        return {
            k: (
                {**v, "version": ""}
                if k == "io.modelcontextprotocol/serverInfo" and isinstance(v, dict)
                else _unversioned(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_unversioned(v) for v in value]
    return value


def modern_reports(
    path: Path, script: list[dict[str, Any]], *args: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The official client's reports of ``path`` served over stdio on 2026-07-28 by mcp 2.x
    and by mcpkit."""
    python = peer("mcp2")
    theirs = submit(python, script, "theirs", command=[str(python), str(path), *args], mode=MODERN)
    ours = submit(
        python,
        script,
        "ours",
        command=[sys.executable, "-m", "mcpkit.compat", str(path), *args],
        mode=MODERN,
    )
    return _unversioned(theirs.report()), _unversioned(ours.report())


@pytest.mark.parametrize("story", sorted(SCRIPTS))
@pytest.mark.parametrize("server", ["server", "server_lowlevel"])
@pytest.mark.usefixtures("stories_path")
def test_story_server_on_the_stateless_wire(story: str, server: str) -> None:
    path = EXAMPLES / "stories" / story / f"{server}.py"
    # The listing of the MCPServer stories too (the low-level servers serve tools alone: a
    # listing would ask for the rest; subscriptions' template is read by the script).
    listed = server == "server" and story != "subscriptions"
    listing = [{"op": "everything", "skip": sorted(_tool_names(story))}] if listed else []
    theirs, ours = modern_reports(path, [*listing, *SCRIPTS[story]])
    if story == "streaming":
        # The official client runs each notification's callback in a task of its own: which
        # op a log or progress is counted under depends on the load, not on the server (the
        # wire's order is compared by test_streaming_notifications_precede_the_result).
        seen = [(op.pop("logs"), op.pop("progress")) for r in (theirs, ours) for op in r["ops"]]
        assert sum(len(logs) + len(progress) for logs, progress in seen) > 0
    assert_same(theirs, ours)
    results = [op["result"] for op in ours["ops"] if op["op"] == "call"]
    if story == "mrtr":  # the confirmation asked as an input request, answered each time
        assert results[0]["content"][0]["text"] == "deployed to prod"
        assert results[1]["content"][0]["text"] == "deployment to dev cancelled"
        assert [a["elicitation"]["message"] for a in ours["answered"]] == [
            "Deploy to prod?",
            "Deploy to dev?",
        ]
    elif story == "subscriptions":
        assert results[-1]["content"][0]["text"] == "todo"
    else:
        assert results[-1]["structuredContent"] == {"completed": 5, "total": 5}


#: The streaming story's countdown, long enough for its notifications to crowd its result.
STEPS = 200


def _server_frames(log: Path) -> list[dict[str, Any]]:
    """What the server wrote, in order, as recorded by ``tee.py``."""
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    return [e["msg"] for e in entries if e["dir"] == "s2c" and "msg" in e]


def _answered_after(frames: list[dict[str, Any]], rid: Any) -> list[str]:
    """The methods of the frames written for request ``rid`` before its response, in order
    (a progress notification names its request by the token the client gave: the id)."""
    out: list[str] = []
    for frame in frames:
        if frame.get("id") == rid and "method" not in frame:
            return out
        if frame.get("method") in ("notifications/message", "notifications/progress"):
            out.append(frame["method"])
    raise AssertionError(f"no response to {rid}")


@pytest.mark.parametrize("mode", ["legacy", MODERN])
@pytest.mark.parametrize("server", ["server", "server_lowlevel"])
@pytest.mark.usefixtures("stories_path")
def test_streaming_notifications_precede_the_result(mode: str, server: str, tmp_path: Path) -> None:
    """What the countdown sends before it returns (a progress notification and a log line
    per step) is written before its result, on mcp 2.x and on mcpkit alike: the SDK awaits
    each notification's write before the handler goes on, so the wire keeps the order. (Its
    client hands each notification to a task of its own, so a callback may still run after
    the call returned: the client-side order is no guarantee, the wire's is.)"""
    path = EXAMPLES / "stories" / "streaming" / f"{server}.py"
    script = [{"op": "call", "name": "countdown", "args": {"steps": STEPS}}] * 3
    python = peer("mcp2")
    logs = {side: tmp_path / f"{side}.jsonl" for side in ("theirs", "ours")}
    inner = {
        "theirs": [str(python), str(path)],
        "ours": [sys.executable, "-m", "mcpkit.compat", str(path)],
    }
    jobs = {
        side: submit(
            python,
            script,
            side,
            command=[sys.executable, str(PEER_SCRIPTS / "tee.py"), str(logs[side]), "--", *cmd],
            mode=mode,
        )
        for side, cmd in inner.items()
    }
    for side, job in jobs.items():
        report = job.report()
        frames = _server_frames(logs[side])
        calls = [f for f in frames if "result" in f and "structuredContent" in f["result"]]
        assert len(calls) == 3, side
        for k, call in enumerate(calls, 1):
            # each call's notifications all before its result (the calls run one at a time)
            sent = _answered_after(frames, call["id"])
            assert sent.count("notifications/message") == k * STEPS, (side, k)
            assert sent.count("notifications/progress") == k * STEPS, (side, k)
        assert all("error" not in op for op in report["ops"]), side


def _tool_names(story: str) -> set[str]:
    """The story's tools its script calls itself (the listing's calls would repeat them)."""
    return {op["name"] for op in SCRIPTS[story] if op["op"] == "call"}


#: The documentation's servers (docs_src/mrtr, docs_src/subscriptions) and what each is
#: asked over stdio on 2026-07-28.
SNIPPETS: dict[str, list[dict[str, Any]]] = {
    "mrtr/tutorial001.py": [
        {"op": "everything", "skip": ["provision"]},
        {"op": "call", "name": "provision", "args": {"name": "orders"}, "answer": {"region": "eu"}},
    ],
    "mrtr/tutorial004.py": [
        {"op": "list"},
        {"op": "get", "name": "briefing", "answer": {"audience": "the board"}},
        {"op": "get", "name": "briefing", "answer": {"who": "nobody"}},
    ],
    "mrtr/tutorial005.py": [{"op": "everything", "skip": []}],
    "subscriptions/tutorial001.py": [
        {"op": "call", "name": "complete_task", "args": {"board": "sprint", "task": "design"}},
        {"op": "read", "uri": "board://sprint"},
        {"op": "call", "name": "enable_reports", "args": {}},
        {"op": "call", "name": "sprint_report", "args": {}},
    ],
    "subscriptions/tutorial002.py": [
        {"op": "call", "name": "complete_task", "args": {"task": "design"}},
        {"op": "read", "uri": "board://sprint"},
    ],
    "subscriptions/tutorial006.py": [
        {"op": "read", "uri": "files://report.pdf"},
        {"op": "read", "uri": "files://payroll.csv"},
    ],
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_documentation_server_on_the_stateless_wire(name: str, tmp_path: Path) -> None:
    from tests.compat.test_examples_official import commands

    path = EXAMPLES / "docs_src" / name
    theirs_cmd, ours_cmd = commands(path, tmp_path, by_object=True)
    python = peer("mcp2")
    script = SNIPPETS[name]
    jobs = (
        submit(python, script, "theirs", command=[str(python), *theirs_cmd], mode=MODERN),
        submit(
            python,
            script,
            "ours",
            command=[sys.executable, "-m", "mcpkit.compat", *ours_cmd],
            mode=MODERN,
        ),
    )
    theirs, ours = (_unversioned(job.report()) for job in jobs)
    assert_same(theirs, ours)
    if name == "mrtr/tutorial001.py":
        assert ours["ops"][-1]["result"]["content"][0]["text"] == "Provisioned 'orders' in eu."
    if name == "subscriptions/tutorial001.py":
        assert ours["ops"][-1]["result"]["content"][0]["text"] == "1 task(s) done"
    if name == "mrtr/tutorial004.py":  # the audience asked as an input request, then used
        briefed, failed = ours["ops"][1:]
        assert briefed["result"]["messages"][0]["content"]["text"] == (
            "Write a briefing for the board."
        )
        assert [a["elicitation"]["message"] for a in ours["answered"]] == [
            "Who is the briefing for?"
        ] * 2
        # an answer without the audience fails the prompt (KeyError): 2.x's internal error
        assert "code=-32603 message='Internal server error'" in failed["error"]
