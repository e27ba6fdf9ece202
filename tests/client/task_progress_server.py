"""An mcpkit ``Server`` whose task tool reports progress only after the task was created
(it waits for the ``release`` tool), for the task progress tests (in memory via
``make_app()``; on stdio when run as a module)."""

from __future__ import annotations

import asyncio

from mcpkit import Context, Server
from mcpkit.server.tasks import TaskManager


def make_app() -> Server:
    """A fresh app; ``steps`` holds until ``release`` is called, then reports 3 steps."""
    app = Server("task-progress-app", tasks=TaskManager(poll_interval=20))
    gate = asyncio.Event()

    @app.tool(task_support="optional")
    async def steps(ctx: Context) -> str:
        """Reports three steps of progress once released."""
        await gate.wait()
        for i in (1, 2, 3):
            await ctx.progress(i, total=3, message=f"step {i}")
        return "done"

    @app.tool(task_support="optional")
    async def stuck(ctx: Context) -> str:
        """Reports one step, then never ends."""
        await gate.wait()
        await ctx.progress(1, total=2)
        await asyncio.Event().wait()
        return "never"

    @app.tool()
    def release() -> str:
        """Lets ``steps`` and ``stuck`` go on."""
        gate.set()
        return "released"

    return app


if __name__ == "__main__":
    make_app().run()
