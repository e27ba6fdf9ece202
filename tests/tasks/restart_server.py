"""A server whose tasks live in SQLite (the database path is argv[1]), over stdio."""

from __future__ import annotations

import asyncio
import sys

from mcpkit import Server
from mcpkit.server.tasks import TaskManager
from mcpkit.sqlite_task_store import SQLiteTaskStore

app = Server("restart", tasks=TaskManager(SQLiteTaskStore(sys.argv[1]), poll_interval=20))


@app.tool(task_support="required")
async def quick(n: int) -> str:
    """Finishes at once."""
    return f"answer {n * 2}"


@app.tool(task_support="required")
async def forever() -> str:
    """Never finishes."""
    await asyncio.Event().wait()
    return "never"


if __name__ == "__main__":
    app.run("stdio")
