"""1.x's ``ctx.experimental`` of a request: whether it is task-augmented, the check of a
tool's task mode, and ``run_task`` (a task on mcpkit's engine, its work in the background)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from mcpkit.compat.mcp.server.experimental.task_context import ServerTaskContext, _wire
from mcpkit.errors import McpError
from mcpkit.jsonrpc import METHOD_NOT_FOUND, JSONObject
from mcpkit.session import RequestContext
from mcpkit.tasks import TaskReceiver, TaskRequestContext

__all__ = ["MODEL_IMMEDIATE_RESPONSE_KEY", "Experimental"]

MODEL_IMMEDIATE_RESPONSE_KEY = "io.modelcontextprotocol/model-immediate-response"


@dataclass
class Experimental:
    """``server.request_context.experimental``."""

    task_metadata: Any = None
    _client_capabilities: Any = field(default=None, repr=False)
    _rctx: RequestContext | None = field(default=None, repr=False)
    _manager: TaskReceiver | None = field(default=None, repr=False)

    @property
    def is_task(self) -> bool:
        """Whether the request is task-augmented."""
        return self.task_metadata is not None

    @property
    def client_supports_tasks(self) -> bool:
        """Whether the client declared tasks."""
        caps = self._client_capabilities
        return isinstance(caps, dict) and caps.get("tasks") is not None

    def validate_task_mode(self, tool_task_mode: Any, *, raise_error: bool = True) -> Any:
        """None when the request fits the tool's ``taskSupport``, else the error (raised as
        ``McpError`` unless ``raise_error`` is False)."""
        from mcpkit.compat.mcp import types

        mode = tool_task_mode or "forbidden"
        message = None
        if mode == "required" and not self.is_task:
            message = "This tool requires task-augmented invocation"
        elif mode == "forbidden" and self.is_task:
            message = "This tool does not support task-augmented invocation"
        if message is None:
            return None
        if raise_error:
            raise McpError(METHOD_NOT_FOUND, message)
        return types.ErrorData(code=METHOD_NOT_FOUND, message=message)

    def validate_for_tool(self, tool: Any, *, raise_error: bool = True) -> Any:
        """:meth:`validate_task_mode` with the tool's own mode."""
        execution = getattr(tool, "execution", None)
        mode = getattr(execution, "task_support", None) if execution is not None else None
        return self.validate_task_mode(mode, raise_error=raise_error)

    def can_use_tool(self, tool_task_mode: Any) -> bool:
        """False for a task-required tool when the client has no tasks."""
        return not (tool_task_mode == "required" and not self.client_supports_tasks)

    async def run_task(
        self,
        work: Callable[[ServerTaskContext], Awaitable[Any]],
        *,
        task_id: str | None = None,
        model_immediate_response: str | None = None,
    ) -> Any:
        """Create the task, run ``work(task)`` in the background (its result completes the
        task, its exception fails it) and return the ``CreateTaskResult``."""
        from mcpkit.compat.mcp import types

        if self._manager is None:
            raise RuntimeError(
                "Task support not enabled. Call server.experimental.enable_tasks() first."
            )
        if self._rctx is None or self.task_metadata is None:
            raise RuntimeError(
                "Request is not task-augmented (no task field in params). "
                "The client must send a task-augmented request."
            )
        manager = self._manager

        async def run(trctx: RequestContext) -> JSONObject:
            assert isinstance(trctx, TaskRequestContext)
            result = _wire(await work(ServerTaskContext(trctx, manager)))
            return result if isinstance(result, dict) else {}

        created = await manager.start(self._rctx, _wire(self.task_metadata), run)
        if model_immediate_response is not None:
            created["_meta"] = {MODEL_IMMEDIATE_RESPONSE_KEY: model_immediate_response}
        return types.CreateTaskResult.model_validate(created)
