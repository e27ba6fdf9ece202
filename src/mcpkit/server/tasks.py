"""Tasks (2025-11-25, experimental): task-augmented ``tools/call`` and the ``tasks/*`` methods.

A ``tools/call`` whose params carry ``task`` (for a tool with ``execution.taskSupport``
``"optional"`` or ``"required"``) is answered at once with a ``CreateTaskResult``; the tool
runs in the background. The client polls ``tasks/get``, blocks on ``tasks/result`` (which
returns the tool's ``CallToolResult`` with ``_meta["io.modelcontextprotocol/related-task"]``,
or the JSON-RPC error the call would have produced), lists with ``tasks/list`` and stops with
``tasks/cancel``. Status changes are announced with ``notifications/tasks/status``; while the
tool waits on the client (elicitation, sampling, roots) the task is ``input_required``.

State lives behind :class:`TaskStore` (async, so SQLite/Redis stores fit);
:class:`MemoryTaskStore` is the bounded in-memory default. :class:`TaskManager` runs the
executions of one server. Tasks are bound to an owner: by default the session that created
them (for Streamable HTTP, the ``Mcp-Session-Id``; stateless HTTP has no owner, so its tasks
are reachable by id alone: task ids are random 128-bit values). Pass ``owner=`` to bind them
to an authorization context instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal

from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, JSONObject, RequestId
from mcpkit.server.pagination import decode_cursor, encode_cursor
from mcpkit.session import RequestContext

if TYPE_CHECKING:
    from mcpkit.session import Session

__all__ = [
    "RELATED_TASK",
    "TERMINAL",
    "MemoryTaskStore",
    "TaskInfo",
    "TaskLimitError",
    "TaskManager",
    "TaskRequestContext",
    "TaskStatus",
    "TaskStore",
]

logger = logging.getLogger("mcpkit.server.tasks")

RELATED_TASK = "io.modelcontextprotocol/related-task"
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
_NEXT: dict[str, frozenset[str]] = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
}
OwnerFn = Callable[[Any], str | None]
Runner = Callable[[RequestContext], Awaitable[JSONObject]]


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def related_meta(task_id: str) -> JSONObject:
    """The ``_meta`` entry tying a message to a task."""
    return {RELATED_TASK: {"taskId": task_id}}


def with_related(params: JSONObject | None, task_id: str) -> JSONObject:
    """``params`` with ``_meta[related-task]`` set (a copy; the caller's dict is untouched)."""
    out = dict(params) if params else {}
    meta = out.get("_meta")
    out["_meta"] = {**(meta if isinstance(meta, dict) else {}), **related_meta(task_id)}
    return out


@dataclass(slots=True)
class TaskInfo:
    """The state of one task (the wire ``Task``, plus its owner and a listing order)."""

    task_id: str
    status: TaskStatus
    created_at: float  # epoch seconds
    last_updated_at: float
    ttl: int | None  # milliseconds from creation; None = unlimited
    poll_interval: int | None = None
    status_message: str | None = None
    owner: str | None = None
    seq: int = 0

    @property
    def terminal(self) -> bool:
        """True for completed, failed and cancelled."""
        return self.status in TERMINAL

    @property
    def expires_at(self) -> float | None:
        """When the task may be deleted (epoch seconds), None when never."""
        return None if self.ttl is None else self.created_at + self.ttl / 1000

    def to_wire(self) -> JSONObject:
        """The ``Task`` object."""
        out: JSONObject = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.last_updated_at),
            "ttl": self.ttl,
        }
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if self.poll_interval is not None:
            out["pollInterval"] = self.poll_interval
        return out


class TaskLimitError(Exception):
    """The store is full of tasks that may not be evicted yet."""


