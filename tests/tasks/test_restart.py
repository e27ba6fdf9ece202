"""A task in the SQLite store outlives its server process: a new process answers tasks/get
with the finished task's result, and ends the task that was still running as failed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import orjson

from mcpkit.envelope import build_request_meta
from mcpkit.sqlite_task_store import ABANDONED_MESSAGE
from tests.tasks.wire_tasks import EXTENSION, TasksWireChecker

SERVER = Path(__file__).with_name("restart_server.py")
CAPS = {"extensions": {EXTENSION: {}}}


class Process:
    def __init__(self, db: Path, checker: TasksWireChecker) -> None:
        self.db = db
        self.checker = checker
        self.next_id = 0

    async def __aenter__(self) -> Process:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(SERVER),
            str(self.db),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=Path(__file__).parents[2],
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        params = {**params, "_meta": build_request_meta("2026-07-28", CAPS)}
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.checker("send", message)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(orjson.dumps(message) + b"\n")
        await self.proc.stdin.drain()
        line = await asyncio.wait_for(self.proc.stdout.readline(), 20)
        response: dict[str, Any] = orjson.loads(line)
        self.checker("recv", response)
        assert response.get("id") == self.next_id, response
        return response

    async def result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = await self.request(method, params)
        assert "result" in response, response
        result: dict[str, Any] = response["result"]
        return result


async def test_tasks_survive_a_killed_server(tmp_path: Path) -> None:
    db = tmp_path / "tasks.sqlite3"
    checker = TasksWireChecker("2026-07-28")
    async with Process(db, checker) as first:
        done = await first.result("tools/call", {"name": "quick", "arguments": {"n": 21}})
        running = await first.result("tools/call", {"name": "forever", "arguments": {}})
        assert done["resultType"] == running["resultType"] == "task"
        for _ in range(200):
            state = await first.result("tasks/get", {"taskId": done["taskId"]})
            if state["status"] == "completed":
                break
            await asyncio.sleep(0.02)
        assert state["status"] == "completed"
        first.proc.kill()  # no shutdown: the process just dies
        await first.proc.wait()

    async with Process(db, checker) as second:
        again = await second.result("tasks/get", {"taskId": done["taskId"]})
        assert again["status"] == "completed"
        assert again["result"]["content"] == [{"type": "text", "text": "answer 42"}]
        assert again["createdAt"] == done["createdAt"]
        lost = await second.result("tasks/get", {"taskId": running["taskId"]})
        assert lost["status"] == "failed" and "result" not in lost
        assert lost["error"] == {"code": -32603, "message": ABANDONED_MESSAGE}
        unknown = await second.request("tasks/get", {"taskId": "0" * 32})
        assert unknown["error"]["code"] == -32602
    assert not checker.errors, checker.errors
