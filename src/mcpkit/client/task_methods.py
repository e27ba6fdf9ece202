"""The task methods of a :class:`~mcpkit.Client`: the client as the requestor of tasks.

:class:`TaskMethods` is the part of :class:`~mcpkit.Client` that offers them
(:meth:`~TaskMethods.start_tool_task`, :meth:`~TaskMethods.call_tool_as_task`,
``get_task``, ``wait_task``, ``get_task_result``, ``list_tasks``, ``cancel_task``); the
client's :class:`~mcpkit.client.task_requestor.TaskRequestor` does the work (capability
checks, both task designs, progress for a task's lifetime).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcpkit._defaults import DEFAULT

if TYPE_CHECKING:
    from mcpkit.client.arguments import Arguments
    from mcpkit.client.task_requestor import TaskHandle, TaskRequestor
    from mcpkit.session import ProgressCallback
    from mcpkit.timeouts import TimeoutTypes
    from mcpkit.types import (
        CallToolResult,
        CancelTaskResult,
        GetTaskResult,
        ListTasksResult,
        Task,
    )

__all__ = ["TaskMethods"]


class TaskMethods:
    """The task methods of :class:`~mcpkit.Client` (a base of the client)."""

    _task_requestor: TaskRequestor

    async def start_tool_task(
        self,
        name: str,
        arguments: Arguments | None = None,
        *,
        ttl: int | None = None,
        timeout: TimeoutTypes = DEFAULT,
        meta: Mapping[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> TaskHandle:
        """Run tool ``name`` as a task, whichever design the connection speaks (2025-11-25
        task-augmented calls, or the 2026-07-28 tasks extension), and return its
        :class:`~mcpkit.client.task_requestor.TaskHandle`: ``await handle.result()``,
        ``handle.status``, ``await handle.cancel()``. See
        :func:`~mcpkit.client.task_requestor.start_tool_task`."""
        return await self._task_requestor.start(
            name, arguments, ttl=ttl, timeout=timeout, meta=meta, on_progress=on_progress
        )

    async def call_tool_as_task(
        self,
        name: str,
        arguments: Arguments | None = None,
        *,
        ttl: int | None = None,
        timeout: TimeoutTypes = DEFAULT,
        on_progress: ProgressCallback | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> Task:
        """Call tool ``name`` as a task; return the created :class:`~mcpkit.types.Task` at
        once (the tool runs on at the server).

        ``on_progress(progress, total, message)`` (default: the client's ``on_progress``)
        receives the tool's progress for the task's whole lifetime, not just until the task
        is created: until this client sees the task terminal (a status notification,
        :meth:`get_task`, :meth:`wait_task`, :meth:`get_task_result`, :meth:`cancel_task`,
        :meth:`list_tasks`), its ``ttl`` runs out, or the connection closes.

        ``ttl`` (milliseconds) asks how long the server keeps the task and its result (the
        server may cap it; the returned task says what it chose). Follow up with
        :meth:`wait_task`, :meth:`get_task_result` (blocks, returns the ``CallToolResult``)
        or :meth:`cancel_task`. Raises :class:`TaskNotSupported` before sending when the
        server did not declare ``tasks.requests.tools.call`` or the tool's
        ``execution.taskSupport`` is absent or ``"forbidden"`` (the tool list is fetched
        first when it is not known yet).
        """
        return await self._task_requestor.call_tool(
            name, arguments, ttl=ttl, timeout=timeout, on_progress=on_progress, meta=meta
        )

    async def get_task(self, task_id: str) -> GetTaskResult:
        """The task's current state (``tasks/get``)."""
        return await self._task_requestor.get(task_id)

    async def get_task_result(
        self,
        task_id: str,
        *,
        timeout: TimeoutTypes = None,
        raise_on_error: bool = False,
    ) -> CallToolResult:
        """The tool's result (``tasks/result``), blocking until the task ends (``timeout``
        seconds; None waits as long as it takes).

        As :meth:`~mcpkit.Client.call_tool`: ``structuredContent`` is checked against the
        tool's ``outputSchema`` (for tasks this client created) and ``raise_on_error``
        raises :class:`ToolError`. A task that failed with a protocol error raises that
        :class:`~mcpkit.errors.McpError`; a cancelled one raises -32602.
        """
        return await self._task_requestor.result(
            task_id, timeout=timeout, raise_on_error=raise_on_error
        )

    async def wait_task(
        self, task_id: str, *, poll: bool = True, timeout: float | None = None
    ) -> GetTaskResult:
        """Wait until the task is ``completed``, ``failed`` or ``cancelled``; return its
        final state (``TimeoutError`` after ``timeout`` seconds).

        ``poll=True`` polls ``tasks/get`` at the server's ``pollInterval``, woken early by
        ``notifications/tasks/status``; on ``input_required`` it calls ``tasks/result`` so
        the server can deliver its requests (elicitation, sampling) for the task.
        ``poll=False`` blocks on ``tasks/result`` instead, then reads the final state.
        """
        return await self._task_requestor.wait(task_id, poll=poll, timeout=timeout)

    async def list_tasks_page(self, cursor: str | None = None) -> ListTasksResult:
        """One page of the server's tasks for this client (``tasks/list``)."""
        return await self._task_requestor.list_page(cursor)

    async def list_tasks(self) -> list[Task]:
        """Every task the server keeps for this client (all pages followed)."""
        return await self._task_requestor.list_all()

    async def cancel_task(self, task_id: str) -> CancelTaskResult:
        """Cancel a task (``tasks/cancel``); returns its state, now ``cancelled``. A task
        already finished answers -32602."""
        return await self._task_requestor.cancel(task_id)
