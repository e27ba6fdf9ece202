"""``mcpkit call ... --task``: the real command against a stdio server with task tools, in
both eras, output piped (plain status lines on stderr, the result on stdout)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.cli.conftest import ROOT, cli_env, command, mcpkit

TASK_SERVER = command(Path(__file__).resolve().parent / "task_server.py")
ERAS = ("legacy", "2026-07-28")


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _statuses(stderr: str) -> list[str]:
    return [line.removeprefix("status: ") for line in _lines(stderr) if line.startswith("status:")]


def _task_id(stderr: str) -> str:
    ids = [line.removeprefix("task: ") for line in _lines(stderr) if line.startswith("task: ")]
    assert len(ids) == 1, stderr
    return ids[0]


@pytest.mark.parametrize("era", ERAS)
def test_optional_tool_as_a_task_shows_id_status_and_result(era: str) -> None:
    done = mcpkit("call", TASK_SERVER, "render", "frames=3", "--task", "--era", era)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "rendered 3 frames (task True)\n"
    assert len(_task_id(done.stderr)) >= 8
    statuses = _statuses(done.stderr)
    assert statuses[0] == "working" and statuses[-1] == "completed", done.stderr
    if era == "legacy":  # 2025 tasks keep their progress flowing to the caller
        assert "progress 3/3" in done.stderr


@pytest.mark.parametrize("era", ERAS)
def test_the_same_tool_without_task_is_a_plain_call(era: str) -> None:
    done = mcpkit("call", TASK_SERVER, "render", "frames=1", "--era", era)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "rendered 1 frames (task False)\n"
    assert "status:" not in done.stderr and "task:" not in done.stderr


@pytest.mark.parametrize("era", [*ERAS, "auto"])
def test_required_tool_with_json_output_and_ttl(era: str) -> None:
    done = mcpkit(
        "call", TASK_SERVER, "deploy", "service=api", "--task", "--task-ttl", "60", "--json",
        "--era", era,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    wire = orjson.loads(done.stdout)
    assert wire["content"] == [{"type": "text", "text": "api deployed"}]
    assert _statuses(done.stderr)[0] == "working"
    assert _statuses(done.stderr)[-1] == "completed"


@pytest.mark.parametrize("era", ERAS)
def test_required_tool_without_task_says_to_add_it(era: str) -> None:
    done = mcpkit("call", TASK_SERVER, "deploy", "service=api", "--era", era)
    assert done.returncode == 1
    assert _lines(done.stderr) == [
        "error: the tool 'deploy' only runs as a task (taskSupport 'required')",
        "hint: add --task: mcpkit call TARGET deploy ... --task",
    ]
    assert done.stdout == ""


@pytest.mark.parametrize("era", ERAS)
def test_tool_without_task_support_gets_one_line_and_a_hint(era: str) -> None:
    done = mcpkit("call", TASK_SERVER, "add", "a=1", "b=2", "--task", "--era", era)
    assert done.returncode == 1
    assert _lines(done.stderr) == [
        "error: the tool 'add' does not run as a task (its taskSupport is absent)",
        "hint: call it without --task: mcpkit call TARGET add ...",
    ]


def test_task_ttl_needs_task_and_a_positive_number() -> None:
    done = mcpkit("call", TASK_SERVER, "deploy", "service=api", "--task-ttl", "5")
    assert done.returncode == 2
    assert _lines(done.stderr)[0] == "error: --task-ttl needs --task"
    done = mcpkit("call", TASK_SERVER, "deploy", "service=api", "--task", "--task-ttl", "0")
    assert done.returncode == 2
    assert _lines(done.stderr) == ["error: --task-ttl must be a positive number of seconds, got 0"]


@pytest.mark.parametrize("era", ERAS)
def test_input_required_is_declined_with_no_input(era: str) -> None:
    done = mcpkit(
        "call", TASK_SERVER, "confirm", "service=api", "--task", "--no-input", "--era", era
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "api: user chose decline\n"
    assert "elicitation declined (--no-input): Deploy api?" in done.stderr
    statuses = _statuses(done.stderr)
    assert statuses[0] == "working" and statuses[-1] == "completed", done.stderr
    assert "input_required" in statuses
    asked = _lines(done.stderr).index("status: input_required")
    assert _lines(done.stderr)[asked + 1].startswith("elicitation declined")


@pytest.mark.parametrize("era", ERAS)
def test_tool_error_in_a_task_exits_3(era: str) -> None:
    done = mcpkit("call", TASK_SERVER, "broken", "--task", "--era", era)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "Error executing tool 'broken': the renderer is out of paint\n"
    assert "the tool 'broken' reported an error" in done.stderr


@pytest.mark.parametrize("era", ERAS)
def test_ctrl_c_cancels_the_task_and_exits_130(era: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpkit", "call", TASK_SERVER, "stall", "seconds=30", "--task",
         "--era", era],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=cli_env(),
    )  # fmt: skip
    assert proc.stderr is not None
    seen: list[str] = []
    deadline = time.monotonic() + 30
    while "status: working" not in seen and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line.strip())
    assert "status: working" in seen, seen
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert time.monotonic() - started < 15  # not the tool's 30 s
    assert out == ""
    assert _statuses(err)[-1].startswith("cancelled"), err
    assert "mcpkit: interrupted" in err
    assert "dropped" not in err  # the interrupted polls' late answers are not reported


@pytest.mark.parametrize("era", ERAS)
def test_on_a_terminal_the_status_is_one_live_line_and_questions_are_asked(
    era: str, pty_command: Any
) -> None:
    cli = pty_command("call", TASK_SERVER, "confirm", "service=api", "--task", "--era", era)
    task_id = cli.expect(r"task ([0-9a-f]+): (working|input_required)").group(1)
    cli.expect(r"Deploy api\?")
    cli.expect(r"Answer\? \[A\]ccept / \[d\]ecline / \[c\]ancel: ")
    cli.send("")
    cli.expect(r"  name\*: ")
    cli.send("Ada")
    cli.expect(rf"task {task_id}: completed")
    code, out = cli.finish()
    assert code == 0, cli.seen
    assert out == "api deployed by Ada\n"
    assert "status: " not in cli.seen  # no plain lines on a terminal