class TaskStore(ABC):
    """Where tasks and their outcomes live. Implementations must enforce the status rules:
    only ``working <-> input_required -> terminal`` moves, terminal tasks never change."""

    @abstractmethod
    async def create(
        self, *, ttl: int | None, poll_interval: int | None, owner: str | None
    ) -> TaskInfo:
        """A new ``working`` task with a fresh unguessable id (TaskLimitError when full)."""

    @abstractmethod
    async def get(self, task_id: str) -> TaskInfo | None:
        """The task, or None when unknown or expired."""

    @abstractmethod
    async def update(
        self, task_id: str, status: TaskStatus, status_message: str | None = None
    ) -> TaskInfo | None:
        """Move a task to ``status``; None when unknown or the move is not allowed."""

    @abstractmethod
    async def finish(
        self,
        task_id: str,
        status: TaskStatus,
        outcome: JSONObject | None,
        status_message: str | None = None,
    ) -> TaskInfo | None:
        """Move to a terminal ``status`` and keep ``outcome`` (``{"result": ...}`` or
        ``{"error": ...}``) in one step; None when unknown or already terminal."""

    @abstractmethod
    async def outcome(self, task_id: str) -> JSONObject | None:
        """What :meth:`finish` stored (None for none, e.g. a cancelled task)."""

    @abstractmethod
    async def list(
        self, owner: str | None, after: int, limit: int
    ) -> tuple[list[TaskInfo], int | None]:
        """Up to ``limit`` of ``owner``'s tasks after position ``after`` (0 = from the start)
        and the position to continue from (None at the end). ValueError for a position this
        store never issued."""

    @abstractmethod
    async def delete(self, task_id: str) -> None:
        """Forget a task and its outcome."""

    async def wait(self, task_id: str, poll_interval: float) -> None:
        """Return once the task is terminal or gone (this default polls)."""
        while True:
            info = await self.get(task_id)
            if info is None or info.terminal:
                return
            await asyncio.sleep(poll_interval)


class MemoryTaskStore(TaskStore):
    """A bounded in-process store. When ``max_tasks`` are held, expired tasks are purged,
    then the oldest finished ones evicted; a store full of unfinished tasks refuses more."""

    def __init__(self, max_tasks: int = 10_000, clock: Callable[[], float] = time.time) -> None:
        if max_tasks < 1:
            raise ValueError("max_tasks must be at least 1")
        self.max_tasks = max_tasks
        self._clock = clock
        self._tasks: dict[str, TaskInfo] = {}
        self._outcomes: dict[str, JSONObject] = {}
        self._events: dict[str, asyncio.Event] = {}
        self._expiry: list[tuple[float, str]] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._tasks)

    def purge(self) -> None:
        """Delete every task whose ttl has elapsed."""
        now = self._clock()
        heap = self._expiry
        while heap and heap[0][0] <= now:
            _, task_id = heapq.heappop(heap)
            self._forget(task_id)

    def _forget(self, task_id: str) -> None:
        self._tasks.pop(task_id, None)
        self._outcomes.pop(task_id, None)
        event = self._events.pop(task_id, None)
        if event is not None:
            event.set()

    async def create(
        self, *, ttl: int | None, poll_interval: int | None, owner: str | None
    ) -> TaskInfo:
        self.purge()
        if len(self._tasks) >= self.max_tasks:
            victim = next((t for t in self._tasks.values() if t.terminal), None)
            if victim is None:
                raise TaskLimitError(f"Too many unfinished tasks (limit {self.max_tasks})")
            self._forget(victim.task_id)
        now = self._clock()
        self._seq += 1
        info = TaskInfo(
            uuid.uuid4().hex, "working", now, now, ttl, poll_interval, None, owner, self._seq
        )
        self._tasks[info.task_id] = info
        self._events[info.task_id] = asyncio.Event()
        expires = info.expires_at
        if expires is not None:
            heapq.heappush(self._expiry, (expires, info.task_id))
        return info

    async def get(self, task_id: str) -> TaskInfo | None:
        self.purge()
        return self._tasks.get(task_id)

    async def update(
        self, task_id: str, status: TaskStatus, status_message: str | None = None
    ) -> TaskInfo | None:
        info = self._tasks.get(task_id)
        if info is None or status not in _NEXT.get(info.status, ()):
            return None
        info.status = status
        info.status_message = status_message
        info.last_updated_at = self._clock()
        if status in TERMINAL:
            self._events[task_id].set()
        return info

    async def finish(
        self,
        task_id: str,
        status: TaskStatus,
        outcome: JSONObject | None,
        status_message: str | None = None,
    ) -> TaskInfo | None:
        if status not in TERMINAL:
            raise ValueError(f"{status!r} is not a terminal status")
        info = self._tasks.get(task_id)
        if info is None or info.terminal:
            return None
        if outcome is not None:
            self._outcomes[task_id] = outcome
        return await self.update(task_id, status, status_message)

    async def outcome(self, task_id: str) -> JSONObject | None:
        return self._outcomes.get(task_id)

    async def list(
        self, owner: str | None, after: int, limit: int
    ) -> tuple[list[TaskInfo], int | None]:
        if after > self._seq:
            raise ValueError("position never issued")
        self.purge()
        page: list[TaskInfo] = []
        for info in self._tasks.values():
            if info.seq <= after or info.owner != owner:
                continue
            if len(page) == limit:
                return page, page[-1].seq
            page.append(info)
        return page, None

    async def delete(self, task_id: str) -> None:
        self._forget(task_id)

    async def wait(self, task_id: str, poll_interval: float) -> None:
        info = self._tasks.get(task_id)
        event = self._events.get(task_id)
        if info is None or event is None or info.terminal:
            return
        await event.wait()


