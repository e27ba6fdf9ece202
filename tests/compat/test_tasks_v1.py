"""The official 1.x examples of the experimental tasks API, ``servers/simple-task`` and
``servers/simple-task-interactive`` (``examples/official_v1/mcp_simple_task*``, copied
unchanged), run on mcpkit (``server.experimental.enable_tasks()``, ``run_task``,
``ServerTaskContext`` over mcpkit's own task manager) and on mcp 1.x, each served by
uvicorn on a port of its own, and driven alike by the official 1.x client
(``clients/tasks_v1_client.py``): task creation, ``tasks/get`` polling (the status
messages), ``tasks/result``, ``tasks/list``, cancellation, the refusals (an unknown task,
another session's task, a terminal task cancelled), the ``notifications/tasks/status`` the
client heard and, for the interactive one, the elicitation and sampling a task sends
through the client's ``tasks/result`` (answered by the client's callbacks). Only task ids
and timestamps are normalised.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.compat.test_http_examples import V1, package_main, served
from tests.compat.test_unchanged import peer

CLIENT = Path(__file__).resolve().parent / "clients" / "tasks_v1_client.py"


def normalised(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with each task id named by its order of appearance, timestamps blanked."""
    text = json.dumps(report)
    names: dict[str, str] = {}
    for task_id in re.findall(r'"taskId": "([^"]+)"', text):
        names.setdefault(task_id, f"task-{len(names)}")
    for task_id, name in names.items():
        text = text.replace(f'"{task_id}"', f'"{name}"').replace(
            f"Task not found: {task_id}", f"Task not found: {name}"
        )
    text = re.sub(r'"(createdAt|lastUpdatedAt)": "[^"]+"', r'"\1": "-"', text)
    return json.loads(text)  # type: ignore[no-any-return]


def drive(which: str, port: int) -> dict[str, Any]:
    """What the official 1.x client saw running ``which``'s script against ``port``."""
    done = subprocess.run(
        [str(peer("mcp1")), str(CLIENT), which, f"http://127.0.0.1:{port}/mcp"],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return normalised(json.loads(done.stdout))


@pytest.mark.parametrize(
    ("which", "module"),
    [("simple", "mcp_simple_task"), ("interactive", "mcp_simple_task_interactive")],
)
def test_simple_task_examples(which: str, module: str, tmp_path: Path) -> None:
    """The same conversation with the example on mcp 1.x and on mcpkit."""
    launcher = package_main(V1, f"{module}.server", tmp_path)
    with served(
        [str(peer("mcp1")), str(launcher), "--port"],
        [sys.executable, "-m", "mcpkit.compat", str(launcher), "--port"],
    ) as ports:
        theirs, ours = drive(which, ports[0]), drive(which, ports[1])
    for key in theirs:
        assert ours.get(key) == theirs[key], key
    assert ours == theirs
    # what each conversation is about did happen
    assert theirs["capabilities"]["tasks"]["requests"] == {"tools": {"call": {}}}
    if which == "simple":
        assert [state[1] for state in ours["states"]][-1] == "Processing step 2..."
        assert ours["states"][-1][0] == "completed"
        assert ours["result"]["content"][0]["text"] == "Task completed!"
        assert ours["get cancelled"]["status"] == "cancelled"
        assert ours["other session"]["list"] == {"tasks": []}
    else:
        assert [kind for kind, _ in ours["asked"]] == ["elicit", "sample"]
        assert ours["confirm_delete result"]["content"][0]["text"] == "Deleted 'a.txt'"
        assert ours["write_haiku result"]["content"][0]["text"] == "Haiku:\nLeaves drift"
        assert ours["get cancelled"]["status"] == "cancelled"


def test_validate_task_mode_as_on_1x() -> None:
    """``ctx.experimental``'s checks of a tool's task mode, worded and coded as 1.x's
    (``mcp/server/experimental/request_context.py``), and ``run_task`` refused before
    ``enable_tasks()``."""
    import asyncio

    from mcpkit.compat.mcp.server.experimental import Experimental
    from mcpkit.errors import McpError

    plain, tasked = Experimental(), Experimental(task_metadata={"ttl": 1000})
    with pytest.raises(McpError) as refused:
        plain.validate_task_mode("required")
    assert (refused.value.code, refused.value.message) == (
        -32601,
        "This tool requires task-augmented invocation",
    )
    error = tasked.validate_task_mode(None, raise_error=False)
    assert (error.code, error.message) == (
        -32601,
        "This tool does not support task-augmented invocation",
    )
    assert plain.validate_task_mode("optional") is None
    assert tasked.validate_task_mode("required") is None
    assert not plain.can_use_tool("required") and plain.can_use_tool("optional")
    assert Experimental(_client_capabilities={"tasks": {}}).can_use_tool("required")

    async def work(task: Any) -> None:
        raise AssertionError("not run")

    with pytest.raises(RuntimeError, match="enable_tasks"):
        asyncio.run(tasked.run_task(work))
