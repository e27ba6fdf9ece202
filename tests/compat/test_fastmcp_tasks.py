"""fastmcp's background tasks (fastmcp_tasks' ``TasksExtension``, ``task=True`` /
``TaskConfig``, ``Progress``) on mcpkit, compared with fastmcp 4.1.4 + fastmcp-tasks 4.1.4
over the 2026-07-28 Streamable HTTP wire: each server runs on both, driven by
tests/compat/tasks_drive.py (raw requests declaring the tasks extension as fastmcp_tasks'
client does). Only task ids, timestamps and version strings are normalised."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.compat.driving import warmed
from tests.compat.test_compat import free_port
from tests.compat.test_unchanged import SERVERS

HERE = Path(__file__).parent
EXAMPLES = HERE / "examples" / "fastmcp"
TASKS_PEER = HERE.parents[1] / ".cache" / "peers" / "fastmcp-tasks" / "bin" / "python"
TASKS = "io.modelcontextprotocol/tasks"


def normalised(value: Any) -> Any:
    """``value`` with task ids (and the input request keys minted from them:
    ``<task id>:<16 hex digits>``), timestamps and version strings replaced."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if re.fullmatch(r"[\w-]+:[0-9a-f]{16}", key):
                key = "<task id>:<key>"
            if key == "taskId" and isinstance(item, str):
                out[key] = "<id>"
            elif key in ("createdAt", "lastUpdatedAt") and isinstance(item, str):
                out[key] = "<time>"
            elif key == "version" and isinstance(item, str):
                out[key] = "<version>"
            else:
                out[key] = normalised(item)
        return out
    if isinstance(value, list):
        return [normalised(item) for item in value]
    return value


def serve(argv: list[str], port: int, log: Path) -> subprocess.Popen[bytes]:
    """``argv PORT`` started, its output in ``log``, once it listens."""
    with log.open("wb") as out:
        proc = subprocess.Popen(warmed([*argv, str(port)]), stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited: {log.read_text()}") from None
            time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"the server did not start listening: {log.read_text()}")


