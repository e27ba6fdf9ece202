"""Tasks across eras, for every tool that runs as a task (``taskSupport`` optional or
required): a handshake-era client's 2025-11-25 task-augmented ``tools/call``, ``tasks/get``,
``tasks/result``, ``tasks/list`` and ``tasks/cancel`` through the proxy to a 2026-07-28
upstream with the tasks extension; a 2026-07-28 client's tasks extension (``tools/call``
opted in, ``tasks/get``, ``tasks/cancel``) through the proxy to a handshake-era upstream's
2025-11-25 tasks. The fixture upstream over stdio, the proxy served over HTTP and over
stdio (``mcpkit proxy``), every message checked against the schema of its revision (the
extension's messages against its own shapes)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mcpkit import Client, McpError
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from tests.proxy.conftest import fixture_command
from tests.wire import WireChecker

TRANSPORTS = ["http", "stdio"]


@contextlib.asynccontextmanager
async def proxy_of(upstream: str, transport: str) -> AsyncIterator[Any]:
    """A target for ``Client``: the proxy of the fixture of ``upstream``'s era."""
    command = fixture_command(upstream)
    if transport == "stdio":
        yield [sys.executable, "-m", "mcpkit", "proxy", command]
        return
    proxy = ProxyServer(command)
    async with proxy.running(), running(proxy.http_app()) as base:
        yield base + "/mcp"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_2025_tasks_served_by_the_2026_tasks_extension(
    transport: str, wire: Callable[..., WireChecker]
) -> None:
    checker = wire("2025-11-25")
    asked: list[Any] = []

    async def elicit(params: Any, ctx: Any) -> Any:
        asked.append(params)
        return {"action": "accept", "content": {"name": "Ada"}}

    async with (
        proxy_of("modern", transport) as target,
        Client(
            target, era="legacy", tracer=checker, elicitation_handler=elicit, timeout=60
        ) as client,
    ):
        assert client.server_capabilities.tasks is not None
        tools = {t.name: t for t in await client.list_tools()}
        supports = {
            name: tools[name].execution.task_support  # type: ignore[union-attr]
            for name in ("slow_add", "report", "task_wait")
        }
        assert supports == {"slow_add": "optional", "report": "required", "task_wait": "optional"}

        added = await client.call_tool_as_task("slow_add", {"a": 2, "b": 3})
        assert (await client.get_task(added.task_id)).task_id == added.task_id
        result = await client.get_task_result(added.task_id)
        assert result.structured_content == {"result": 5}
        assert (await client.get_task(added.task_id)).status == "completed"

        report = await client.call_tool_as_task("report", {"topic": "eras"})
        assert (await client.get_task_result(report.task_id)).content[0].text == "report on eras"  # type: ignore[union-attr]

        # the task's question (its inputRequests upstream) is a live request to this
        # client while it waits on tasks/result, answered upstream with tasks/update
        greeting = await client.call_tool_as_task("task_greet")
        assert (await client.get_task_result(greeting.task_id)).content[0].text == "hello Ada"  # type: ignore[union-attr]
        assert [p.message for p in asked] == ["Your name?"]
        (request,) = checker.received("elicitation/create")
        assert request["params"]["_meta"]["io.modelcontextprotocol/related-task"] == {
            "taskId": greeting.task_id
        }

        waiting = await client.call_tool_as_task("task_wait")
        assert waiting.status == "working"
        cancelled = await client.cancel_task(waiting.task_id)
        assert cancelled.status == "cancelled"
        with pytest.raises(McpError) as again:
            await client.cancel_task(waiting.task_id)  # terminal: -32602 on this wire
        assert again.value.code == -32602

        listed = {t.task_id: t.status for t in await client.list_tasks()}
        assert listed == {
            added.task_id: "completed",
            report.task_id: "completed",
            greeting.task_id: "completed",
            waiting.task_id: "cancelled",
        }
        # without params.task an optional tool runs at once, as it would upstream
        plain = await client.call_tool("slow_add", {"a": 1, "b": 1})
        assert plain.structured_content == {"result": 2}
    created = [m for m in checker.received() if isinstance(m.get("result"), dict)]
    assert sum(1 for m in created if "task" in m["result"]) == 4  # CreateTaskResults


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_2026_tasks_extension_served_by_2025_tasks(
    transport: str, wire: Callable[..., WireChecker]
) -> None:
    checker = wire("2026-07-28")
    asked: list[Any] = []

    async def elicit(params: Any, ctx: Any) -> Any:
        asked.append(params)
        return {"action": "accept", "content": {"name": "Grace"}}

    async with (
        proxy_of("legacy", transport) as target,
        Client(
            target, era="2026-07-28", tracer=checker, elicitation_handler=elicit, timeout=60
        ) as client,
    ):
        extensions = (client.discover_result or {})["capabilities"]["extensions"]
        assert "io.modelcontextprotocol/tasks" in extensions

        added = await client.start_tool_task("slow_add", {"a": 2, "b": 3})
        assert added.task_id is not None  # a task, not an answer at once
        assert (await added.result()).structured_content == {"result": 5}

        report = await client.start_tool_task("report", {"topic": "eras"})
        assert report.task_id is not None
        assert (await report.result()).content[0].text == "report on eras"  # type: ignore[union-attr]

        # the task's question (a live request upstream) is its inputRequests here,
        # answered with tasks/update
        greeting = await client.start_tool_task("task_greet")
        assert greeting.task_id is not None
        assert (await greeting.result()).content[0].text == "hello Grace"  # type: ignore[union-attr]
        assert [p.message for p in asked] == ["Your name?"]
        assert checker.sent("tasks/update")

        waiting = await client.start_tool_task("task_wait")
        assert waiting.task_id is not None and waiting.status == "working"
        await waiting.cancel()
        assert waiting.status == "cancelled"
        assert await waiting.refresh() == "cancelled"

        # without the opt-in: an optional tool at once, a required one as a plain tool
        assert (await client.call_tool("slow_add", {"a": 1, "b": 1})).structured_content == {
            "result": 2
        }
        plain = await client.call_tool("report", {"topic": "plain"})
        assert plain.content[0].text == "report on plain"  # type: ignore[union-attr]
        with pytest.raises(McpError) as unknown:
            await client.request("tasks/get", {"taskId": "no-such-task"})
        assert unknown.value.code == -32021  # not opted in
    created = [
        m["result"]
        for m in checker.received()
        if isinstance(m.get("result"), dict) and m["result"].get("resultType") == "task"
    ]
    assert len(created) == 4
    details = [
        m["result"]
        for m in checker.received()
        if isinstance(m.get("result"), dict) and m["result"].get("status") == "input_required"
    ]
    assert details and all("inputRequests" in d for d in details)
    inlined = [
        m["result"]["result"]
        for m in checker.received()
        if isinstance(m.get("result"), dict) and m["result"].get("status") == "completed"
    ]
    assert inlined and all(r["resultType"] == "complete" for r in inlined)
