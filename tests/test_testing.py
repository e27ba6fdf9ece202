"""mcpkit.testing: an in-memory connection for a test, and one tool call."""

from __future__ import annotations

import asyncio

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.testing import call_tool, connected
from mcpkit.types import CreateMessageResult

app = Server("under-test", version="1.0")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
async def ask(question: str, ctx: Context) -> str:
    """Ask the client's LLM, log its answer."""
    answer = await ctx.sample(question, max_tokens=10)
    text = getattr(answer.content, "text", "")
    await ctx.info(f"the LLM said {text}")
    return text


@app.tool()
async def stall(ctx: Context) -> str:
    """Never answers in time."""
    await asyncio.sleep(30)
    return "late"


async def test_call_tool_is_one_call_on_its_own_connection() -> None:
    result = await call_tool(app, "add", {"a": 2, "b": 3})
    assert result.structured_content == {"result": 5}
    assert not result.is_error
    bad = await call_tool(app, "add", {"a": "two", "b": 3})
    assert bad.is_error  # invalid arguments are a tool error in 2025-11-25
    with pytest.raises(McpError):
        await call_tool(app, "no_such_tool")


async def test_connected_takes_the_clients_handlers_and_hooks() -> None:
    logs: list[object] = []

    async def llm(params: object, ctx: object) -> CreateMessageResult:
        return CreateMessageResult.from_wire(
            {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "m"}
        )

    async with connected(app, sampling_handler=llm, on_log=logs.append) as client:
        assert client.server_info.name == "under-test"
        result = await client.call_tool("ask", {"question": "6 x 7?"})
        assert result.text == "42"
    assert [getattr(log, "data", None) for log in logs] == ["the LLM said 42"]


async def test_a_hung_tool_fails_the_test_quickly() -> None:
    async with connected(app, timeout=0.2) as client:
        with pytest.raises(McpError, match=r"(?i)timed out|timeout"):
            await client.call_tool("stall")
