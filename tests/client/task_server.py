"""An mcpkit ``Server`` with task-capable tools, for the task tests (in memory via
``make_app()``; on stdio when run as a module)."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit import Context, McpError, Server, ToolError
from mcpkit.server.tasks import TaskManager


def make_app(gate: asyncio.Event | None = None, **manager: Any) -> Server:
    """The app; ``gate`` holds ``slow`` until set (None: ``slow`` does not wait)."""
    manager.setdefault("poll_interval", 20)
    app = Server("task-test-app", tasks=TaskManager(**manager))

    @app.tool(task_support="optional")
    async def slow(n: int, ctx: Context) -> int:
        """Doubles n (once the gate opens)."""
        await ctx.info("doubling")
        if gate is not None:
            await gate.wait()
        return n * 2

    @app.tool(task_support="required")
    def must_task() -> str:
        """Only as a task."""
        return "done"

    @app.tool()
    def plain() -> str:
        """Never as a task."""
        return "plain"

    @app.tool(task_support="optional")
    def fails() -> str:
        """Always fails."""
        raise ToolError("boom")

    @app.tool(task_support="optional")
    async def forever() -> str:
        """Never ends."""
        await asyncio.Event().wait()
        return "never"

    @app.tool(task_support="optional")
    async def asks(ctx: Context) -> str:
        """Asks the user for a name."""
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"hello {answer.content['name'] if answer.content else '?'}"

    @app.tool(task_support="optional")
    async def sample_task(prompt: str, ctx: Context) -> str:
        """Samples the client's LLM as a task at the client."""
        try:
            result = await ctx.sample(prompt, max_tokens=10, task=60_000)
        except McpError as exc:
            return f"error {exc.code}: {exc.message}"
        return f"{result.model}: {getattr(result.content, 'text', '?')}"

    @app.tool(task_support="optional")
    async def elicit_task(ctx: Context) -> str:
        """Elicits as a task at the client."""
        try:
            answer = await ctx.elicit(
                "Colour?",
                {"type": "object", "properties": {"colour": {"type": "string"}}},
                task=True,
            )
        except McpError as exc:
            return f"error {exc.code}: {exc.message}"
        return f"{answer.action}: {answer.content}"

    @app.tool()
    async def visit_as_task(ctx: Context) -> str:
        """A URL elicitation run as a task at the client."""
        answer = await ctx.elicit_url("Sign in", "https://example.com/login", "e-1", task=True)
        return answer.action

    @app.tool()
    async def sample_with_timeout(ctx: Context) -> str:
        """Samples as a task but gives up quickly."""
        try:
            await ctx.sample("wait", max_tokens=10, task=True, timeout=0.05)
        except TimeoutError:
            return "gave up"
        return "answered"

    return app


app = make_app()

if __name__ == "__main__":
    app.run()
