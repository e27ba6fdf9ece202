"""The Client against a real mcpkit ``Server``: in memory (``Client(app)``) and over stdio."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from mcpkit.client import Client, StdioOptions
from mcpkit.errors import MissingClientCapability
from mcpkit.types import CreateMessageResult, TextContent
from tests.client import app_server
from tests.conftest import ROOT, server_env


def target(kind: str) -> Any:
    if kind == "memory":
        return app_server.app
    return [sys.executable, "-m", "tests.client.app_server"]


def client(kind: str, wire: Any, **kwargs: Any) -> Client:
    kwargs.setdefault("tracer", wire())
    if kind == "stdio":
        kwargs.setdefault("connection", StdioOptions(env=server_env(), cwd=str(ROOT)))
    return Client(target(kind), **kwargs)


async def test_tools_structured_progress_and_logs(kind: str, wire: Any) -> None:
    logs: list[Any] = []
    progress: list[tuple[float, float | None, str | None]] = []
    async with client(kind, wire, on_log=logs.append) as c:
        assert c.server_info.name == "client-test-app" and c.server_info.version == "3.1.4"
        assert c.instructions == "Be brief."
        names = {t.name for t in await c.list_tools()}
        assert {"forecast", "add", "ask", "who", "count_roots"} <= names
        result = await c.call_tool(
            "forecast", {"city": "Oslo"}, on_progress=lambda p, t, m: progress.append((p, t, m))
        )
        assert result.structured_content == {"city": "Oslo", "temp": 21.5}
        assert progress == [(1, 2, "fetching"), (2, 2, "done")]
        assert logs and logs[0].data == "forecasting Oslo"
        added = await c.call_tool("add", {"a": 2, "b": 3})
        assert not added.is_error
        assert added.structured_content == {"result": 5}
        bad = await c.call_tool("add", {"a": "x", "b": 3})
        assert bad.is_error  # invalid arguments are a tool execution error (2025-11-25)


async def test_resources_and_prompts(kind: str, wire: Any) -> None:
    async with client(kind, wire) as c:
        resources = await c.list_resources()
        assert [r.uri for r in resources] == ["res://hello"]
        read = await c.read_resource("res://hello")
        assert read.contents[0].text == "hello from the app"  # type: ignore[union-attr]
        prompts = await c.list_prompts()
        assert prompts[0].name == "greet"
        got = await c.get_prompt("greet", {"who": "Ada"})
        assert got.messages[0].content.text == "Say hello to Ada"  # type: ignore[union-attr]


async def test_sampling_elicitation_roots_round_trip(kind: str, wire: Any) -> None:
    def sample(params: Any, ctx: Any) -> CreateMessageResult:
        return CreateMessageResult(
            role="assistant", content=TextContent(text="42"), model="fake-llm"
        )

    def elicit(params: Any, ctx: Any) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": "Ada"}}

    async with client(
        kind,
        wire,
        sampling_handler=sample,
        elicitation_handler=elicit,
        roots=["file:///a", "file:///b"],
    ) as c:
        asked = await c.call_tool("ask", {"question": "meaning of life?"})
        assert asked.content[0].text == "42"  # type: ignore[union-attr]
        who = await c.call_tool("who")
        assert not who.is_error, who
        assert "accept" in who.content[0].text and "30" in who.content[0].text  # type: ignore[union-attr]
        roots = await c.call_tool("count_roots")
        assert roots.structured_content == {"result": 2}
        await c.set_roots(["file:///only"])
        roots = await c.call_tool("count_roots")
        assert roots.structured_content == {"result": 1}


async def test_in_memory_lifespan_spans_the_connection(wire: Any) -> None:
    app_server.events.clear()
    async with Client(app_server.app, tracer=wire()) as c:
        assert app_server.events == ["start"]
        await c.ping()
    assert app_server.events == ["start", "stop"]


async def test_without_handlers_server_features_fail_cleanly(kind: str, wire: Any) -> None:
    async with client(kind, wire) as c:
        if c.modern:  # the stateless wire names the capability the call needs
            with pytest.raises(MissingClientCapability) as info:
                await c.call_tool("ask", {"question": "x"})
            assert "sampling" in info.value.required
        else:
            result = await c.call_tool("ask", {"question": "x"})
            assert result.is_error  # the server cannot sample: no sampling capability
