"""fastmcp's answers on mcpkit's tasks extension: the same tasks, fastmcp's wording of
the refusals (a request without the extension, an unknown task) and of a cancelled task."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcpkit.compat._adapt import _UnknownAsResult
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.tasks import TaskManager
from mcpkit.session import RequestContext

__all__ = ["FastTaskManager", "TaskToolRegistry"]

TASKS = "io.modelcontextprotocol/tasks"
#: -32021: a request the tasks extension serves, without it in its client capabilities.
MISSING_CAPABILITY = -32021
Handler = Callable[[JSONObject | None, RequestContext], Awaitable[Any]]


class FastTaskManager(TaskManager):
    """The server's tasks as fastmcp_tasks answers for them."""

    cancelled_message = None

    def handlers(self) -> dict[str, Handler]:
        """The ``tasks/*`` handlers, their refusals worded as fastmcp_tasks words them."""
        return {method: _worded(handler) for method, handler in super().handlers().items()}


def _worded(handler: Handler) -> Handler:
    async def serve(params: JSONObject | None, rctx: RequestContext) -> Any:
        try:
            return await handler(params, rctx)
        except McpError as exc:
            if exc.code == MISSING_CAPABILITY:
                raise McpError(
                    exc.code,
                    f"This request targets the tasks extension ({TASKS}); the client did "
                    "not declare it for this request.",
                    exc.data,
                ) from None
            if exc.code == INVALID_PARAMS and str(exc).startswith("Unknown task: "):
                task_id = params.get("taskId") if isinstance(params, dict) else None
                raise McpError(INVALID_PARAMS, f"Task {task_id} not found") from None
            raise

    return serve


class TaskToolRegistry(_UnknownAsResult):
    """A fastmcp server's tools: a task-required tool called without the extension is
    refused in fastmcp_tasks' words."""

    async def call_tool(self, params: Any, rctx: Any) -> Any:
        """``tools/call``."""
        try:
            return await super().call_tool(params, rctx)
        except McpError as exc:
            raise _reworded(exc, params) from None

    async def call_tool_timed(self, params: Any, rctx: Any) -> Any:
        """``tools/call`` of a registry with tool timeouts."""
        try:
            return await super().call_tool_timed(params, rctx)
        except McpError as exc:
            raise _reworded(exc, params) from None


def _reworded(exc: McpError, params: Any) -> McpError:
    if exc.code != MISSING_CAPABILITY or not isinstance(params, dict):
        return exc
    return McpError(
        exc.code,
        f"Tool {params.get('name')!r} requires the tasks extension ({TASKS}); the client "
        "did not declare it for this request.",
        exc.data,
    )
