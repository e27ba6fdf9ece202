"""``mcp.server.experimental`` on mcpkit: 1.x's experimental tasks API (``run_task``,
:class:`~mcpkit.compat.mcp.server.experimental.task_context.ServerTaskContext`) over
mcpkit's own tasks engine (:class:`mcpkit.server.tasks.TaskManager`)."""

from __future__ import annotations

from mcpkit.compat.mcp.server.experimental.request_context import Experimental
from mcpkit.compat.mcp.server.experimental.task_context import ServerTaskContext

__all__ = ["Experimental", "ServerTaskContext"]
