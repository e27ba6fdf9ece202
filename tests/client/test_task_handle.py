"""One task handle for both designs: mcpkit's requestor gets results from mcpkit's server on
the 2025-11-25 wire (tasks/get, tasks/result) and the 2026-07-28 tasks extension (tasks/get,
tasks/update, tasks/cancel), input answered by the client's own handlers; wire-checked."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.client import Client
from mcpkit.client.task_requestor import TaskHandle, start_tool_task
from mcpkit.server.tasks import TaskManager
from mcpkit.transports import MemoryTransport
from tests.tasks.wire_tasks import TasksWireChecker

ERAS = ["legacy", "2026-07-28"]
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def make_app() -> Server:
    app = Server("handles", tasks=TaskManager(poll_interval=20))

    @app.tool(task_support="optional")
    async def slow(n: int, ctx: Context, seconds: float = 0.05) -> str:
        await ctx.progress(1, 2)
        await asyncio.sleep(seconds)
        return f"got {n}"

    @app.tool(task_support="required")
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", NAME)
        return f"hi {(answer.content or {}).get('name')}"

    @app.tool(task_support="required")
    async def boom() -> str:
        raise McpError(-32602, "bad input", {"why": "test"})

    @app.tool(task_support="required", task_start="explicit")
    async def named(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", NAME, key="user_name")
        await ctx.start_task()
        return f"task greets {(answer.content or {}).get('name')}"

    return app


async def elicit(params: Any, ctx: Any = None) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


@asynccontextmanager
async def connect(era: str) -> AsyncIterator[Client]:
    app = make_app()
    version = "2026-07-28" if era != "legacy" else "2025-11-25"
    server_wire, client_wire = TasksWireChecker(version), TasksWireChecker(version)
    a, b = MemoryTransport.pair()
    async with app.running():
        server = app.session(b, tracer=server_wire)
        await server.start()
        try:
            async with Client(a, era=era, tracer=client_wire, elicitation_handler=elicit) as c:
                yield c
        finally:
            await server.close()
    assert not server_wire.errors, server_wire.errors
    assert not client_wire.errors, client_wire.errors


@pytest.mark.parametrize("era", ERAS)
async def test_result_status_and_cancel(era: str) -> None:
    async with connect(era) as c:
        handle = await start_tool_task(c, "slow", {"n": 3})
        assert isinstance(handle, TaskHandle) and handle.task_id is not None
        assert handle.status == "working" and handle.legacy is (era == "legacy")
        result = await handle.result(timeout=5)
        assert result.content[0].text == "got 3"  # type: ignore[union-attr]
        assert handle.status == "completed" and handle.done

        long = await start_tool_task(c, "slow", {"n": 1, "seconds": 30})
        await long.cancel()
        assert long.status == "cancelled"
        await long.cancel()  # nothing to do: already finished
        with pytest.raises(McpError) as caught:
            await long.result(timeout=5)
        assert caught.value.code == -32602


@pytest.mark.parametrize("era", ERAS)
async def test_input_is_answered_by_the_clients_handler(era: str) -> None:
    async with connect(era) as c:
        handle = await start_tool_task(c, "ask")
        result = await handle.result(timeout=5)
        assert result.content[0].text == "hi Ada"  # type: ignore[union-attr]


@pytest.mark.parametrize("era", ERAS)
async def test_a_failed_task_raises_its_error(era: str) -> None:
    async with connect(era) as c:
        handle = await start_tool_task(c, "boom")
        with pytest.raises(McpError) as caught:
            await handle.result(timeout=5)
        assert caught.value.code == -32602 and "bad input" in caught.value.message
        assert handle.status == "failed"


async def test_progress_of_a_2025_task_reaches_the_caller() -> None:
    seen: list[float] = []
    async with connect("legacy") as c:
        handle = await c.start_tool_task(
            "slow", {"n": 1}, on_progress=lambda p, total, message: seen.append(p)
        )
        await handle.result(timeout=5)
    assert seen == [1]


async def test_client_method_is_the_same_handle() -> None:
    async with connect("2026-07-28") as c:
        handle = await c.start_tool_task("slow", {"n": 9})
        assert isinstance(handle, TaskHandle) and not handle.legacy
        assert (await handle.result(timeout=5)).content[0].text == "got 9"  # type: ignore[union-attr]


async def test_modern_mrtr_rounds_before_the_task() -> None:
    async with connect("2026-07-28") as c:
        handle = await start_tool_task(c, "named")
        assert handle.task_id is not None
        result = await handle.result(timeout=5)
        assert result.content[0].text == "task greets Ada"  # type: ignore[union-attr]
