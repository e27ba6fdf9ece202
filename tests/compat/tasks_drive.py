"""Drive a server's background tasks (the 2026-07-28 tasks extension) over raw HTTP and
print what it answered as JSON.

    python tests/compat/tasks_drive.py SCRIPT.json URL

Every request carries the 2026-07-28 ``_meta`` (protocol version, client info, client
capabilities) and the routing headers. The client capabilities declare the tasks
extension as fastmcp_tasks' client does (``extensions["io.modelcontextprotocol/tasks"]:
{}``) unless an op says ``"plain": true``. The script is a JSON list of operations:
``{"op": "discover"}``, ``{"op": "list"}``, ``{"op": "call", "name", "args"}`` (the
tool's answer; when it is a task, it is polled with ``tasks/get`` to a terminal status;
``"cancel"``: ``true`` cancels it once it is working, a string once its ``statusMessage``
is that, then cancels it again; ``"answer"``: the response ``tasks/update`` gives each
input request of the task once it is ``input_required``), ``{"op": "get", "task": N}``
(a ``tasks/get`` of the task the N-th op created, or of ``"taskId"``). The report keeps,
per task, its first and last ``tasks/get``, the distinct statuses, around a cancel the
``tasks/get`` it waited for and both ``tasks/cancel`` answers, around an answer the
``input_required`` ``tasks/get`` and the ``tasks/update`` answer.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

V = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
CAPS: dict[str, Any] = {"extensions": {TASKS: {}}, "elicitation": {"form": {}}}


class Driver:
    def __init__(self, url: str) -> None:
        self.http = httpx.Client(timeout=30)
        self.url = url
        self.rid = 0

    def send(self, method: str, params: dict[str, Any], *, plain: bool = False) -> Any:
        self.rid += 1
        caps = {k: v for k, v in CAPS.items() if k != "extensions"} if plain else CAPS
        body = dict(params)
        body["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": {"name": "tasks-drive", "version": "1.0"},
        }
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": V,
            "mcp-method": method,
        }
        name = params.get("name", params.get("taskId"))
        if isinstance(name, str):
            headers["mcp-name"] = name
        message = {"jsonrpc": "2.0", "id": self.rid, "method": method, "params": body}
        response = self.http.post(self.url, json=message, headers=headers)
        kind = response.headers.get("content-type", "")
        if kind.startswith("text/event-stream"):
            answers = [
                json.loads(line[5:])
                for line in response.text.splitlines()
                if line.startswith("data:") and line[5:].strip()
            ]
            answer = next(a for a in answers if a.get("id") == self.rid)
        else:
            answer = response.json()
        return {k: v for k, v in answer.items() if k in ("result", "error")}

    def run_task(self, created: dict[str, Any], op: dict[str, Any]) -> dict[str, Any]:
        task_id = created["taskId"]
        seen: list[dict[str, Any]] = []
        statuses: list[str] = []
        out: dict[str, Any] = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            got = self.send("tasks/get", {"taskId": task_id})
            seen.append(got)
            result = got.get("result", {})
            status = result.get("status")
            if status not in statuses:
                statuses.append(str(status))
            if status in ("completed", "failed", "cancelled") or "error" in got:
                break
            if status == "input_required" and "answer" in op and "update" not in out:
                out["input_required"] = got
                answers = {key: op["answer"] for key in result.get("inputRequests", {})}
                out["update"] = self.send(
                    "tasks/update", {"taskId": task_id, "inputResponses": answers}
                )
                continue
            wanted = op.get("cancel")
            if wanted and "cancel" not in out and wanted in (True, result.get("statusMessage")):
                if isinstance(wanted, str):  # the state it was cancelled in, when asked for
                    out["working"] = got
                out["cancel"] = self.send("tasks/cancel", {"taskId": task_id})
                continue
            time.sleep(0.1)
        out.update(first=seen[0], last=seen[-1], statuses=statuses)
        if "cancel" in out:
            out["cancel_again"] = self.send("tasks/cancel", {"taskId": task_id})
        return out


def main() -> None:
    script = json.loads(Path(sys.argv[1]).read_text())
    driver = Driver(sys.argv[2])
    report: list[dict[str, Any]] = []
    created: list[str | None] = []
    for op in script:
        kind = op["op"]
        plain = bool(op.get("plain"))
        entry: dict[str, Any] = {"op": kind}
        task_id = None
        if kind == "discover":
            entry["answer"] = driver.send("server/discover", {}, plain=plain)
        elif kind == "list":
            entry["answer"] = driver.send("tools/list", {}, plain=plain)
        elif kind == "call":
            params = {"name": op["name"], "arguments": op.get("args", {})}
            answer = driver.send("tools/call", params, plain=plain)
            entry["answer"] = answer
            result = answer.get("result", {})
            if result.get("resultType") == "task":
                task_id = result["taskId"]
                entry["task"] = driver.run_task(result, op)
        elif kind == "get":
            target = op.get("taskId") or created[op["task"]]
            entry["answer"] = driver.send("tasks/get", {"taskId": target}, plain=plain)
        created.append(task_id)
        report.append(entry)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