def settled(report: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``report`` without what depends on when the polls came: a task's first ``tasks/get``
    and the statuses seen (a quick task may be ``working`` or already done at the first
    poll, on either server). Checked to agree with its last ``tasks/get``."""
    for op in report:
        task = op.get("task")
        if task is None:
            continue
        first, statuses = task.pop("first"), task.pop("statuses")
        last = task["last"]["result"]["status"]
        assert statuses[-1] == last and first["result"]["status"] in statuses, task
        assert set(statuses) <= {"working", "input_required", last}, statuses
    return report


def run_both(server: list[str], script: list[Any], tmp: Path) -> tuple[Any, Any]:
    """The drive's reports of ``server`` (a file and its arguments before the port) on
    fastmcp-tasks and on mcpkit."""
    if not TASKS_PEER.exists():
        pytest.fail(f"{TASKS_PEER} is missing: run scripts/peers.sh", pytrace=False)
    plan = tmp / "script.json"
    plan.write_text(json.dumps(script))
    sides = {"theirs": [str(TASKS_PEER)], "ours": [sys.executable, "-m", "mcpkit.compat"]}
    procs: list[subprocess.Popen[bytes]] = []
    ports = [free_port()]
    while len(ports) < 2:  # two different ports, both free
        port = free_port()
        if port != ports[0]:
            ports.append(port)
    try:  # both sides at once, each with its own server and drive
        for (side, python), port in zip(sides.items(), ports, strict=True):
            procs.append(serve([*python, *server], port, tmp / f"{side}.log"))
        drives = [
            subprocess.Popen(
                [sys.executable, str(HERE / "tasks_drive.py"), str(plan), url],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for url in (f"http://127.0.0.1:{port}/mcp" for port in ports)
        ]
        reports = []
        for drive in drives:
            out, err = drive.communicate(timeout=120)
            assert drive.returncode == 0, err[-4000:]
            reports.append(settled(normalised(json.loads(out))))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
    return reports[0], reports[1]


def launcher(tmp: Path) -> Path:
    """Runs an example's ``mcp`` over HTTP on the port given (the example's own
    ``__main__`` listens on a fixed port)."""
    path = tmp / "launch.py"
    path.write_text(
        "import runpy, sys\n"
        "mcp = runpy.run_path(sys.argv[1])['mcp']\n"
        "mcp.run(transport='http', host='127.0.0.1', port=int(sys.argv[2]))\n"
    )
    return path


def tasks_declared(discover: dict[str, Any]) -> Any:
    return discover["answer"]["result"]["capabilities"]["extensions"].get(TASKS)


def test_tasks_example(tmp_path: Path) -> None:
    """examples/tasks/server.py: the listing (no ``execution`` member), a call as a task
    polled to ``completed`` (``pollIntervalMs`` from its ``TaskConfig``, fastmcp's 15 min
    ``ttlMs``, the result inlined), the same call without the extension (a plain result),
    a task cancelled (no ``statusMessage``; a second cancel acknowledged too), a tool error
    (a task ``completed`` with ``isError``), ``tasks/get`` without the extension (-32021)
    and of an unknown task (-32602)."""
    script = [
        {"op": "discover"},
        {"op": "list"},
        {"op": "call", "name": "slow_computation", "args": {"label": "a", "duration": 1}},
        {
            "op": "call",
            "name": "slow_computation",
            "args": {"label": "b", "duration": 1},
            "plain": True,
        },
        {
            "op": "call",
            "name": "slow_computation",
            "args": {"label": "c", "duration": 5},
            "cancel": True,
        },
        {"op": "call", "name": "slow_computation", "args": {"label": "d", "duration": 0}},
        {"op": "get", "task": 2, "plain": True},
        {"op": "get", "taskId": "nope"},
    ]
    example = EXAMPLES / "tasks_server.py"
    theirs, ours = run_both([str(launcher(tmp_path)), str(example)], script, tmp_path)
    # Both declare the extension, with no settings.
    assert tasks_declared(theirs[0]) == tasks_declared(ours[0]) == {}
    assert theirs[1:] == ours[1:]
    created = ours[2]["answer"]["result"]
    assert created["resultType"] == "task" and created["pollIntervalMs"] == 1000
    assert created["ttlMs"] == 900_000
    assert ours[2]["task"]["last"]["result"]["status"] == "completed"
    assert ours[2]["task"]["last"]["result"]["result"]["structuredContent"] == {
        "result": "a finished in 1s"
    }
    assert "resultType" in ours[3]["answer"]["result"] and "taskId" not in ours[3]["answer"]
    assert ours[4]["task"]["last"]["result"]["status"] == "cancelled"
    assert ours[5]["task"]["last"]["result"]["result"]["isError"] is True
    assert ours[6]["answer"]["error"]["code"] == -32021
    assert ours[7]["answer"]["error"]["code"] == -32602


def test_task_modes_and_progress(tmp_path: Path) -> None:
    """``TaskConfig(mode="required")`` refused without the extension (-32021, fastmcp's
    words) and its own ``pollIntervalMs``; ``forbidden`` never a task; ``task=True``'s
    default 5 s poll interval; a ``Progress`` message as the working task's
    ``statusMessage``; ``Progress`` read back in a task and in a plain call."""
    script = [
        {"op": "list"},
        {"op": "call", "name": "double", "args": {"n": 21}},
        {"op": "call", "name": "double", "args": {"n": 21}, "plain": True},
        {"op": "call", "name": "plain", "args": {"n": 1}},
        {"op": "call", "name": "halfway", "cancel": "halfway there"},
        {"op": "call", "name": "counted"},
        {"op": "call", "name": "counted", "plain": True},
    ]
    server = SERVERS / "fastmcp_tasks_modes.py"
    theirs, ours = run_both([str(server)], script, tmp_path)
    assert theirs == ours
    assert "execution" not in json.dumps(ours[0])
    assert ours[1]["answer"]["result"]["pollIntervalMs"] == 250
    assert ours[1]["task"]["last"]["result"]["result"]["structuredContent"] == {"result": 42}
    refused = ours[2]["answer"]["error"]
    assert refused["code"] == -32021
    assert refused["data"] == {"requiredCapabilities": {"extensions": {TASKS: {}}}}
    assert ours[3]["answer"]["result"]["structuredContent"] == {"result": 2}
    halfway = ours[4]["task"]
    assert halfway["working"]["result"]["statusMessage"] == "halfway there"
    assert halfway["working"]["result"]["pollIntervalMs"] == 5000
    assert halfway["last"]["result"]["status"] == "cancelled"
    assert ours[5]["task"]["last"]["result"]["result"]["content"][0]["text"] == ("2/3 two of three")
    assert ours[6]["answer"]["result"]["content"][0]["text"] == "2/3 two of three"


def test_task_config_and_extension_refusals() -> None:
    """A sync function cannot be a task tool; a Redis backend and a second tasks extension
    are refused with clear errors; another extension is not supported."""
    from mcpkit.compat.fastmcp import FastMCP
    from mcpkit.compat.fastmcp_tasks import TasksExtension

    mcp = FastMCP("refusals")
    with pytest.raises(ValueError, match="Background tasks require async functions"):

        @mcp.tool(task=True)
        def sync_tool() -> str:
            return "no"

    with pytest.raises(ValueError, match="memory://"):
        TasksExtension(url="redis://127.0.0.1:6379/0")
    mcp.add_extension(TasksExtension())
    with pytest.raises(ValueError, match="already registered"):
        mcp.add_extension(TasksExtension())
    with pytest.raises(NotImplementedError, match="object is not supported"):
        mcp.add_extension(object())


def test_task_elicitation_example(tmp_path: Path) -> None:
    """examples/task_elicitation.py, fastmcp_tasks' guard pattern: the task returns an
    ``InputRequiredResult``, is ``input_required`` with it (its key minted from the task id),
    ``tasks/update`` answers it, the tool runs again with ``ctx.input_responses`` (accepted;
    declined); called without the extension, its answer is the MRTR ``InputRequiredResult``
    under the tool's own key."""
    accept = {"action": "accept", "content": {"cuisine": "Thai", "vegetarian": True}}
    script = [
        {"op": "list"},
        {"op": "call", "name": "plan_dinner", "answer": accept},
        {"op": "call", "name": "plan_dinner", "answer": {"action": "decline"}},
        {"op": "call", "name": "plan_dinner", "plain": True},
    ]
    example = EXAMPLES / "task_elicitation.py"
    theirs, ours = run_both([str(launcher(tmp_path)), str(example)], script, tmp_path)
    # mcpkit's MRTR round seals what it needs for the retry in requestState; fastmcp keeps
    # it on the server.
    state = ours[3]["answer"]["result"].pop("requestState")
    assert isinstance(state, str) and state
    assert theirs == ours
    menu = ours[1]["task"]["last"]["result"]["result"]["content"][0]["text"]
    assert menu == "Tonight's menu: a lovely vegetarian Thai dinner!"
    assert ours[2]["task"]["last"]["result"]["result"]["content"][0]["text"] == (
        "Dinner cancelled!"
    )
    asked = ours[1]["task"]["input_required"]["result"]["inputRequests"]
    assert list(asked) == ["<task id>:<key>"]
    assert list(ours[3]["answer"]["result"]["inputRequests"]) == ["prefs"]
