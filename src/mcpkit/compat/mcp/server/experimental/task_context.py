"""1.x's ``ServerTaskContext``: what a task's work function talks through (its status,
elicitation and sampling while it runs), on mcpkit's :class:`~mcpkit.tasks.TaskRequestContext`."""

from __future__ import annotations

from typing import Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_REQUEST, JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.tasks import TaskReceiver, TaskRequestContext

__all__ = ["ServerTaskContext"]


def _wire(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, list):
        return [_wire(item) for item in value]
    return value


class ServerTaskContext:
    """The running task a ``run_task`` work function is given."""

    def __init__(self, rctx: TaskRequestContext, manager: TaskReceiver) -> None:
        self._rctx = rctx
        self._manager = manager

    @property
    def task_id(self) -> str:
        """The task's id."""
        return self._rctx.tid

    @property
    def is_cancelled(self) -> bool:
        """True once the task was cancelled."""
        return bool(self._rctx.cancelled)

    async def update_status(self, message: str, *, notify: bool = True) -> None:
        """Set the (working) task's ``statusMessage``; ``notify``: announce it."""
        info = await self._manager.store.set_message(self.task_id, message)
        if info is not None and notify:
            await self._manager._announce(self.task_id, info)

    def _require(self, capability: str) -> None:
        if not has_capability(self._rctx.session.lifecycle.peer_capabilities, (capability,)):
            raise McpError(INVALID_REQUEST, f"Client does not support {capability} capability")

    async def _ask(self, method: str, params: JSONObject) -> Any:
        """Send ``method`` to the client as 1.x delivers a task's requests: the task
        ``input_required`` at once, the request held until the client's ``tasks/result``
        for the task is blocked, and sent on that request's stream."""
        async with self._rctx.awaiting_input():
            wait = getattr(self._manager, "result_requested", None)
            if wait is not None:
                await wait(self.task_id)
            return await self._rctx.request(method, params)

    async def elicit(self, message: str, requestedSchema: Any) -> Any:
        """Ask the client (form elicitation); the task is ``input_required`` meanwhile."""
        from mcpkit.compat.mcp import types

        self._require("elicitation")
        params: JSONObject = {
            "mode": "form",
            "message": message,
            "requestedSchema": _wire(requestedSchema),
        }
        raw = await self._ask("elicitation/create", params)
        return types.ElicitResult.model_validate(raw)

    async def create_message(
        self,
        messages: list[Any],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        include_context: Any = None,
        temperature: float | None = None,
        stop_sequences: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        model_preferences: Any = None,
        tools: list[Any] | None = None,
        tool_choice: Any = None,
    ) -> Any:
        """Ask the client to sample; the task is ``input_required`` meanwhile."""
        from mcpkit.compat.mcp import types

        self._require("sampling")
        params: JSONObject = {"messages": _wire(messages), "maxTokens": max_tokens}
        optional = {
            "systemPrompt": system_prompt,
            "includeContext": include_context,
            "temperature": temperature,
            "stopSequences": stop_sequences,
            "metadata": metadata,
            "modelPreferences": _wire(model_preferences),
            "tools": _wire(tools),
            "toolChoice": _wire(tool_choice),
        }
        params.update({k: v for k, v in optional.items() if v is not None})
        raw = await self._ask("sampling/createMessage", params)
        return types.CreateMessageResult.model_validate(raw)
