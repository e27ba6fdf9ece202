"""The client as the requestor of tasks: 2025-11-25 task-augmented ``tools/call`` with
``tasks/get`` / ``tasks/result`` / ``tasks/list`` / ``tasks/cancel``, and the 2026-07-28
tasks extension (``io.modelcontextprotocol/tasks``: ``tasks/get`` / ``tasks/update`` /
``tasks/cancel``).

:meth:`TaskRequestor.start` gives one :class:`TaskHandle` for both: on a 2025 connection it
sends a task-augmented call; on a modern one it opts the call in to the extension (in that
request's ``clientCapabilities``), runs its MRTR rounds, and takes what the server answers:
a ``CreateTaskResult`` (a handle to poll) or a complete result (a handle already done).
``await handle.result()`` polls at the server's interval and answers ``input_required`` with
the client's own elicitation, sampling and roots handlers (2025: by calling
``tasks/result``, on whose stream the server sends its requests; 2026: by ``tasks/update``
with the answers to the task's ``inputRequests``).

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
from typing import TYPE_CHECKING, Any, Final, Protocol

import pydantic

from mcpkit._defaults import DEFAULT
from mcpkit.client.arguments import arguments_to_wire
from mcpkit.client.errors import TaskNotSupported
from mcpkit.client.results import all_pages, cursor_params, parse
from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.session import ProgressCallback
from mcpkit.tasks import TERMINAL, TaskStatusTracker, task_params, wait_for_task
from mcpkit.tasks.related import EXTENSION_ID
from mcpkit.timeouts import resolve

if TYPE_CHECKING:
    from mcpkit.client.catalogue import ToolCatalogue
    from mcpkit.client.handlers import ClientHandlers
    from mcpkit.session import ClientSession
    from mcpkit.timeouts import Timeout, TimeoutTypes
    from mcpkit.types import (
        CallToolResult,
        CancelTaskResult,
        GetTaskResult,
        ListTasksResult,
        Task,
        TaskStatusNotificationParams,
    )
    from mcpkit.versions import ProtocolVersion

__all__ = [
    "MAX_TASKS_KEPT",
    "TASKS_EXTENSION",
    "Pipeline",
    "TaskClient",
    "TaskHandle",
    "TaskRequestor",
    "start_tool_task",
]

#: The tasks extension of the 2026-07-28 wire.
TASKS_EXTENSION: Final = EXTENSION_ID
_TASKS_EXTENSION_ONLY: Final[dict[str, Any]] = {TASKS_EXTENSION: {}}

#: How many task ids -> tool names (and task progress listeners) the client remembers.
MAX_TASKS_KEPT: Final = 1000


class TaskClient(Protocol):
    """What the task requestor reads of its client (a :class:`~mcpkit.client.Client` is
    one): the connection's facts, its tool catalogue and plain requests."""

    @property
    def session(self) -> ClientSession: ...

    @property
    def negotiated_version(self) -> ProtocolVersion | None: ...

    @property
    def modern(self) -> bool: ...

    @property
    def tool_catalogue(self) -> ToolCatalogue: ...

    @property
    def validate_output(self) -> bool: ...

    @property
    def timeout(self) -> Timeout:
        """The client's time settings (a request's own seconds replace its per-wait one)."""

    async def request(
        self, method: str, params: JSONObject | None = None, *, timeout: TimeoutTypes = ...
    ) -> Any: ...

    async def start_tool_task(
        self,
        name: str,
        arguments: Mapping[str, Any] | pydantic.BaseModel | None = None,
        *,
        ttl: int | None = None,
        timeout: TimeoutTypes = ...,
        meta: Mapping[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> TaskHandle: ...


class Pipeline(Protocol):
    """The client's request pipeline as the task requestor uses it (a
    :class:`~mcpkit.client.pipeline.RequestPipeline` is one): cache, MRTR rounds, scope,
    envelope (with extra client capabilities), retry, telemetry, session."""

    async def send(
        self,
        method: str,
        params: JSONObject | None,
        timeout: Timeout,
        *,
        mrtr: bool = True,
        extensions: Mapping[str, Any] | None = None,
    ) -> Any: ...


class TaskRequestor:
    """The requestor side of tasks for one :class:`~mcpkit.client.Client`: its requests go
    through the client's ``pipeline``; ``handlers`` answer a modern task's input
    requests."""

    def __init__(
        self,
        client: TaskClient,
        pipeline: Pipeline,
        handlers: ClientHandlers,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> None:
        self._client = client
        self._pipeline = pipeline
        self._handlers = handlers
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

    # -- one handle for both designs -----------------------------------------------------------

    async def start(
        self,
        name: str,
        arguments: Mapping[str, Any] | pydantic.BaseModel | None,
        *,
        ttl: int | None = None,
        timeout: TimeoutTypes,
        meta: Mapping[str, Any] | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> TaskHandle:
        """See :func:`start_tool_task`."""
        client = self._client
        if not client.modern:
            task = await self.call_tool(
                name, arguments, ttl=ttl, timeout=timeout, on_progress=on_progress, meta=meta
            )
            return TaskHandle(self, name, task.task_id, task.status, legacy=True)
        params: JSONObject = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments_to_wire(arguments)
        if meta:
            params["_meta"] = dict(meta)
        raw = await self.modern_request("tools/call", params, timeout=timeout, rounds=True)
        if isinstance(raw, dict) and raw.get("resultType") == "task":
            task_id = raw.get("taskId")
            status = raw.get("status")
            if not isinstance(task_id, str) or not isinstance(status, str):
                raise McpError(INVALID_PARAMS, "The server sent a CreateTaskResult without a task")
            handle = TaskHandle(self, name, task_id, status, legacy=False)
            handle.poll_interval = _interval(raw.get("pollIntervalMs"))
            return handle
        handle = TaskHandle(self, name, None, "completed", legacy=False)
        handle._raw_result = raw  # the server answered at once (no task)
        return handle

    async def modern_request(
        self, method: str, params: JSONObject, *, timeout: TimeoutTypes = None, rounds: bool = False
    ) -> Any:
        """``method`` on the modern wire with the tasks extension in this request's client
        capabilities (MRTR rounds answered by the client's handlers when ``rounds``),
        through the client's request pipeline (cache, envelope, retry, telemetry)."""
        default = self._client.timeout
        return await self._pipeline.send(
            method,
            params,
            default if timeout is None or timeout is DEFAULT else resolve(timeout, default),
            mrtr=rounds,
            extensions=_TASKS_EXTENSION_ONLY,
        )

    async def answer_input(self, task_id: str, input_requests: Any) -> None:
        """Answer a modern task's ``inputRequests`` with the client's handlers
        (``tasks/update``)."""
        from mcpkit.client.mrtr import fulfil

        requests: dict[str, tuple[str, Any]] = {}
        if isinstance(input_requests, Mapping):
            for key, request in input_requests.items():
                inner = request.get("method") if isinstance(request, Mapping) else None
                if isinstance(inner, str):
                    requests[str(key)] = (inner, request.get("params"))
        if not requests:
            return
        responses = await fulfil(requests, self._handlers.input_handlers(self._client.session))
        await self.modern_request("tasks/update", {"taskId": task_id, "inputResponses": responses})

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


def _interval(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) / 1000
    return None


class TaskHandle:
    """A tool call running as a task (either design; see the module docstring).

    ``task_id`` (None when the server answered at once, without a task), ``status`` (the
    last one seen), ``status_message``; :meth:`refresh`, :meth:`wait`, :meth:`result`,
    :meth:`cancel`.
    """

    def __init__(
        self,
        requestor: TaskRequestor,
        tool: str,
        task_id: str | None,
        status: str,
        *,
        legacy: bool,
    ) -> None:
        self._requestor = requestor
        self.tool = tool
        self.task_id = task_id
        self.status = status
        self.status_message: str | None = None
        self.legacy = legacy
        #: Seconds between polls the server suggested (None: the default, 1 s).
        self.poll_interval: float | None = None
        self._raw_result: Any = None
        self._error: JSONObject | None = None
        self._input_requests: Any = None

    @property
    def done(self) -> bool:
        """True once the task is ``completed``, ``failed`` or ``cancelled``."""
        return self.status in TERMINAL

    def __repr__(self) -> str:
        return f"TaskHandle({self.tool!r}, task_id={self.task_id!r}, status={self.status!r})"

    async def refresh(self) -> str:
        """One ``tasks/get``; the status now (input requests are not answered here)."""
        if self.task_id is None or (self.done and not self.legacy):
            return self.status
        if self.legacy:
            got = await self._requestor.get(self.task_id)
            self.status = got.status
            self.status_message = got.status_message
            self.poll_interval = _interval(got.poll_interval)
            return self.status
        raw = await self._requestor.modern_request("tasks/get", {"taskId": self.task_id})
        if not isinstance(raw, dict) or not isinstance(raw.get("status"), str):
            raise McpError(INVALID_PARAMS, "The server sent an invalid task state")
        self.status = raw["status"]
        message = raw.get("statusMessage")
        self.status_message = message if isinstance(message, str) else None
        self.poll_interval = _interval(raw.get("pollIntervalMs")) or self.poll_interval
        if self.status == "completed":
            self._raw_result = raw.get("result")
        elif self.status == "failed":
            error = raw.get("error")
            self._error = error if isinstance(error, dict) else {}
        self._input_requests = raw.get("inputRequests")
        return self.status

    async def wait(self, *, timeout: float | None = None) -> str:
        """Poll until the task is terminal, answering ``input_required`` with the client's
        handlers; the final status. ``timeout`` (seconds) bounds the wait."""
        if self.done:
            return self.status
        assert self.task_id is not None
        requestor = self._requestor
        async with asyncio.timeout(timeout):
            if self.legacy:
                final = await requestor.wait(self.task_id, poll=True, timeout=None)
                self.status = final.status
                self.status_message = final.status_message
                return self.status
            while True:
                status = await self.refresh()
                if status in TERMINAL:
                    return status
                if status == "input_required":
                    await requestor.answer_input(self.task_id, self._input_requests)
                    continue
                await asyncio.sleep(max(self.poll_interval or 1.0, 0.01))

    async def result(
        self, *, timeout: float | None = None, raise_on_error: bool = False
    ) -> CallToolResult:
        """Wait for the task and return the tool's ``CallToolResult`` (its structured content
        checked like :meth:`Client.call_tool`'s). A task that failed raises its JSON-RPC
        error as :class:`~mcpkit.McpError`; a cancelled one raises McpError -32602."""
        await self.wait(timeout=timeout)
        requestor = self._requestor
        client = requestor._client
        if self.legacy:
            assert self.task_id is not None
            return await requestor.result(
                self.task_id, timeout=timeout, raise_on_error=raise_on_error
            )
        if self.status == "failed":
            error = self._error or {}
            raise McpError(
                int(error.get("code", INVALID_PARAMS)),
                str(error.get("message", "The task failed")),
                error.get("data"),
            )
        if self.status == "cancelled":
            raise McpError(INVALID_PARAMS, f"Task {self.task_id} was cancelled")
        return await client.tool_catalogue.tool_result(
            self.tool,
            self._raw_result,
            validate=client.validate_output,
            raise_on_error=raise_on_error,
            method="tasks/get" if self.task_id is not None else "tools/call",
        )

    async def cancel(self) -> None:
        """Ask the server to cancel the task (nothing when it is already finished)."""
        if self.task_id is None or self.done:
            return
        if self.legacy:
            try:
                cancelled = await self._requestor.cancel(self.task_id)
            except McpError as exc:
                if exc.code != INVALID_PARAMS:
                    raise
                await self.refresh()
                return
            self.status = cancelled.status
            return
        await self._requestor.modern_request("tasks/cancel", {"taskId": self.task_id})
        await self.refresh()


async def start_tool_task(
    client: TaskClient,
    name: str,
    arguments: Mapping[str, Any] | pydantic.BaseModel | None = None,
    *,
    ttl: int | None = None,
    timeout: TimeoutTypes = None,
    meta: Mapping[str, Any] | None = None,
    on_progress: ProgressCallback | None = None,
) -> TaskHandle:
    """Run tool ``name`` as a task on ``client``'s connection, whichever design it speaks,
    and return its :class:`TaskHandle` (``await handle.result()`` for the outcome).

    2025-11-25: a task-augmented ``tools/call`` (``ttl`` in milliseconds asks how long the
    server keeps it; :class:`TaskNotSupported` when the server or tool does not allow
    tasks). 2026-07-28: the call opts in to the tasks extension; its MRTR rounds are
    answered by the client's handlers; the server decides whether it becomes a task (a
    complete answer gives a handle that is already done, ``task_id`` None). ``timeout``
    bounds the creating request (default: the client's). ``on_progress(progress, total,
    message)`` gets the tool's progress for the task's whole life on the 2025 wire (a 2026
    task has no stream to send it on).
    """

    return await client.start_tool_task(
        name,
        arguments,
        ttl=ttl,
        timeout=DEFAULT if timeout is None else timeout,
        meta=meta,
        on_progress=on_progress,
    )