class TaskRequestContext(RequestContext):
    """The request context a tool sees while it runs as a task: what it sends carries
    ``_meta[related-task]``; requests to the client put the task in ``input_required``."""

    __slots__ = ("manager", "task_id")

    def __init__(self, rctx: RequestContext, task_id: str, manager: TaskManager) -> None:
        super().__init__(rctx.session, rctx.request_id, rctx.method, rctx.params)
        self.task_id = task_id
        self.manager = manager

    @property
    def related_meta(self) -> JSONObject:
        """``{"io.modelcontextprotocol/related-task": {"taskId": ...}}``."""
        return related_meta(self.task_id)

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Progress on the original request's token (valid for the task's lifetime)."""
        token = self.progress_token
        if token is None:
            return
        last = self._last_progress
        if last is not None and progress <= last:
            raise ValueError(f"progress must increase: {progress} after {last}")
        self._last_progress = progress
        params: JSONObject = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.notify("notifications/progress", params)

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        """Best effort: a task outlives the connection that created it (the requestor polls),
        so a notification with nowhere to go is dropped."""
        with contextlib.suppress(ConnectionClosed):
            await self.session.notify(
                method,
                with_related(params, self.task_id),
                related_request_id=self.manager.result_waiter(self.task_id),
            )

    async def request(self, method: str, params: JSONObject | None = None, **kwargs: Any) -> Any:
        kwargs.setdefault("related_request_id", self.manager.result_waiter(self.task_id))
        await self.manager.input_needed(self.task_id, self.session)
        try:
            return await self.session.request(method, with_related(params, self.task_id), **kwargs)
        finally:
            await self.manager.input_received(self.task_id, self.session)


class _Execution:
    __slots__ = ("asyncio_task", "input_waits", "owner", "rctx", "session", "timer", "waiters")

    def __init__(self, session: Session, owner: str | None) -> None:
        self.session = session
        self.owner = owner
        self.rctx: TaskRequestContext | None = None
        self.asyncio_task: asyncio.Task[None] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.input_waits = 0
        #: Ids of ``tasks/result`` requests blocked on this task (newest last).
        self.waiters: list[RequestId] = []


def _default_owner(session: Any) -> str | None:
    transport = getattr(session, "transport", None)
    if transport is not None and hasattr(transport, "session_id"):
        sid = transport.session_id  # Streamable HTTP: the Mcp-Session-Id (None: stateless)
        return None if sid is None else str(sid)
    key = getattr(session, "task_owner_key", None)
    return None if key is None else str(key)


class TaskManager:
    """Runs task-augmented requests of one server and serves ``tasks/*``.

    ``default_ttl``/``max_ttl`` (milliseconds; a requested ttl is capped at ``max_ttl``,
    None = unlimited), ``poll_interval`` (milliseconds, suggested to clients), ``page_size``
    of ``tasks/list``, ``max_running_per_owner`` (concurrent unfinished tasks per owner) and
    ``owner(session) -> str | None`` (who may see a task; see the module docstring).
    """

    def __init__(
        self,
        store: TaskStore | None = None,
        *,
        default_ttl: int | None = 3_600_000,
        max_ttl: int | None = 86_400_000,
        poll_interval: int | None = 1000,
        page_size: int = 100,
        max_running_per_owner: int = 100,
        owner: OwnerFn | None = None,
        debug: bool = False,
    ) -> None:
        self.store = store if store is not None else MemoryTaskStore()
        self.default_ttl = default_ttl
        self.max_ttl = max_ttl
        self.poll_interval = poll_interval
        self.page_size = page_size
        self.max_running_per_owner = max_running_per_owner
        self.owner_of: OwnerFn = owner or _default_owner
        self.debug = debug
        self._running: dict[str, _Execution] = {}

    # -- creating and running -------------------------------------------------------------------

    def _ttl(self, task_params: JSONObject) -> int | None:
        requested = task_params.get("ttl")
        if requested is None:
            return self.default_ttl
        if type(requested) is not int or requested < 0:
            raise McpError(INVALID_PARAMS, "'task.ttl' must be a non-negative integer")
        if self.max_ttl is not None:
            return min(requested, self.max_ttl)
        return requested

    async def start(self, rctx: RequestContext, task_params: Any, run: Runner) -> JSONObject:
        """Create a task for the request ``rctx`` serves, run ``run`` in the background and
        return the ``CreateTaskResult``."""
        if type(task_params) is not dict:
            raise McpError(INVALID_PARAMS, "'task' must be an object")
        ttl = self._ttl(task_params)
        session = rctx.session
        owner = self.owner_of(session)
        running = sum(1 for e in self._running.values() if e.owner == owner)
        if running >= self.max_running_per_owner:
            raise McpError(
                INTERNAL_ERROR,
                f"Too many unfinished tasks (limit {self.max_running_per_owner} per requestor)",
            )
        try:
            info = await self.store.create(ttl=ttl, poll_interval=self.poll_interval, owner=owner)
        except TaskLimitError as exc:
            raise McpError(INTERNAL_ERROR, str(exc)) from None
        execution = _Execution(session, owner)
        trctx = TaskRequestContext(rctx, info.task_id, self)
        execution.rctx = trctx
        self._running[info.task_id] = execution
        loop = asyncio.get_running_loop()
        execution.asyncio_task = loop.create_task(self._execute(info.task_id, trctx, run))
        if ttl is not None:
            execution.timer = loop.call_later(ttl / 1000, self._expire, info.task_id)
        return {"task": info.to_wire()}

    async def _execute(self, task_id: str, trctx: TaskRequestContext, run: Runner) -> None:
        try:
            try:
                result = await run(trctx)
            except McpError as exc:
                error: JSONObject = {"code": exc.code, "message": exc.message}
                if exc.data is not None:
                    error["data"] = exc.data
                await self._finish(task_id, "failed", {"error": error}, exc.message)
            except asyncio.CancelledError:
                await asyncio.shield(self._finish(task_id, "cancelled", None, "Task was stopped"))
                raise
            except Exception as exc:
                logger.exception("Task %s failed", task_id)
                message = f"Internal error: {exc}" if self.debug else "Internal error"
                error = {"code": INTERNAL_ERROR, "message": message}
                await self._finish(task_id, "failed", {"error": error}, message)
            else:
                failed = result.get("isError") is True
                note = _first_text(result) if failed else None
                status: TaskStatus = "failed" if failed else "completed"
                await self._finish(task_id, status, {"result": result}, note)
        finally:
            execution = self._running.pop(task_id, None)
            if execution is not None and execution.timer is not None:
                execution.timer.cancel()

    async def _finish(
        self, task_id: str, status: TaskStatus, outcome: JSONObject | None, message: str | None
    ) -> None:
        info = await self.store.finish(task_id, status, outcome, message)
        if info is not None:
            await self._announce(task_id, info)

    async def _set_status(self, task_id: str, status: TaskStatus) -> None:
        info = await self.store.update(task_id, status)
        if info is not None:
            await self._announce(task_id, info)

    async def _announce(self, task_id: str, info: TaskInfo) -> None:
        execution = self._running.get(task_id)
        send = getattr(execution.session, "send_quietly", None) if execution else None
        if send is not None:
            await send("notifications/tasks/status", info.to_wire())

    def _expire(self, task_id: str) -> None:
        execution = self._running.get(task_id)
        if execution is not None and execution.asyncio_task is not None:
            execution.asyncio_task.cancel()
        task = asyncio.get_running_loop().create_task(self.store.delete(task_id))
        task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    def result_waiter(self, task_id: str) -> RequestId | None:
        """The newest ``tasks/result`` request blocked on this task (messages for the task
        travel on its stream), or None."""
        execution = self._running.get(task_id)
        if execution is None or not execution.waiters:
            return None
        return execution.waiters[-1]

    async def input_needed(self, task_id: str, session: Any) -> None:
        """The task's tool sent a request to the client: ``input_required``."""
        execution = self._running.get(task_id)
        if execution is None:
            return
        execution.input_waits += 1
        if execution.input_waits == 1:
            await self._set_status(task_id, "input_required")

    async def input_received(self, task_id: str, session: Any) -> None:
        """The client answered: back to ``working`` once nothing else is awaited."""
        execution = self._running.get(task_id)
        if execution is None:
            return
        execution.input_waits -= 1
        if execution.input_waits == 0:
            await self._set_status(task_id, "working")

    async def shutdown(self) -> None:
        """Stop every running task (they end ``cancelled``)."""
        tasks = [e.asyncio_task for e in self._running.values() if e.asyncio_task is not None]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- the tasks/* handlers -------------------------------------------------------------------

    async def _lookup(self, params: JSONObject | None, rctx: RequestContext) -> TaskInfo:
        task_id = params.get("taskId") if type(params) is dict else None
        if type(task_id) is not str:
            raise McpError(INVALID_PARAMS, "'taskId' must be a string")
        info = await self.store.get(task_id)
        if info is None or info.owner != self.owner_of(rctx.session):
            raise McpError(INVALID_PARAMS, "Failed to retrieve task: Task not found")
        return info

    async def handle_get(self, params: JSONObject | None, rctx: RequestContext) -> JSONObject:
        """``tasks/get``."""
        return (await self._lookup(params, rctx)).to_wire()

    async def handle_result(self, params: JSONObject | None, rctx: RequestContext) -> JSONObject:
        """``tasks/result``: blocks until the task is terminal."""
        info = await self._lookup(params, rctx)
        task_id = info.task_id
        if not info.terminal:
            execution = self._running.get(task_id)
            if execution is not None:
                execution.waiters.append(rctx.request_id)
            try:
                poll = (info.poll_interval or 1000) / 1000
                await self.store.wait(task_id, poll)
            finally:
                if execution is not None:
                    with contextlib.suppress(ValueError):
                        execution.waiters.remove(rctx.request_id)
            final = await self.store.get(task_id)
            if final is None:
                raise McpError(INVALID_PARAMS, "Failed to retrieve task: Task has expired")
            info = final
        outcome = await self.store.outcome(task_id)
        if outcome is None:
            raise McpError(
                INVALID_PARAMS,
                f"Task {task_id} has no result: it ended {info.status!r}"
                + (f" ({info.status_message})" if info.status_message else ""),
            )
        error = outcome.get("error")
        if isinstance(error, dict):
            raise McpError(
                int(error.get("code", INTERNAL_ERROR)),
                str(error.get("message", "")),
                error.get("data"),
            )
        result = dict(outcome["result"])
        meta = result.get("_meta")
        result["_meta"] = {**(meta if isinstance(meta, dict) else {}), **related_meta(task_id)}
        return result

    async def handle_list(self, params: JSONObject | None, rctx: RequestContext) -> JSONObject:
        """``tasks/list`` (cursor-paginated, only the requestor's tasks)."""
        cursor = params.get("cursor") if type(params) is dict else None
        after = 0 if cursor is None else decode_cursor(cursor)
        try:
            page, next_pos = await self.store.list(
                self.owner_of(rctx.session), after, self.page_size
            )
        except ValueError:
            raise McpError(INVALID_PARAMS, "Invalid cursor") from None
        result: JSONObject = {"tasks": [t.to_wire() for t in page]}
        if next_pos is not None:
            result["nextCursor"] = encode_cursor(next_pos)
        return result

    async def handle_cancel(self, params: JSONObject | None, rctx: RequestContext) -> JSONObject:
        """``tasks/cancel``: the task is ``cancelled`` before the answer leaves."""
        info = await self._lookup(params, rctx)
        if not info.terminal:
            done = await self.store.finish(
                info.task_id, "cancelled", None, "The task was cancelled by request."
            )
            if done is not None:
                execution = self._running.get(info.task_id)
                if execution is not None:
                    await self._announce(info.task_id, done)
                    if execution.rctx is not None:
                        execution.rctx.cancelled = True
                    if execution.asyncio_task is not None:
                        execution.asyncio_task.cancel()
                return done.to_wire()
            info = await self._lookup(params, rctx)
        raise McpError(
            INVALID_PARAMS, f"Cannot cancel task: already in terminal status {info.status!r}"
        )


def _first_text(result: JSONObject) -> str | None:
    content = result.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                return str(block.get("text"))
    return None
