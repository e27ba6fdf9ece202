"""Tasks (2025-11-25): task-augmented tools/call and tasks/get|result|list|cancel, in memory."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.server.tasks import RELATED_TASK, MemoryTaskStore, TaskLimitError, TaskManager
from tests.server.helpers import call, connected, text, unchecked


class Gates:
    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.started = asyncio.Event()


def make_app(gates: Gates, **manager: Any) -> Server:
    app = Server("tasks-test", tasks=TaskManager(**manager) if manager else None)

    @app.tool(task_support="optional")
    async def slow(n: int, ctx: Context) -> int:
        """Doubles n once released."""
        await ctx.progress(0.5, 1, "half")
        await ctx.info("working on it")
        gates.started.set()
        await gates.release.wait()
        return n * 2

    @app.tool(task_support="required")
    def must_task() -> str:
        return "done"

    @app.tool()
    def plain() -> str:
        return "plain"

    @app.tool(task_support="optional")
    def fails() -> str:
        raise ValueError("boom")

    @app.tool(task_support="optional")
    async def protocol_error() -> str:
        raise McpError(-32602, "bad thing", {"x": 1})

    @app.tool(task_support="optional")
    async def asks(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"hello {answer.content['name'] if answer.content else '?'}"

    @app.tool(task_support="optional")
    async def forever(ctx: Context) -> str:
        gates.started.set()
        await asyncio.Event().wait()
        return "never"

    @app.tool(task_support="optional")
    async def outlives(ctx: Context) -> str:
        gates.started.set()
        await gates.release.wait()
        await ctx.progress(1, 1)
        await ctx.info("still going")
        return "finished"

    @app.tool(task_support="optional")
    async def whose_task(ctx: Context) -> str:
        return str(ctx.task_id)

    return app


async def task_call(client: Any, name: str, arguments: Any = None, **task: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}, "task": task}
    created = await client.request("tools/call", params, timeout=10)
    assert set(created) >= {"task"}
    return dict(created["task"])


def status_log(client: Any) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    client.set_notification_handler("notifications/tasks/status", seen.append)
    return seen


async def test_capabilities_and_tool_definitions(wire: Any) -> None:
    app = make_app(Gates())
    async with connected(app, wire) as (client, _):
        caps = client.initialize_result["capabilities"]
        assert caps["tasks"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        tools = {t["name"]: t for t in (await client.request("tools/list"))["tools"]}
        assert tools["slow"]["execution"] == {"taskSupport": "optional"}
        assert tools["must_task"]["execution"] == {"taskSupport": "required"}
        assert "execution" not in tools["plain"]
    # Not on versions before tasks existed, and not when no tool supports tasks.
    async with connected(app, wire, version="2025-06-18") as (client, _):
        assert "tasks" not in client.initialize_result["capabilities"]
        with pytest.raises(McpError) as err:
            await client.request("tasks/list", {}, timeout=10)
        assert err.value.code == -32601
        assert text(await call(client, "must_task")) == "done"  # no tasks: runs normally
    plain = Server("no-tasks")
    plain.tool(name="x")(lambda: "x")
    async with connected(plain, wire) as (client, _):
        assert "tasks" not in client.initialize_result["capabilities"]
        with pytest.raises(McpError) as err:
            await client.request("tasks/get", {"taskId": "x"}, timeout=10)
        assert err.value.code == -32601


async def test_lifecycle_working_to_completed(wire: Any) -> None:
    gates = Gates()
    app = make_app(gates)
    async with connected(app, wire) as (client, _):
        statuses = status_log(client)
        params = {
            "name": "slow",
            "arguments": {"n": 21},
            "task": {"ttl": 60_000},
            "_meta": {"progressToken": "p1"},
        }
        created = (await client.request("tools/call", params, timeout=10))["task"]
        assert created["status"] == "working" and created["ttl"] == 60_000
        assert created["pollInterval"] == 1000
        assert created["createdAt"].endswith("Z") and created["lastUpdatedAt"]
        task_id = created["taskId"]
        assert len(task_id) >= 32
        await gates.started.wait()
        got = await client.request("tasks/get", {"taskId": task_id}, timeout=10)
        assert got["status"] == "working" and got["taskId"] == task_id
        assert RELATED_TASK not in got.get("_meta", {})
        waiting = asyncio.ensure_future(
            client.request("tasks/result", {"taskId": task_id}, timeout=10)
        )
        await asyncio.sleep(0)
        assert not waiting.done()  # blocks until terminal
        gates.release.set()
        result = await waiting
        assert result["structuredContent"] == {"result": 42}
        assert result["_meta"][RELATED_TASK] == {"taskId": task_id}
        done = await client.request("tasks/get", {"taskId": task_id}, timeout=10)
        assert done["status"] == "completed"
        # tasks/result again: the same result, immediately.
        again = await client.request("tasks/result", {"taskId": task_id}, timeout=10)
        assert again["structuredContent"] == {"result": 42}
        assert statuses and statuses[-1]["status"] == "completed"
        assert statuses[-1]["taskId"] == task_id and "_meta" not in statuses[-1]
        checker = client._tracer
        progress = checker.received("notifications/progress")
        assert progress and progress[0]["params"]["progressToken"] == "p1"
        assert progress[0]["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}
        logs = checker.received("notifications/message")
        assert logs and logs[0]["params"]["_meta"][RELATED_TASK] == {"taskId": task_id}


async def test_ttl_requested_capped_and_default(wire: Any) -> None:
    app = make_app(Gates(), default_ttl=30_000, max_ttl=120_000, poll_interval=250)
    async with connected(app, wire) as (client, _):
        assert (await task_call(client, "whose_task"))["ttl"] == 30_000
        assert (await task_call(client, "whose_task", ttl=5_000))["ttl"] == 5_000
        capped = await task_call(client, "whose_task", ttl=10**9)
        assert capped["ttl"] == 120_000 and capped["pollInterval"] == 250
        result = await client.request("tasks/result", {"taskId": capped["taskId"]}, timeout=10)
        assert text(result) == capped["taskId"]  # ctx.task_id inside the tool


async def test_task_support_rules(wire: Any) -> None:
    app = make_app(Gates())
    async with connected(app, wire) as (client, _):
        with pytest.raises(McpError) as err:
            await task_call(client, "plain")
        assert err.value.code == -32601 and "forbidden" in err.value.message
        with pytest.raises(McpError) as err:
            await call(client, "must_task")
        assert err.value.code == -32601 and "task" in err.value.message
        created = await task_call(client, "must_task")
        result = await client.request("tasks/result", {"taskId": created["taskId"]}, timeout=10)
        assert text(result) == "done"
        # Optional: a plain call still works.
        assert text(await call(client, "whose_task")) == "None"
        with pytest.raises(McpError) as err:
            await task_call(client, "nope")
        assert err.value.code == -32602


async def test_tool_error_and_protocol_error_fail_the_task(wire: Any) -> None:
    app = make_app(Gates())
    async with connected(app, wire) as (client, _):
        statuses = status_log(client)
        created = await task_call(client, "fails")
        result = await client.request("tasks/result", {"taskId": created["taskId"]}, timeout=10)
        # ValueError("boom") is unexpected: masked in the result and the status message.
        assert result["isError"] is True and "boom" not in text(result)
        assert text(result).startswith("Error executing tool 'fails' (error id ")
        got = await client.request("tasks/get", {"taskId": created["taskId"]}, timeout=10)
        assert got["status"] == "failed" and got["statusMessage"] == text(result)
        assert statuses[-1]["status"] == "failed"

        created = await task_call(client, "protocol_error")
        with pytest.raises(McpError) as err:
            await client.request("tasks/result", {"taskId": created["taskId"]}, timeout=10)
        assert err.value.code == -32602 and err.value.message == "bad thing"
        assert err.value.data == {"x": 1}
        got = await client.request("tasks/get", {"taskId": created["taskId"]}, timeout=10)
        assert got["status"] == "failed" and got["statusMessage"] == "bad thing"

        # Invalid arguments: still a task, which fails with the tool error.
        created = await task_call(client, "slow", {"n": "5"})
        result = await client.request("tasks/result", {"taskId": created["taskId"]}, timeout=10)
        assert result["isError"] is True and "'n'" in text(result)


async def test_cancel(wire: Any) -> None:
    gates = Gates()
    app = make_app(gates)
    async with connected(app, wire) as (client, _):
        statuses = status_log(client)
        created = await task_call(client, "forever")
        task_id = created["taskId"]
        await gates.started.wait()
        waiting = asyncio.ensure_future(
            client.request("tasks/result", {"taskId": task_id}, timeout=10)
        )
        cancelled = await client.request("tasks/cancel", {"taskId": task_id}, timeout=10)
        assert cancelled["status"] == "cancelled" and cancelled["taskId"] == task_id
        assert "cancelled" in cancelled["statusMessage"]
        with pytest.raises(McpError) as err:
            await waiting
        assert err.value.code == -32602 and "cancelled" in err.value.message
        got = await client.request("tasks/get", {"taskId": task_id}, timeout=10)
        assert got["status"] == "cancelled"
        with pytest.raises(McpError) as err:
            await client.request("tasks/cancel", {"taskId": task_id}, timeout=10)
        assert err.value.code == -32602
        assert "already in terminal status 'cancelled'" in err.value.message
        assert statuses[-1]["status"] == "cancelled"
        # A finished task cannot be cancelled either.
        done = await task_call(client, "must_task")
        await client.request("tasks/result", {"taskId": done["taskId"]}, timeout=10)
        with pytest.raises(McpError) as err:
            await client.request("tasks/cancel", {"taskId": done["taskId"]}, timeout=10)
        assert "'completed'" in err.value.message


async def test_unknown_and_malformed_task_ids(wire: Any) -> None:
    app = make_app(Gates())
    async with connected(app, wire, check_server_received=False) as (client, _):
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):
            with pytest.raises(McpError) as err:
                await client.request(method, {"taskId": "no-such-task"}, timeout=10)
            assert err.value.code == -32602 and "not found" in err.value.message
            with pytest.raises(McpError) as err:
                await unchecked(client, method, {"taskId": 7})
            assert err.value.code == -32602
        with pytest.raises(McpError) as err:
            await unchecked(client, "tools/call", {"name": "slow", "task": "soon"})
        assert err.value.code == -32602
        with pytest.raises(McpError) as err:
            await client.request(
                "tools/call", {"name": "slow", "arguments": {"n": 1}, "task": {"ttl": -5}}
            )
        assert err.value.code == -32602


async def test_list_pagination_and_cursors(wire: Any) -> None:
    app = make_app(Gates(), page_size=2)
    async with connected(app, wire) as (client, _):
        ids = [(await task_call(client, "must_task"))["taskId"] for _ in range(5)]
        seen: list[str] = []
        cursor = None
        pages = 0
        while True:
            params = {"cursor": cursor} if cursor else {}
            page = await client.request("tasks/list", params, timeout=10)
            pages += 1
            seen.extend(t["taskId"] for t in page["tasks"])
            cursor = page.get("nextCursor")
            if cursor is None:
                break
        assert seen == ids and pages == 3
        for bad in ("garbage!", "eyJvIjogOTk5OX0"):
            with pytest.raises(McpError) as err:
                await client.request("tasks/list", {"cursor": bad}, timeout=10)
            assert err.value.code == -32602


async def test_input_required_while_eliciting(wire: Any) -> None:
    app = make_app(Gates())
    caps = {"elicitation": {"form": {}}}
    async with connected(app, wire, capabilities=caps) as (client, _):
        statuses = status_log(client)
        seen: dict[str, Any] = {}

        async def elicit(params: Any, ctx: Any) -> Any:
            seen["meta"] = params.get("_meta")
            task_id = params["_meta"][RELATED_TASK]["taskId"]
            seen["status"] = (await client.request("tasks/get", {"taskId": task_id}))["status"]
            return {"action": "accept", "content": {"name": "Ada"}}

        client.set_request_handler("elicitation/create", elicit)
        created = await task_call(client, "asks")
        result = await client.request("tasks/result", {"taskId": created["taskId"]}, timeout=10)
        assert text(result) == "hello Ada"
        assert seen["meta"] == {RELATED_TASK: {"taskId": created["taskId"]}}
        assert seen["status"] == "input_required"
        assert [s["status"] for s in statuses] == ["input_required", "working", "completed"]


async def test_tasks_belong_to_their_session(wire: Any) -> None:
    app = make_app(Gates())
    async with connected(app, wire) as (one, _), connected(app, wire) as (two, _):
        created = await task_call(one, "must_task")
        with pytest.raises(McpError) as err:
            await two.request("tasks/get", {"taskId": created["taskId"]}, timeout=10)
        assert err.value.code == -32602
        assert (await two.request("tasks/list", {}, timeout=10))["tasks"] == []
        listed = (await one.request("tasks/list", {}, timeout=10))["tasks"]
        assert [t["taskId"] for t in listed] == [created["taskId"]]


async def test_ttl_expiry_deletes_a_running_task(wire: Any) -> None:
    gates = Gates()
    app = make_app(gates)
    async with connected(app, wire) as (client, _):
        created = await task_call(client, "forever", ttl=50)
        with pytest.raises(McpError) as err:
            await client.request("tasks/result", {"taskId": created["taskId"]}, timeout=10)
        assert err.value.code == -32602
        with pytest.raises(McpError):
            await client.request("tasks/get", {"taskId": created["taskId"]}, timeout=10)
        assert not app.task_manager._running


async def test_a_task_outlives_its_connection(wire: Any) -> None:
    gates = Gates()
    app = make_app(gates)
    store = app.task_manager.store
    async with connected(app, wire) as (client, server):
        params = {"name": "outlives", "task": {}, "_meta": {"progressToken": 1}}
        created = (await client.request("tools/call", params, timeout=10))["task"]
        await gates.started.wait()
        await client.close()
        await server.wait_closed()
        gates.release.set()
        await store.wait(created["taskId"], 0.01)
        info = await store.get(created["taskId"])
        assert info is not None and info.status == "completed"
        outcome = await store.outcome(created["taskId"])
        assert outcome is not None and outcome["result"]["content"][0]["text"] == "finished"


async def test_running_limit_per_requestor(wire: Any) -> None:
    gates = Gates()
    app = make_app(gates, max_running_per_owner=1)
    async with connected(app, wire) as (client, _):
        await task_call(client, "forever")
        with pytest.raises(McpError) as err:
            await task_call(client, "forever")
        assert err.value.code == -32603 and "Too many" in err.value.message


async def test_shutdown_cancels_running_tasks(wire: Any) -> None:
    gates = Gates()
    app = make_app(gates)
    store = app.task_manager.store
    async with connected(app, wire) as (client, _):
        created = await task_call(client, "forever")
        await gates.started.wait()
    info = await store.get(created["taskId"])
    assert info is not None and info.status == "cancelled"


# -- the in-memory store on its own ---------------------------------------------------------------


async def test_memory_store_bounds_ttl_and_transitions() -> None:
    now = [1000.0]
    store = MemoryTaskStore(max_tasks=2, clock=lambda: now[0])
    a = await store.create(ttl=1000, poll_interval=None, owner=None)
    b = await store.create(ttl=None, poll_interval=None, owner=None)
    with pytest.raises(TaskLimitError):
        await store.create(ttl=None, poll_interval=None, owner=None)
    # Terminal tasks are evicted (oldest first) to make room.
    assert await store.finish(a.task_id, "completed", {"result": {"content": []}}) is not None
    c = await store.create(ttl=None, poll_interval=None, owner=None)
    assert await store.get(a.task_id) is None and len(store) == 2
    # Terminal tasks never move again; illegal moves are refused.
    assert await store.update(b.task_id, "completed") is not None
    assert await store.update(b.task_id, "working") is None
    assert await store.finish(b.task_id, "failed", None) is None
    # ttl: gone once elapsed (from creation).
    d_store = MemoryTaskStore(clock=lambda: now[0])
    d = await d_store.create(ttl=1000, poll_interval=None, owner=None)
    now[0] += 0.999
    assert await d_store.get(d.task_id) is not None
    now[0] += 0.002
    assert await d_store.get(d.task_id) is None
    assert c.to_wire()["ttl"] is None and c.to_wire()["status"] == "working"


async def test_client_sees_no_task_fields_on_plain_calls(wire: Any) -> None:
    app = make_app(Gates())
    async with connected(app, wire) as (client, _):
        result = await call(client, "plain")
        assert text(result) == "plain" and "task" not in result and "_meta" not in result


async def test_task_over_stdio_with_the_example_server(wire: Any) -> None:
    import sys

    from mcpkit.session import ClientSession
    from mcpkit.transports import StdioClientTransport
    from tests.conftest import ROOT, server_env
    from tests.server.helpers import CLIENT_INFO

    transport = StdioClientTransport(
        sys.executable,
        [str(ROOT / "examples" / "server_everything.py")],
        env=server_env(),
        cwd=str(ROOT),
    )
    client = ClientSession(transport, tracer=wire())
    await client.start()
    try:
        init = await client.initialize(CLIENT_INFO, {})
        assert init["capabilities"]["tasks"]["requests"] == {"tools": {"call": {}}}
        created = await task_call(client, "long_job", {"steps": 3}, ttl=60_000)
        result = await client.request("tasks/result", {"taskId": created["taskId"]}, timeout=10)
        assert text(result) == "done after 3 steps"
        assert result["_meta"][RELATED_TASK]["taskId"] == created["taskId"]
        listed = await client.request("tasks/list", {}, timeout=10)
        assert [t["status"] for t in listed["tasks"]] == ["completed"]
        assert text(await call(client, "long_job", {"steps": 1})) == "done after 1 steps"
    finally:
        await client.close()


# -- the server as requestor: task-augmented elicitation and sampling at the client -------------


def requestor_app() -> Server:
    app = Server("requestor", tasks=TaskManager(poll_interval=20))

    @app.tool(task_support="optional")
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}, task=True
        )
        return f"{answer.action} {answer.content}"

    @app.tool()
    async def sample_raw(ctx: Context) -> str:
        messages = [{"role": "user", "content": {"type": "text", "text": "hi"}}]
        params = {"messages": messages, "maxTokens": 5}
        result = await ctx.request_as_task("sampling/createMessage", params, task=5_000)
        return f"{result['content']['text']} {result['_meta']}"

    return app


def serve_tasks_on(client: Any, receiver: Any, method: str, handler: Any) -> None:
    """Make a raw ClientSession a task receiver for ``method``."""
    from mcpkit.client.tasks import serve_as_task

    client.set_request_handler(method, serve_as_task(receiver, handler))
    for name, serve in receiver.handlers().items():
        client.set_request_handler(name, serve)


async def test_server_elicits_as_a_task_woken_by_status_notifications(wire: Any) -> None:
    from mcpkit.tasks import TaskReceiver

    caps = {
        "elicitation": {"form": {}},
        "tasks": {"cancel": {}, "requests": {"elicitation": {"create": {}}}},
    }
    # The client suggests polling every minute: only its status notification can make the
    # server notice the end in time.
    receiver = TaskReceiver(poll_interval=60_000)
    started = asyncio.Event()
    release = asyncio.Event()

    async def elicit(params: Any, ctx: Any) -> Any:
        started.set()
        await release.wait()
        return {"action": "accept", "content": {"name": "Ada"}}

    async with connected(requestor_app(), wire, capabilities=caps) as (client, _):
        serve_tasks_on(client, receiver, "elicitation/create", elicit)
        statuses = status_log(client)
        created = await task_call(client, "ask_name")
        await started.wait()
        # The server's own task waits on the client: input_required until the answer is in.
        got = await client.request("tasks/get", {"taskId": created["taskId"]}, timeout=10)
        assert got["status"] == "input_required"
        release.set()
        async with asyncio.timeout(5):
            result = await client.request("tasks/result", {"taskId": created["taskId"]})
        assert text(result) == "accept {'name': 'Ada'}"
        assert [s["status"] for s in statuses] == ["input_required", "working", "completed"]
        checker = client._tracer
        request = checker.received("elicitation/create")[0]["params"]
        assert request["task"] == {}
        assert request["_meta"][RELATED_TASK] == {"taskId": created["taskId"]}
        polls = checker.received("tasks/get")
        assert len(polls) == 1 and RELATED_TASK not in polls[0]["params"].get("_meta", {})
        assert len(checker.received("tasks/result")) == 1
        assert [m["params"]["status"] for m in checker.sent("notifications/tasks/status")] == [
            "completed"
        ]


async def test_request_as_task_returns_the_raw_result_and_errors(wire: Any) -> None:
    from mcpkit.tasks import TaskReceiver

    caps = {"sampling": {}, "tasks": {"requests": {"sampling": {"createMessage": {}}}}}
    receiver = TaskReceiver(poll_interval=10)
    answers: list[Any] = [
        {"role": "assistant", "content": {"type": "text", "text": "hey"}, "model": "m"},
        McpError(-1, "User rejected the request"),
    ]

    async def sample(params: Any, ctx: Any) -> Any:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async with connected(requestor_app(), wire, capabilities=caps) as (client, _):
        serve_tasks_on(client, receiver, "sampling/createMessage", sample)
        result = await call(client, "sample_raw")
        assert text(result).startswith("hey {") and RELATED_TASK in text(result)
        assert client._tracer.received("sampling/createMessage")[0]["params"]["task"] == {
            "ttl": 5_000
        }
        # The client's task failed with an error: the tool gets that very error (uncaught,
        # it becomes the tools/call error).
        with pytest.raises(McpError) as err:
            await call(client, "sample_raw")
        assert err.value.code == -1 and err.value.message == "User rejected the request"
        assert not client._tracer.received("tasks/cancel")  # nothing left to cancel
