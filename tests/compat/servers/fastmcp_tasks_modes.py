"""fastmcp background tasks in every mode, run by fastmcp_tasks' extension (or mcpkit's)."""

import asyncio
import sys
from datetime import timedelta

from fastmcp import FastMCP
from fastmcp.dependencies import Progress
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

mcp = FastMCP("Task Modes")
mcp.add_extension(TasksExtension())


@mcp.tool(task=TaskConfig(mode="required", poll_interval=timedelta(milliseconds=250)))
async def double(n: int) -> int:
    """Doubles n, only as a background task."""
    return n * 2


@mcp.tool(task=True)
async def halfway(progress: Progress = Progress()) -> str:
    """Reports that it is halfway, then waits to be cancelled."""
    await progress.set_total(2)
    await progress.increment()
    await progress.set_message("halfway there")
    await asyncio.sleep(60)
    return "never"


@mcp.tool(task=TaskConfig(mode="forbidden"))
async def plain(n: int) -> int:
    """Never a task."""
    return n + 1


@mcp.tool(task=True)
async def counted(progress: Progress = Progress()) -> str:
    """Reads back its progress."""
    await progress.set_total(3)
    await progress.increment(2)
    await progress.set_message("two of three")
    return f"{progress.current}/{progress.total} {progress.message}"


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]))
