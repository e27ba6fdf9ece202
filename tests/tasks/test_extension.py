"""The tasks extension (io.modelcontextprotocol/tasks) on the 2026-07-28 wire, served by the
same tools and TaskManager as 2025-11-25 tasks; every message wire-checked."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.server.tasks import TaskManager
from tests.modern.peer import ModernPeer
from tests.server.helpers import connected
from tests.tasks.wire_tasks import EXTENSION, TasksWireChecker

WITH_TASKS: dict[str, Any] = {"elicitation": {}, "sampling": {}, "extensions": {EXTENSION: {}}}
WITHOUT: dict[str, Any] = {"elicitation": {}, "sampling": {}}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
OK = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


def make_app(**manager: Any) -> Server:
    app = Server("tasks-ext", tasks=TaskManager(poll_interval=50, **manager))
    gate = app.gate = asyncio.Event()  # type: ignore[attr-defined]

    @app.tool()
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    @app.tool(task_support="optional")
    async def slow(n: int) -> str:
        await gate.wait()
        return str(n * 2)

    @app.tool(task_support="required")
    async def tool_error() -> str:
        raise RuntimeError("broken")

    @app.tool(task_support="required")
    async def protocol_error() -> str:
        raise McpError(-32602, "bad thing", {"x": 1})

    @app.tool(task_support="required")
    async def ask_one(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", NAME)
        return f"hi {answer.content['name'] if answer.content else '?'}"

    @app.tool(task_support="required")
    async def ask_two(ctx: Context) -> str:
        a, b = await asyncio.gather(ctx.elicit("A?", OK, key="a"), ctx.elicit("B?", OK, key="b"))
        return f"{a.action}/{b.action}"

    @app.tool(task_support="required")
    async def ask_twice(ctx: Context) -> str:
        first = await ctx.elicit("First?", NAME, key="first")
        second = await ctx.elicit("Second?", NAME, key="second")
        return f"{_name(first)} then {_name(second)}"

    @app.tool(task_support="required", task_start="explicit")
    async def ask_then_task(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", NAME, key="user_name")
        await ctx.start_task()
        assert ctx.task_id is not None
        return f"Hello, {_name(answer)}, from task {ctx.task_id[:4]}"

    return app


def _name(answer: Any) -> str:
    return str((answer.content or {}).get("name"))


@pytest.fixture
async def peer() -> AsyncIterator[ModernPeer]:
    checker = TasksWireChecker("2026-07-28")
    async with ModernPeer(make_app(), checker) as p:
        yield p
    assert not checker.errors, checker.errors


Call = Callable[..., Awaitable[Any]]


async def call(peer: ModernPeer, name: str, arguments: Any = None, caps: Any = None) -> Any:
    params = {"name": name, "arguments": arguments or {}}
    return await peer.result(
        "tools/call", params, capabilities=WITH_TASKS if caps is None else caps
    )


async def get(peer: ModernPeer, task_id: str) -> Any:
    return await peer.result("tasks/get", {"taskId": task_id}, capabilities=WITH_TASKS)


async def until(peer: ModernPeer, task_id: str, *statuses: str) -> Any:
    for _ in range(200):
        task = await get(peer, task_id)
        if task["status"] in statuses:
            return task
        await asyncio.sleep(0.01)
    raise AssertionError(f"task never reached {statuses}: {task}")


async def test_discover_advertises_the_extension_not_core_tasks(peer: ModernPeer) -> None:
    found = await peer.result("server/discover")
    assert EXTENSION in found["capabilities"]["extensions"]
    assert "tasks" not in found["capabilities"]


async def test_sync_tool_and_legacy_task_field_stay_synchronous(peer: ModernPeer) -> None:
    result = await peer.result(
        "tools/call",
        {"name": "greet", "arguments": {"name": "x"}, "task": {"ttl": 60000}},
        capabilities=WITH_TASKS,
    )
    assert result["resultType"] == "complete" and "taskId" not in result
    assert result["content"][0]["text"] == "Hello, x!"


async def test_optional_task_tool_without_opt_in_runs_synchronously(peer: ModernPeer) -> None:
    peer.server.gate.set()  # type: ignore[attr-defined]
    result = await call(peer, "slow", {"n": 4}, WITHOUT)
    assert result["resultType"] == "complete" and result["content"][0]["text"] == "8"


async def test_required_task_tool_without_opt_in_is_32021(peer: ModernPeer) -> None:
    error = await peer.error(
        "tools/call", {"name": "tool_error", "arguments": {}}, capabilities=WITHOUT
    )
    assert error["code"] == -32021
    assert error["data"]["requiredCapabilities"]["extensions"] == {EXTENSION: {}}


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
async def test_task_methods_need_the_opt_in(peer: ModernPeer, method: str) -> None:
    created = await call(peer, "slow", {"n": 1})
    params: dict[str, Any] = {"taskId": created["taskId"]}
    if method == "tasks/update":
        params["inputResponses"] = {}
    error = await peer.error(method, params, capabilities=WITHOUT)
    assert error["code"] == -32021
    assert error["data"]["requiredCapabilities"] == {"extensions": {EXTENSION: {}}}


@pytest.mark.parametrize("method", ["tasks/result", "tasks/list"])
async def test_removed_methods_are_32601(peer: ModernPeer, method: str) -> None:
    error = await peer.error(method, {"taskId": "x"}, capabilities=WITH_TASKS, check=False)
    assert error["code"] == -32601


async def test_unknown_task_id_is_32602(peer: ModernPeer) -> None:
    for method in ("tasks/get", "tasks/cancel"):
        error = await peer.error(method, {"taskId": "nope"}, capabilities=WITH_TASKS)
        assert error["code"] == -32602
    error = await peer.error(
        "tasks/update", {"taskId": "nope", "inputResponses": {}}, capabilities=WITH_TASKS
    )
    assert error["code"] == -32602


async def test_created_task_is_readable_at_once_then_completes(peer: ModernPeer) -> None:
    created = await call(peer, "slow", {"n": 21})
    assert created["resultType"] == "task" and created["status"] == "working"
    assert created["ttlMs"] == 3_600_000 and created["pollIntervalMs"] == 50
    for key in ("task", "ttl", "pollInterval", "requestState", "result"):
        assert key not in created
    working = await get(peer, created["taskId"])  # strongly consistent: no -32602
    assert working["status"] == "working" and "result" not in working
    peer.server.gate.set()  # type: ignore[attr-defined]
    done = await until(peer, created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "42"
    assert "_meta" not in done["result"]  # no related-task key on the inlined result
    assert "requestState" not in done


async def test_tool_error_is_completed_protocol_error_is_failed(peer: ModernPeer) -> None:
    errored = await call(peer, "tool_error")
    done = await until(peer, errored["taskId"], "completed", "failed")
    assert done["status"] == "completed" and done["result"]["isError"] is True
    failed = await call(peer, "protocol_error")
    done = await until(peer, failed["taskId"], "completed", "failed")
    assert done["status"] == "failed" and "result" not in done
    assert done["error"] == {"code": -32602, "message": "bad thing", "data": {"x": 1}}


async def test_cancel_acks_and_is_idempotent(peer: ModernPeer) -> None:
    created = await call(peer, "slow", {"n": 1})
    ack = await peer.result("tasks/cancel", {"taskId": created["taskId"]}, capabilities=WITH_TASKS)
    assert set(ack) <= {"resultType", "_meta"} and ack["resultType"] == "complete"
    assert (await get(peer, created["taskId"]))["status"] == "cancelled"
    again = await peer.result(
        "tasks/cancel", {"taskId": created["taskId"]}, capabilities=WITH_TASKS
    )
    assert again["resultType"] == "complete"
    peer.server.gate.set()  # type: ignore[attr-defined]
    await asyncio.sleep(0.02)
    assert (await get(peer, created["taskId"]))["status"] == "cancelled"


async def test_input_required_then_update_resumes(peer: ModernPeer) -> None:
    created = await call(peer, "ask_one")
    parked = await until(peer, created["taskId"], "input_required")
    (key, request), *_ = parked["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Name?"
    bad = await peer.error(
        "tasks/update",
        {"taskId": created["taskId"], "inputResponses": {key: {"action": "maybe"}}},
        capabilities=WITH_TASKS,
    )
    assert bad["code"] == -32602
    assert (await get(peer, created["taskId"]))["status"] == "input_required"
    ack = await peer.result(
        "tasks/update",
        {
            "taskId": created["taskId"],
            "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
        },
        capabilities=WITH_TASKS,
    )
    assert set(ack) <= {"resultType", "_meta"}
    done = await until(peer, created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "hi Ada"


async def test_partial_fulfilment_and_a_second_question(peer: ModernPeer) -> None:
    created = await call(peer, "ask_two")
    parked = await until(peer, created["taskId"], "input_required")
    assert set(parked["inputRequests"]) == {"a", "b"}
    accept = {"action": "accept", "content": {"ok": True}}
    await peer.result(
        "tasks/update",
        {"taskId": created["taskId"], "inputResponses": {"a": accept, "zzz": accept}},
        capabilities=WITH_TASKS,
    )
    half = await get(peer, created["taskId"])
    assert half["status"] == "input_required" and set(half["inputRequests"]) == {"b"}
    await peer.result(
        "tasks/update",
        {"taskId": created["taskId"], "inputResponses": {"b": {"action": "decline"}}},
        capabilities=WITH_TASKS,
    )
    done = await until(peer, created["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "accept/decline"

    twice = await call(peer, "ask_twice")
    for name, key in (("one", "first"), ("two", "second")):
        parked = await until(peer, twice["taskId"], "input_required")
        assert set(parked["inputRequests"]) == {key}
        await peer.result(
            "tasks/update",
            {
                "taskId": twice["taskId"],
                "inputResponses": {key: {"action": "accept", "content": {"name": name}}},
            },
            capabilities=WITH_TASKS,
        )
        await asyncio.sleep(0.02)
    done = await until(peer, twice["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "one then two"


async def test_a_question_the_client_cannot_answer_fails_the_task(peer: ModernPeer) -> None:
    created = await call(peer, "ask_one", caps={"extensions": {EXTENSION: {}}})
    done = await until(peer, created["taskId"], "failed")
    assert done["error"]["code"] == -32021


async def test_mrtr_rounds_before_the_task(peer: ModernPeer) -> None:
    first = await call(peer, "ask_then_task")
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert set(first["inputRequests"]) == {"user_name"}
    created = await peer.result(
        "tools/call",
        {
            "name": "ask_then_task",
            "arguments": {},
            "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
            "requestState": first["requestState"],
        },
        capabilities=WITH_TASKS,
    )
    assert created["resultType"] == "task" and "requestState" not in created
    done = await until(peer, created["taskId"], "completed")
    text = done["result"]["content"][0]["text"]
    assert text == f"Hello, Alice, from task {created['taskId'][:4]}"


async def test_ttl_is_kept_then_the_task_expires() -> None:
    checker = TasksWireChecker("2026-07-28")
    app = make_app(default_ttl=1000)
    app.gate.set()  # type: ignore[attr-defined]
    async with ModernPeer(app, checker) as peer:
        created = await call(peer, "slow", {"n": 1})
        assert created["ttlMs"] == 1000
        await until(peer, created["taskId"], "completed")
        # Kept once completed (well within its ttl, a loaded machine's pauses included),
        # then gone once the ttl has passed (asked until then).
        assert (await get(peer, created["taskId"]))["status"] == "completed"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:
            response = await peer.request(
                "tasks/get", {"taskId": created["taskId"]}, capabilities=WITH_TASKS
            )
            if "error" in response or loop.time() > deadline:
                break
            assert response["result"]["status"] == "completed"
            await asyncio.sleep(0.05)
        assert response["error"]["code"] == -32602
    assert not checker.errors, checker.errors


async def test_owner_is_the_authenticated_principal() -> None:
    from mcpkit.auth.server import AccessToken
    from mcpkit.owner import token_var

    caller = {"subject": "alice"}

    def act_as(subject: str) -> None:
        caller["subject"] = subject

    async def resource_server(ctx: Any, call_next: Any) -> Any:
        # What the resource server does for each request (an in-memory connection carries
        # no context of the sender's: the server side sets the principal itself).
        token_var.set(AccessToken("t", client_id="c", subject=caller["subject"]))
        return await call_next(ctx)

    app = make_app()
    app.add_middleware(resource_server)
    checker = TasksWireChecker("2026-07-28")
    async with ModernPeer(app, checker) as peer:
        created = await call(peer, "slow", {"n": 1})
        assert (await get(peer, created["taskId"]))["status"] == "working"
        act_as("bob")
        for method in ("tasks/get", "tasks/cancel"):
            error = await peer.error(method, {"taskId": created["taskId"]}, capabilities=WITH_TASKS)
            assert error["code"] == -32602
        act_as("alice")
        assert (await get(peer, created["taskId"]))["status"] == "working"
    assert not checker.errors, checker.errors


async def test_unauthenticated_modern_tasks_are_reached_by_id_alone() -> None:
    app = make_app()
    async with ModernPeer(app) as one, ModernPeer(app) as other:
        created = await call(one, "slow", {"n": 1})
        assert (await get(other, created["taskId"]))["taskId"] == created["taskId"]


async def test_one_tool_serves_both_eras_from_one_store(wire: Any) -> None:
    app = make_app()
    app.gate.set()  # type: ignore[attr-defined]
    async with connected(app, wire) as (client, _):
        legacy = await client.request(
            "tools/call", {"name": "slow", "arguments": {"n": 5}, "task": {}}, timeout=5
        )
        result = await client.request(
            "tasks/result", {"taskId": legacy["task"]["taskId"]}, timeout=5
        )
        assert result["content"][0]["text"] == "10"
    checker = TasksWireChecker("2026-07-28")
    async with ModernPeer(app, checker) as peer:
        created = await call(peer, "slow", {"n": 6})
        done = await until(peer, created["taskId"], "completed")
        assert done["result"]["content"][0]["text"] == "12"
        # A 2025 task (owned by its session) is not reachable from the modern wire.
        error = await peer.error(
            "tasks/get", {"taskId": legacy["task"]["taskId"]}, capabilities=WITH_TASKS
        )
        assert error["code"] == -32602
    assert not checker.errors, checker.errors
    assert len(app.task_manager.store) == 2  # type: ignore[arg-type]
