"""A server for the CLI tests of ``call --task``: a tool that may run as a task and reports
progress, one that only runs as a task, one that asks the user while it runs, one that is never
a task, and one that reports a tool error."""

from __future__ import annotations

import asyncio

from mcpkit import Context, Server, ToolError

app = Server("tasks", version="0.1")

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@app.tool(task_support="optional")
async def render(frames: int, ctx: Context) -> str:
    """Render some frames (slow), reporting progress."""
    for frame in range(1, frames + 1):
        await asyncio.sleep(0.05)
        await ctx.progress(frame, total=frames)
    return f"rendered {frames} frames (task {ctx.task_id is not None})"


@app.tool(task_support="required")
async def deploy(service: str) -> str:
    """Deploy a service (only as a task)."""
    await asyncio.sleep(0.2)
    return f"{service} deployed"


@app.tool(task_support="required")
async def confirm(service: str, ctx: Context) -> str:
    """Ask who deploys while the task runs."""
    answer = await ctx.elicit(f"Deploy {service}?", NAME)
    if answer.action == "accept" and answer.content is not None:
        return f"{service} deployed by {answer.content['name']}"
    return f"{service}: user chose {answer.action}"


@app.tool(task_support="required")
async def stall(seconds: float) -> str:
    """Sleep a long time (to be cancelled)."""
    await asyncio.sleep(seconds)
    return "woke up"


@app.tool(task_support="optional")
async def broken() -> str:
    """Always a tool error."""
    raise ToolError("the renderer is out of paint")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two numbers (never a task)."""
    return a + b


if __name__ == "__main__":
    app.run()
