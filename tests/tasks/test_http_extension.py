"""The tasks extension over Streamable HTTP (2026-07-28): a raw client written from the
spec shapes (routing headers, ``Mcp-Name`` = task id on tasks/*) and mcpkit's own Client
reach a task tool's result; every message the server sends is wire-checked."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx

from mcpkit import Context, Server
from mcpkit.client import Client
from mcpkit.server.tasks import TaskManager
from tests.http.modern import headers, request, serve
from tests.tasks.wire_tasks import EXTENSION
from tests.wire import WireChecker

CAPS = {"elicitation": {}, "extensions": {EXTENSION: {}}}
OK = {"type": "object", "properties": {"confirm": {"type": "boolean"}}}


def make_app() -> Server:
    app = Server("http-tasks", tasks=TaskManager(poll_interval=20))

    @app.tool(task_support="optional")
    async def crunch(n: int) -> str:
        await asyncio.sleep(0.05)
        return f"crunched {n}"

    @app.tool(task_support="required")
    async def confirm(ctx: Context) -> str:
        answer = await ctx.elicit("Sure?", OK, key="sure")
        return f"confirmed: {(answer.content or {}).get('confirm')}"

    return app


async def post(
    http: httpx.AsyncClient, url: str, rid: int, method: str, params: Any, name: str | None
) -> Any:
    response = await http.post(
        url, json=request(rid, method, params, capabilities=CAPS), headers=headers(method, name)
    )
    assert response.status_code == 200, response.text
    return response.json()


async def test_raw_client_runs_a_task_over_http(wire: Callable[..., WireChecker]) -> None:
    async with serve(wire, make_app()) as s, httpx.AsyncClient(timeout=10) as http:
        created = (
            await post(
                http, s.url, 1, "tools/call", {"name": "crunch", "arguments": {"n": 7}}, "crunch"
            )
        )["result"]
        assert created["resultType"] == "task"
        task_id = created["taskId"]
        for rid in range(2, 200):
            got = (await post(http, s.url, rid, "tasks/get", {"taskId": task_id}, task_id))[
                "result"
            ]
            if got["status"] == "completed":
                break
            await asyncio.sleep(0.02)
        assert got["result"]["content"][0]["text"] == "crunched 7"

        parked_id = (
            await post(
                http, s.url, 300, "tools/call", {"name": "confirm", "arguments": {}}, "confirm"
            )
        )["result"]["taskId"]
        for rid in range(301, 400):
            got = (await post(http, s.url, rid, "tasks/get", {"taskId": parked_id}, parked_id))[
                "result"
            ]
            if got["status"] == "input_required":
                break
            await asyncio.sleep(0.02)
        assert list(got["inputRequests"]) == ["sure"]
        ack = await post(
            http,
            s.url,
            400,
            "tasks/update",
            {
                "taskId": parked_id,
                "inputResponses": {"sure": {"action": "accept", "content": {"confirm": True}}},
            },
            parked_id,
        )
        assert ack["result"]["resultType"] == "complete"
        for rid in range(401, 500):
            got = (await post(http, s.url, rid, "tasks/get", {"taskId": parked_id}, parked_id))[
                "result"
            ]
            if got["status"] == "completed":
                break
            await asyncio.sleep(0.02)
        assert got["result"]["content"][0]["text"] == "confirmed: True"

        # Mcp-Name must be the task id on tasks/*.
        wrong = await http.post(
            s.url,
            json=request(500, "tasks/get", {"taskId": task_id}, capabilities=CAPS),
            headers=headers("tasks/get", "not-the-task"),
        )
        assert wrong.status_code == 400 and wrong.json()["error"]["code"] == -32020
        # A cancel of a finished task is acknowledged.
        again = await post(http, s.url, 502, "tasks/cancel", {"taskId": task_id}, task_id)
        assert again["result"]["resultType"] == "complete"
    for checker in s.checkers:
        assert not checker.errors, checker.errors


async def test_mcpkit_client_gets_task_results_over_http(wire: Callable[..., WireChecker]) -> None:
    async def answer(params: Any, ctx: Any = None) -> dict[str, Any]:
        return {"action": "accept", "content": {"confirm": False}}

    async with serve(wire, make_app()) as s:
        async with Client(s.url, era="2026-07-28", elicitation_handler=answer) as c:
            handle = await c.start_tool_task("crunch", {"n": 2})
            assert handle.task_id is not None
            assert (await handle.result(timeout=10)).content[0].text == "crunched 2"  # type: ignore[union-attr]
            asked = await c.start_tool_task("confirm")
            assert (await asked.result(timeout=10)).content[0].text == "confirmed: False"  # type: ignore[union-attr]
    for checker in s.checkers:
        assert not checker.errors, checker.errors
