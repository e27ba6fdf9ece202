"""Tasks through the typed Client (2025-11-25): the client as requestor against a real
mcpkit Server (in memory and over stdio), and as receiver of the server's task-augmented
sampling and elicitation. All traffic is schema-checked on both sides."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.client import (
    Client,
    ClientHooks,
    Elicitation,
    ProtocolOptions,
    StdioOptions,
    TaskNotSupported,
    ToolError,
)
from mcpkit.tasks import RELATED_TASK, MemoryTaskStore, TaskReceiver
from mcpkit.transports import MemoryTransport
from mcpkit.types import CreateMessageResult, Task, TextContent
from tests.client.task_server import make_app
from tests.conftest import ROOT, server_env


@asynccontextmanager
async def connect(
    app: Server, wire: Any, *, check_server_received: bool = True, **kwargs: Any
) -> AsyncIterator[tuple[Client, Any]]:
    """A Client connected to ``app`` in memory, both sides schema-checked."""
    a, b = MemoryTransport.pair()
    protocol = kwargs.get("protocol")
    version = (protocol.version if protocol is not None else None) or "2025-11-25"
    async with app.running():
        server = app.session(b, tracer=wire(version, check_received=check_server_received))
        await server.start()
        try:
            async with Client(a, tracer=wire(version), era="legacy", **kwargs) as c:
                yield c, server
        finally:
            await server.close()


def sent(c: Client, method: str) -> list[Any]:
    return c._tracer.sent(method)  # type: ignore[attr-defined]


def received(c: Client, method: str) -> list[Any]:
    return c._tracer.received(method)  # type: ignore[attr-defined]


# -- the client as requestor -------------------------------------------------------------------


async def test_call_tool_as_task_lifecycle(wire: Any) -> None:
    gate = asyncio.Event()
    statuses: list[Task] = []
    async with connect(make_app(gate), wire, hooks=ClientHooks(on_task_status=statuses.append)) as (
        c,
        _,
    ):
        assert c.supports("tasks", "requests", "tools", "call")
        task = await c.call_tool_as_task("slow", {"n": 21}, ttl=60_000)
        assert isinstance(task, Task)
        assert task.status == "working" and task.ttl == 60_000 and task.poll_interval == 20
        # The tool list was fetched first to learn the tool's taskSupport.
        assert len(sent(c, "tools/list")) == 1
        call = sent(c, "tools/call")[0]["params"]
        assert call["task"] == {"ttl": 60_000} and call["arguments"] == {"n": 21}
        got = await c.get_task(task.task_id)
        assert got.task_id == task.task_id and got.status == "working"
        gate.set()
        final = await c.wait_task(task.task_id)
        assert final.status == "completed"
        result = await c.get_task_result(task.task_id)
        assert not result.is_error and result.structured_content == {"result": 42}
        assert result.meta is not None and result.meta[RELATED_TASK] == {"taskId": task.task_id}
        listed = await c.list_tasks()
        assert [t.task_id for t in listed] == [task.task_id]
        assert listed[0].status == "completed"
        assert statuses and statuses[-1].status == "completed"
        assert statuses[-1].task_id == task.task_id
        log = received(c, "notifications/message")[0]["params"]
        assert log["_meta"][RELATED_TASK] == {"taskId": task.task_id}


async def test_get_task_result_blocks_and_wait_without_polling(wire: Any) -> None:
    gate = asyncio.Event()
    async with connect(make_app(gate), wire) as (c, _):
        task = await c.call_tool_as_task("slow", {"n": 2})
        assert task.ttl == 3_600_000  # the server's default ttl
        blocked = asyncio.ensure_future(c.get_task_result(task.task_id))
        waiting = asyncio.ensure_future(c.wait_task(task.task_id, poll=False))
        await c.ping()  # both requests have reached the server and wait there
        assert not blocked.done() and not waiting.done()
        assert sent(c, "tasks/get") == []  # poll=False does not poll
        gate.set()
        assert (await blocked).structured_content == {"result": 4}
        assert (await waiting).status == "completed"


async def test_wait_task_times_out(wire: Any) -> None:
    async with connect(make_app(), wire) as (c, _):
        task = await c.call_tool_as_task("forever")
        with pytest.raises(TimeoutError):
            await c.wait_task(task.task_id, timeout=0.1)
        assert len(sent(c, "tasks/get")) >= 2  # it polled at the 20 ms pollInterval
        assert (await c.get_task(task.task_id)).status == "working"


async def test_task_support_is_respected(wire: Any) -> None:
    async with connect(make_app(), wire) as (c, _):
        # Not listed yet: the server refuses the plain call, the client says why.
        with pytest.raises(TaskNotSupported) as err:
            await c.call_tool("must_task")
        assert "call_tool_as_task" in str(err.value) and err.value.code == -32601
        calls = len(sent(c, "tools/call"))
        # Listed: refused locally, nothing sent.
        with pytest.raises(TaskNotSupported):
            await c.call_tool("must_task")
        with pytest.raises(TaskNotSupported) as err:
            await c.call_tool_as_task("plain")
        assert "forbidden" in str(err.value)
        assert len(sent(c, "tools/call")) == calls
        task = await c.call_tool_as_task("must_task")
        assert (await c.get_task_result(task.task_id)).content[0].text == "done"  # type: ignore[union-attr]
        assert (await c.call_tool("slow", {"n": 1})).structured_content == {"result": 2}
        assert (await c.call_tool("plain")).content[0].text == "plain"  # type: ignore[union-attr]
        # An unknown tool is left to the server (-32602).
        with pytest.raises(McpError) as err2:
            await c.call_tool_as_task("nope")
        assert err2.value.code == -32602


async def test_capability_errors_before_sending(wire: Any) -> None:
    app = Server("no-tasks")
    app.tool(name="x")(lambda: "x")
    async with connect(app, wire) as (c, _):
        assert not c.supports("tasks")
        for call in (
            c.call_tool_as_task("x"),
            c.get_task("t"),
            c.get_task_result("t"),
            c.wait_task("t"),
            c.list_tasks(),
            c.list_tasks_page(),
            c.cancel_task("t"),
        ):
            with pytest.raises(TaskNotSupported) as err:
                await call
            assert err.value.code == -32601 and "'tasks" in str(err.value)
        assert sent(c, "tools/call") == [] and sent(c, "tasks/get") == []
        assert sent(c, "tasks/list") == [] and sent(c, "tasks/cancel") == []
    # Before 2025-11-25 there are no tasks; a 'required' tool runs as a plain call.
    async with connect(make_app(), wire, protocol=ProtocolOptions(version="2025-06-18")) as (c, _):
        with pytest.raises(TaskNotSupported) as err:
            await c.call_tool_as_task("slow", {"n": 1})
        assert "2025-06-18" in str(err.value)
        assert (await c.call_tool("must_task")).content[0].text == "done"  # type: ignore[union-attr]


async def test_failed_task(wire: Any) -> None:
    async with connect(make_app(), wire) as (c, _):
        task = await c.call_tool_as_task("fails")
        final = await c.wait_task(task.task_id)
        assert final.status == "failed" and "boom" in (final.status_message or "")
        result = await c.get_task_result(task.task_id)
        assert result.is_error
        with pytest.raises(ToolError):
            await c.get_task_result(task.task_id, raise_on_error=True)


async def test_cancel_task(wire: Any) -> None:
    statuses: list[Task] = []
    async with connect(make_app(), wire, hooks=ClientHooks(on_task_status=statuses.append)) as (
        c,
        _,
    ):
        task = await c.call_tool_as_task("forever")
        blocked = asyncio.ensure_future(c.get_task_result(task.task_id))
        cancelled = await c.cancel_task(task.task_id)
        assert cancelled.status == "cancelled" and cancelled.task_id == task.task_id
        with pytest.raises(McpError) as err:
            await blocked
        assert err.value.code == -32602 and "cancelled" in err.value.message
        assert (await c.wait_task(task.task_id)).status == "cancelled"
        with pytest.raises(McpError) as err:
            await c.cancel_task(task.task_id)
        assert err.value.code == -32602 and "terminal" in err.value.message
        assert statuses[-1].status == "cancelled"


async def test_ttl_expiry(wire: Any) -> None:
    async with connect(make_app(), wire) as (c, _):
        task = await c.call_tool_as_task("forever", ttl=50)
        assert task.ttl == 50
        with pytest.raises(McpError) as err:
            await c.get_task_result(task.task_id)  # blocks until the task is deleted
        assert err.value.code == -32602 and "expired" in err.value.message
        with pytest.raises(McpError) as err:
            await c.get_task(task.task_id)
        assert err.value.code == -32602
        assert await c.list_tasks() == []


async def test_wait_task_answers_input_required(wire: Any) -> None:
    statuses: list[str] = []

    related: list[Any] = []

    async def elicit(params: Any, ctx: Any) -> dict[str, Any]:
        related.append(ctx.meta[RELATED_TASK]["taskId"])
        return {"action": "accept", "content": {"name": "Ada"}}

    async with connect(
        make_app(),
        wire,
        elicitation_handler=elicit,
        hooks=ClientHooks(on_task_status=lambda t: statuses.append(t.status)),
    ) as (c, _):
        task = await c.call_tool_as_task("asks")
        final = await c.wait_task(task.task_id)
        assert final.status == "completed" and related == [task.task_id]
        assert "input_required" in statuses
        result = await c.get_task_result(task.task_id)
        assert result.content[0].text == "hello Ada"  # type: ignore[union-attr]


async def test_list_tasks_follows_pages(wire: Any) -> None:
    async with connect(make_app(page_size=2), wire) as (c, _):
        ids = [(await c.call_tool_as_task("must_task")).task_id for _ in range(5)]
        page = await c.list_tasks_page()
        assert len(page.tasks) == 2 and page.next_cursor is not None
        second = await c.list_tasks_page(page.next_cursor)
        assert [t.task_id for t in second.tasks] == ids[2:4]
        assert [t.task_id for t in await c.list_tasks()] == ids
        with pytest.raises(McpError) as err:
            await c.list_tasks_page("not-a-cursor")
        assert err.value.code == -32602


async def test_tasks_over_stdio(wire: Any) -> None:
    statuses: list[str] = []
    async with Client(
        [sys.executable, "-m", "tests.client.task_server"],
        era="legacy",  # the 2025-11-25 tasks
        connection=StdioOptions(env=server_env(), cwd=str(ROOT)),
        hooks=ClientHooks(on_task_status=lambda t: statuses.append(t.status)),
        tracer=wire(),
    ) as c:
        task = await c.call_tool_as_task("slow", {"n": 5}, ttl=30_000)
        assert (await c.wait_task(task.task_id)).status == "completed"
        assert (await c.get_task_result(task.task_id)).structured_content == {"result": 10}
        doomed = await c.call_tool_as_task("forever")
        assert (await c.cancel_task(doomed.task_id)).status == "cancelled"
        listed = {t.task_id: t.status for t in await c.list_tasks()}
        assert listed == {task.task_id: "completed", doomed.task_id: "cancelled"}
        with pytest.raises(TaskNotSupported):
            await c.call_tool("must_task")
        assert "completed" in statuses


# -- the client as receiver ---------------------------------------------------------------------


def llm(seen: list[Any]) -> Any:
    async def sample(params: Any, ctx: Any) -> CreateMessageResult:
        seen.append(getattr(ctx, "task_id", None))
        return CreateMessageResult(role="assistant", content=TextContent(text="4"), model="m")

    return sample


async def test_server_samples_as_a_task_at_the_client(wire: Any) -> None:
    seen: list[Any] = []
    async with connect(make_app(), wire, sampling_handler=llm(seen), tasks=True) as (c, server):
        caps = server.client_capabilities["tasks"]
        assert caps == {"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}}}}
        result = await c.call_tool("sample_task", {"prompt": "2+2?"})
        assert result.content[0].text == "m: 4"  # type: ignore[union-attr]
        request = received(c, "sampling/createMessage")[0]
        assert request["params"]["task"] == {"ttl": 60_000}
        task_id = seen[0]
        assert isinstance(task_id, str)  # the handler ran as a task
        answers = [
            m
            for d, m in c._tracer.messages  # type: ignore[attr-defined]
            if d == "send" and "method" not in m and m.get("id") == request["id"]
        ]
        assert answers[0]["result"]["task"]["taskId"] == task_id
        assert received(c, "tasks/result")[0]["params"] == {"taskId": task_id}
        statuses = [m["params"]["status"] for m in sent(c, "notifications/tasks/status")]
        assert statuses == ["completed"]
        # The client keeps the task for the server to list.
        receiver = c.task_receiver
        assert receiver is not None
        info = await receiver.store.get(task_id)
        assert info is not None and info.status == "completed" and info.ttl == 60_000


async def test_server_elicits_as_a_task_at_the_client(wire: Any) -> None:
    async def elicit(params: Any, ctx: Any) -> dict[str, Any]:
        assert ctx.task_id
        return {"action": "accept", "content": {"colour": "teal"}}

    store = MemoryTaskStore()
    async with connect(make_app(), wire, elicitation_handler=elicit, tasks=store) as (c, server):
        caps = server.client_capabilities["tasks"]["requests"]
        assert caps == {"elicitation": {"create": {}}}
        result = await c.call_tool("elicit_task")
        assert result.content[0].text == "accept: {'colour': 'teal'}"  # type: ignore[union-attr]
        assert len(store) == 1
        # Sampling was not declared for tasks: the server says so without sending.
        result = await c.call_tool("sample_task", {"prompt": "?"})
        assert "error -32601" in result.content[0].text  # type: ignore[union-attr]
        assert received(c, "sampling/createMessage") == []


async def test_url_elicitation_as_a_task(wire: Any) -> None:
    async def elicit(params: Any, ctx: Any) -> str:
        assert params.url == "https://example.com/login" and ctx.task_id
        return "decline"

    async with connect(
        make_app(), wire, elicitation_handler=Elicitation(elicit, modes=("url",)), tasks=True
    ) as (c, _):
        result = await c.call_tool("visit_as_task")
        assert result.content[0].text == "decline"  # type: ignore[union-attr]
        assert received(c, "elicitation/create")[0]["params"]["task"] == {}


async def test_client_receives_tasks_over_stdio(wire: Any) -> None:
    seen: list[Any] = []
    async with Client(
        [sys.executable, "-m", "tests.client.task_server"],
        era="legacy",  # the 2025-11-25 tasks
        connection=StdioOptions(env=server_env(), cwd=str(ROOT)),
        tracer=wire(),
        sampling_handler=llm(seen),
        tasks=True,
    ) as c:
        result = await c.call_tool("sample_task", {"prompt": "2+2?"})
        assert result.content[0].text == "m: 4"  # type: ignore[union-attr]
        assert isinstance(seen[0], str)
        assert received(c, "tasks/result")[0]["params"] == {"taskId": seen[0]}
        assert [m["params"]["status"] for m in sent(c, "notifications/tasks/status")] == [
            "completed"
        ]


async def test_server_task_requests_need_the_client_capability(wire: Any) -> None:
    seen: list[Any] = []
    async with connect(make_app(), wire, sampling_handler=llm(seen)) as (c, server):
        assert "tasks" not in server.client_capabilities
        result = await c.call_tool("sample_task", {"prompt": "?"})
        text = result.content[0].text  # type: ignore[union-attr]
        assert "error -32601" in text and "tasks.requests.sampling.createMessage" in text
        assert received(c, "sampling/createMessage") == []
    # Declared, but the connection is older than tasks.
    async with connect(
        make_app(),
        wire,
        sampling_handler=llm(seen),
        tasks=True,
        protocol=ProtocolOptions(version="2025-06-18"),
    ) as (c, _):
        result = await c.call_tool("sample_task", {"prompt": "?"})
        assert "2025-06-18" in result.content[0].text  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="sampling_handler"):
        Client(make_app(), tasks=True)


async def test_abandoned_wait_cancels_the_clients_task(wire: Any) -> None:
    stopped = asyncio.Event()

    async def never(params: Any, ctx: Any) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    async with connect(make_app(), wire, sampling_handler=never, tasks=True) as (c, _):
        result = await c.call_tool("sample_with_timeout")
        assert result.content[0].text == "gave up"  # type: ignore[union-attr]
        await stopped.wait()  # the server sent tasks/cancel; the handler was stopped
        task_id = received(c, "tasks/cancel")[0]["params"]["taskId"]
        receiver = c.task_receiver
        assert receiver is not None
        info = await receiver.store.get(task_id)
        assert info is not None and info.status == "cancelled"


async def test_client_serves_tasks_methods_to_the_server(wire: Any) -> None:
    """The server drives the client's tasks by hand: get, list, cancel, result, errors."""
    release = asyncio.Event()
    started = asyncio.Event()

    async def slow_llm(params: Any, ctx: Any) -> CreateMessageResult:
        started.set()
        await release.wait()
        return CreateMessageResult(role="assistant", content=TextContent(text="ok"), model="m")

    app = Server("driver")
    report: dict[str, Any] = {}

    @app.tool()
    async def drive(ctx: Context) -> str:
        s = ctx.session
        params = {
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "maxTokens": 5,
        }
        method = "sampling/createMessage"
        one = (await s.request(method, {**params, "task": {}}))["task"]
        two = (await s.request(method, {**params, "task": {"ttl": 1000}}))["task"]
        await started.wait()
        report["get"] = await s.request("tasks/get", {"taskId": one["taskId"]})
        report["list"] = await s.request("tasks/list", {})
        report["cancel"] = await s.request("tasks/cancel", {"taskId": two["taskId"]})
        try:
            await s.request("tasks/result", {"taskId": two["taskId"]})
        except McpError as exc:
            report["cancelled_result"] = exc.code
        try:
            await s.request("tasks/get", {"taskId": "nope"})
        except McpError as exc:
            report["unknown"] = exc.code
        release.set()
        report["result"] = await s.request("tasks/result", {"taskId": one["taskId"]})
        report["two"] = two
        return "ok"

    receiver = TaskReceiver(poll_interval=50, page_size=10)
    async with connect(app, wire, sampling_handler=slow_llm, tasks=receiver) as (c, _):
        assert (await c.call_tool("drive")).content[0].text == "ok"  # type: ignore[union-attr]
    assert report["get"]["status"] == "working" and report["get"]["pollInterval"] == 50
    assert len(report["list"]["tasks"]) == 2
    assert report["cancel"]["status"] == "cancelled"
    assert report["two"]["ttl"] == 1000
    assert report["cancelled_result"] == -32602 and report["unknown"] == -32602
    assert report["result"]["content"] == {"type": "text", "text": "ok"}
    assert report["result"]["_meta"][RELATED_TASK]["taskId"] == report["get"]["taskId"]
