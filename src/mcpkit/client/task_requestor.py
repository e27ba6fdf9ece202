"""The client as the requestor of tasks (2025-11-25): task-augmented ``tools/call`` and
``tasks/get`` / ``tasks/result`` / ``tasks/list`` / ``tasks/cancel``.

:class:`TaskRequestor` serves the task methods of :class:`~mcpkit.client.Client`. Before
anything is sent it checks the negotiated revision has tasks and the server declared the
capability the request needs (:class:`TaskNotSupported` otherwise). It remembers which
tool each task it created runs (so ``tasks/result`` is checked against that tool's output
schema) and keeps a task's progress flowing to the caller's ``on_progress`` until the task
is seen terminal, its ttl runs out or the connection closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import pydantic

from mcpkit.client.arguments import arguments_to_wire
from mcpkit.client.errors import TaskNotSupported
from mcpkit.client.results import all_pages, cursor_params, parse
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.session import ProgressCallback
from mcpkit.tasks import TERMINAL, TaskStatusTracker, task_params, wait_for_task

if TYPE_CHECKING:
    from mcpkit.client.client import Client
    from mcpkit.timeouts import TimeoutTypes
    from mcpkit.types import (
        CallToolResult,
        CancelTaskResult,
        GetTaskResult,
        ListTasksResult,
        Task,
        TaskStatusNotificationParams,
    )

__all__ = ["MAX_TASKS_KEPT", "TaskRequestor"]

#: How many task ids -> tool names (and task progress listeners) the client remembers.
MAX_TASKS_KEPT: Final = 1000


class TaskRequestor:
    """The requestor side of tasks for one :class:`~mcpkit.client.Client`."""

    def __init__(self, client: Client, *, on_progress: ProgressCallback | None = None) -> None:
        self._client = client
        self._on_progress = on_progress
        self.tracker = TaskStatusTracker()
        # task id -> tool name, for tasks this client created (output checks of results)
        self._task_tools: dict[str, str] = {}
        # task id -> release of its progress listener (tasks created with on_progress)
        self._task_progress: dict[str, Callable[[], None]] = {}
        self._progress_tokens = itertools.count(1)

    # -- capability checks ---------------------------------------------------------------------

    def need(self, path: tuple[str, ...], what: str) -> None:
        """Raise :class:`TaskNotSupported` unless tasks (capability ``tasks.<path>``) can be
        used for ``what`` on this connection."""
        version = self._client.negotiated_version
        if version is not None and not version.tasks:
            raise TaskNotSupported(
                f"Tasks need protocol revision 2025-11-25 or later; this connection "
                f"negotiated {version.name} ({what})"
            )
        if not has_capability(self._client.session.server_capabilities, ("tasks", *path)):
            raise TaskNotSupported(
                f"The server did not declare the capability {'.'.join(('tasks', *path))!r} "
                f"needed for {what}"
            )

    def _tool_tasks_declared(self) -> bool:
        version = self._client.negotiated_version
        return (version is None or version.tasks) and has_capability(
            self._client.session.server_capabilities, ("tasks", "requests", "tools", "call")
        )

    def refuse_plain_call(self, name: str) -> None:
        """A plain ``tools/call`` of a tool whose ``taskSupport`` is ``"required"``: raise
        :class:`TaskNotSupported` (when the server runs tools as tasks at all)."""
        if self._tool_tasks_declared():
            raise TaskNotSupported(
                f"Tool {name!r} must be run as a task (its execution.taskSupport is "
                "'required'): use call_tool_as_task()"
            )

    async def explain_not_found(self, name: str, exc: McpError) -> None:
        """A plain call answered -32601: if the tool requires a task, say so clearly."""
        if not self._tool_tasks_declared():
            return
        catalogue = self._client.tool_catalogue
        if not catalogue.knows(name):
            await catalogue.refresh()
        if catalogue.requires_task(name):
            try:
                self.refuse_plain_call(name)
            except TaskNotSupported as clearer:
                raise clearer from exc

    # -- requests ------------------------------------------------------------------------------

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | pydantic.BaseModel | None,
        *,
        ttl: int | None,
        timeout: TimeoutTypes,
        on_progress: ProgressCallback | None,
        meta: Mapping[str, Any] | None,
    ) -> Task:
        """See :meth:`Client.call_tool_as_task`."""
        from mcpkit.types import CreateTaskResult

        client = self._client
        self.need(("requests", "tools", "call"), "task-augmented tools/call")
        catalogue = client.tool_catalogue
        if not catalogue.knows(name):
            await catalogue.refresh()
        support = catalogue.task_support(name)
        if catalogue.knows(name) and support not in ("optional", "required"):
            raise TaskNotSupported(
                f"Tool {name!r} cannot run as a task (its execution.taskSupport is "
                f"{support or 'absent, i.e. forbidden'!s}): use call_tool()"
            )
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments_to_wire(arguments)
        params["task"] = task_params(True if ttl is None else ttl)
        if meta:
            params["_meta"] = dict(meta)
        progress = on_progress or self._on_progress
        release: Callable[[], None] | None = None
        if progress is not None:
            # The token outlives the request, so the engine's per-request routing won't do:
            # a string token (request ids are ints) routed by a listener until the task ends.
            token = f"mcpkit-task-{next(self._progress_tokens)}"
            params["_meta"] = {**params.get("_meta", {}), "progressToken": token}
            release = client.session.listen_progress(token, progress)
        try:
            raw = await client.request("tools/call", params, timeout=timeout)
            created = parse(CreateTaskResult, raw, "tools/call")
        except BaseException:
            if release is not None:
                release()
            raise
        task: Task = created.task
        tools = self._task_tools
        tools[task.task_id] = name
        if len(tools) > MAX_TASKS_KEPT:
            del tools[next(iter(tools))]
        if release is not None:
            self._keep_progress(task, release)
        return task

    async def get(self, task_id: str) -> GetTaskResult:
        """See :meth:`Client.get_task`."""
        from mcpkit.types import GetTaskResult

        self.need((), "tasks/get")
        raw = await self._client.request("tasks/get", {"taskId": task_id})
        got = parse(GetTaskResult, raw, "tasks/get")
        self.seen(got)
        return got

    async def result(
        self, task_id: str, *, timeout: TimeoutTypes, raise_on_error: bool
    ) -> CallToolResult:
        """See :meth:`Client.get_task_result`."""
        client = self._client
        self.need((), "tasks/result")
        try:
            raw = await client.request("tasks/result", {"taskId": task_id}, timeout=timeout)
        except McpError as exc:
            if not isinstance(exc, TimeoutError):  # the task failed, was cancelled or is gone
                self._ended(task_id)
            raise
        self._ended(task_id)  # tasks/result answers once the task is terminal
        return await client.tool_catalogue.tool_result(
            self._task_tools.get(task_id),
            raw,
            validate=client.validate_output,
            raise_on_error=raise_on_error,
            method="tasks/result",
        )

    async def wait(self, task_id: str, *, poll: bool, timeout: float | None) -> GetTaskResult:
        """See :meth:`Client.wait_task`."""
        from mcpkit.types import GetTaskResult

        client = self._client
        self.need((), "tasks/get")

        async def drain() -> None:
            with contextlib.suppress(McpError):
                await client.request("tasks/result", {"taskId": task_id}, timeout=None)

        async def get_raw() -> JSONObject:
            raw = await client.request("tasks/get", {"taskId": task_id})
            self.seen(parse(GetTaskResult, raw, "tasks/get"))
            return dict(raw)

        async with asyncio.timeout(timeout):
            if not poll:
                await drain()
                return await self.get(task_id)
            raw = await wait_for_task(
                get_raw, task_id, tracker=self.tracker, on_input_required=drain
            )
        return parse(GetTaskResult, raw, "tasks/get")

    async def list_page(self, cursor: str | None) -> ListTasksResult:
        """See :meth:`Client.list_tasks_page`."""
        from mcpkit.types import ListTasksResult

        self.need(("list",), "tasks/list")
        raw = await self._client.request("tasks/list", cursor_params(cursor))
        page = parse(ListTasksResult, raw, "tasks/list")
        for task in page.tasks:
            self.seen(task)
        return page

    async def list_all(self) -> list[Task]:
        """See :meth:`Client.list_tasks`."""
        from mcpkit.types import ListTasksResult

        self.need(("list",), "tasks/list")
        items, _ = await all_pages(
            self._client.request, "tasks/list", ListTasksResult, lambda p: p.tasks, "tasks"
        )
        for task in items:
            self.seen(task)
        return items

    async def cancel(self, task_id: str) -> CancelTaskResult:
        """See :meth:`Client.cancel_task`."""
        from mcpkit.types import CancelTaskResult

        self.need(("cancel",), "tasks/cancel")
        try:
            raw = await self._client.request("tasks/cancel", {"taskId": task_id})
            result = parse(CancelTaskResult, raw, "tasks/cancel")
        except McpError as exc:
            if exc.code == INVALID_PARAMS:  # already terminal (or unknown)
                self._ended(task_id)
            raise
        self.seen(result)
        return result

    # -- task state seen -----------------------------------------------------------------------

    def status_notification(
        self, params: JSONObject | None, typed: TaskStatusNotificationParams
    ) -> None:
        """``notifications/tasks/status`` arrived (``typed``: its validated params)."""
        self.tracker.observe(params)
        self.seen(typed)

    def seen(self, task: Task) -> None:
        """A task state arrived: a terminal one ends the task's progress."""
        if self._task_progress and task.status in TERMINAL:
            self._ended(task.task_id)

    def _keep_progress(self, task: Task, release: Callable[[], None]) -> None:
        """Keep routing ``task``'s progress until it is terminal (or its ttl runs out)."""
        task_id = task.task_id
        if task.status in TERMINAL:
            release()
            return
        kept = self._task_progress
        old = kept.pop(task_id, None)
        if old is not None:
            old()
        if task.ttl is not None:  # past its ttl the server may forget the task
            handle = asyncio.get_running_loop().call_later(task.ttl / 1000, self._ended, task_id)

            def release_and_stop_timer() -> None:
                handle.cancel()
                release()

            kept[task_id] = release_and_stop_timer
        else:
            kept[task_id] = release
        if len(kept) > MAX_TASKS_KEPT:
            kept.pop(next(iter(kept)))()

    def _ended(self, task_id: str) -> None:
        release = self._task_progress.pop(task_id, None)
        if release is not None:
            release()

    def close(self) -> None:
        """The connection ended: stop routing every task's progress."""
        for release in self._task_progress.values():
            release()
        self._task_progress.clear()
