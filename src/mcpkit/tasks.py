"""Tasks (2025-11-25, experimental): the role-independent core.

Either side of a connection can be the *receiver* of task-augmented requests (a server for
``tools/call``; a client for ``sampling/createMessage`` and ``elicitation/create``) and
either side can be the *requestor*. This module holds what both roles share:

Receiver side
    :class:`TaskInfo` (the wire ``Task`` plus bookkeeping), the status rules
    (:func:`can_transition`: ``working <-> input_required -> completed|failed|cancelled``,
    terminal states never change), :class:`TaskStore` (async, so SQLite/Redis stores fit) and
    the bounded :class:`MemoryTaskStore`, and :class:`TaskReceiver`, which turns a
    task-augmented request into a ``CreateTaskResult``, runs it in the background (ttl
    expiry included), announces ``notifications/tasks/status`` and serves ``tasks/get``,
    ``tasks/result``, ``tasks/list`` and ``tasks/cancel``. The server wiring
    (:class:`mcpkit.server.tasks.TaskManager`) and the client's
    (``Client(tasks=True)``) build on it.

Requestor side
    :func:`task_params` (normalise ``True`` / a ttl / a dict / a ``TaskMetadata``),
    :class:`TaskStatusTracker` (wakes waiters on ``notifications/tasks/status``) and
    :func:`wait_for_task` (polls ``tasks/get`` honouring ``pollInterval``; requestors must not
    rely on the notifications, so they only shorten the wait).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import secrets
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Literal

from mcpkit._cursor import decode_cursor, encode_cursor
from mcpkit.errors import ConnectionClosed, McpError, McpkitError
from mcpkit.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    JSONObject,
    RequestId,
)
from mcpkit.owner import allowed, listable
from mcpkit.session import RequestContext, RequestHandler

if TYPE_CHECKING:
    from mcpkit.session import Session

__all__ = [
    "RELATED_TASK",
    "TERMINAL",
    "MemoryTaskStore",
    "TaskInfo",
    "TaskLimitError",
    "TaskReceiver",
    "TaskRequestContext",
    "TaskStatus",
    "TaskStatusTracker",
    "TaskStore",
    "allowed_update",
    "can_transition",
    "new_task_id",
    "related_meta",
    "task_params",
    "tasks_only",
    "tracker_for",
    "wait_for_task",
    "with_related",
]

logger = logging.getLogger("mcpkit.tasks")

#: The ``_meta`` key tying a message to a task.
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
#: Statuses a task never leaves.
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
_NEXT: dict[str, frozenset[str]] = {
    "working": frozenset({"input_required", "completed", "failed", "cancelled"}),
    "input_required": frozenset({"working", "completed", "failed", "cancelled"}),
}
OwnerFn = Callable[["Session"], str | None]
Runner = Callable[[RequestContext], Awaitable[JSONObject]]


def can_transition(old: str, new: str) -> bool:
    """True when the spec allows a task to move from status ``old`` to ``new``."""
    return new in _NEXT.get(old, ())


def allowed_update(info: TaskInfo, status: str, input_requests: JSONObject | None) -> bool:
    """Whether a store may apply an update to ``status`` (see :meth:`TaskStore.update`)."""
    if input_requests and status != "input_required":
        raise ValueError("input requests go with the input_required status only")
    if info.status == status == "input_required":
        return input_requests is not None
    return can_transition(info.status, status)


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


def task_params(task: Any) -> JSONObject:
    """The ``task`` request field for ``task``: ``True`` (receiver's default ttl), a ttl in
    milliseconds, a dict, or a :class:`~mcpkit.types.TaskMetadata`."""
    if task is True:
        return {}
    if type(task) is int:
        if task < 0:
            raise ValueError("a task ttl must be a non-negative number of milliseconds")
        return {"ttl": task}
    if isinstance(task, dict):
        return dict(task)
    to_wire = getattr(task, "to_wire", None)
    if callable(to_wire):
        wire = to_wire()
        if isinstance(wire, dict):
            return wire
    raise TypeError(f"task must be True, a ttl (int), a dict or a TaskMetadata, not {task!r}")


def tasks_only(handler: RequestHandler) -> RequestHandler:
    """``tasks/*`` exist from 2025-11-25 on; older sessions get -32601 (a modern request
    goes to ``handler``, which serves the tasks extension's rules)."""

    async def serve(params: JSONObject | None, rctx: RequestContext) -> Any:
        version = rctx.session.protocol_version
        if rctx.envelope is None and version is not None and not version.tasks:
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {rctx.method}")
        return await handler(params, rctx)

    return serve


# -- state ----------------------------------------------------------------------------------------


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
    #: While ``input_required`` (tasks extension): the open input requests, by key.
    input_requests: JSONObject | None = None

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

    def to_modern_wire(self) -> JSONObject:
        """The ``Task`` fields of the tasks extension (2026-07-28): ``ttlMs`` and
        ``pollIntervalMs`` instead of ``ttl`` and ``pollInterval``."""
        out: JSONObject = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.last_updated_at),
            "ttlMs": None if self.ttl is None else max(self.ttl, 1),
        }
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if self.poll_interval:
            out["pollIntervalMs"] = self.poll_interval
        return out


def new_task_id() -> str:
    """A fresh task id: 128 random bits from :mod:`secrets`, as 32 hex digits. Knowing a
    task id is what lets an unauthenticated requestor reach the task, so it is unguessable."""
    return secrets.token_hex(16)


class TaskLimitError(McpkitError):
    """The store is full of tasks that may not be evicted yet."""


class TaskStore(ABC):
    """Where tasks and their outcomes live. Implementations must enforce the status rules
    (:func:`can_transition`): terminal tasks never change."""

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
        self,
        task_id: str,
        status: TaskStatus,
        status_message: str | None = None,
        *,
        input_requests: JSONObject | None = None,
    ) -> TaskInfo | None:
        """Move a task to ``status``; None when unknown or the move is not allowed.
        ``input_requests`` (only with ``input_required``) are the task's open input
        requests; an ``input_required`` task may be updated to ``input_required`` again
        with a new set (some answered). Any other status clears them."""

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

    def claim(self, task_id: str, on_settled: Callable[[str], None]) -> None:  # noqa: B027
        """This process starts running ``task_id``. A shared store keeps a lease on it
        (so the task is settled ``failed`` if this process dies) and calls
        ``on_settled(task_id)`` when another process settled it (e.g. cancelled it);
        an in-process store needs neither."""

    def release(self, task_id: str) -> None:  # noqa: B027
        """The run of ``task_id`` in this process ended (see :meth:`claim`)."""

    #: Seconds between looks for answers other processes posted (:meth:`take_input`) while
    #: a task of this process waits for input; None: this store never has any.
    input_poll_interval: float | None = None

    async def post_input(self, task_id: str, responses: JSONObject) -> bool:
        """Hand answers to ``task_id``'s input requests to the process running it (a shared
        store, the task running elsewhere); False when this store cannot (an in-process
        store: the task runs in this process or nowhere)."""
        return False

    async def take_input(self, task_id: str) -> tuple[JSONObject, ...]:
        """The answers other processes posted for ``task_id`` (each returned once)."""
        return ()

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
            new_task_id(), "working", now, now, ttl, poll_interval, None, owner, self._seq
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
        self,
        task_id: str,
        status: TaskStatus,
        status_message: str | None = None,
        *,
        input_requests: JSONObject | None = None,
    ) -> TaskInfo | None:
        info = self._tasks.get(task_id)
        if info is None or not allowed_update(info, status, input_requests):
            return None
        info.status = status
        info.status_message = status_message
        info.input_requests = dict(input_requests) if input_requests else None
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


# -- the receiver ---------------------------------------------------------------------------------


class TaskRequestContext(RequestContext):
    """The request context a handler sees while it runs as a task: what it sends carries
    ``_meta[related-task]`` (progress too, on the original request's token, valid for the
    task's lifetime); requests to the requestor put the task in ``input_required``."""

    __slots__ = ("manager", "tid")

    def __init__(self, rctx: RequestContext, task_id: str, manager: TaskReceiver) -> None:
        super().__init__(rctx.session, rctx.request_id, rctx.method, rctx.params)
        self.task_id = task_id
        self.tid = task_id  # the same id, typed as always present
        self.manager = manager

    @property
    def related_meta(self) -> JSONObject | None:
        """``{"io.modelcontextprotocol/related-task": {"taskId": ...}}``."""
        return related_meta(self.tid)

    @property
    def related_request_id(self) -> RequestId | None:
        """Where messages for this task travel: the newest blocked ``tasks/result``."""
        return self.manager.result_waiter(self.tid)

    async def notify(self, method: str, params: JSONObject | None = None) -> None:
        """Best effort: a task outlives the connection that created it (the requestor polls),
        so a notification with nowhere to go is dropped."""
        with contextlib.suppress(ConnectionClosed):
            await self.session.notify(
                method,
                with_related(params, self.tid),
                related_request_id=self.manager.result_waiter(self.tid),
            )

    async def request(self, method: str, params: JSONObject | None = None, **kwargs: Any) -> Any:
        kwargs.setdefault("related_request_id", self.manager.result_waiter(self.tid))
        async with self.awaiting_input():
            return await self.session.request(method, with_related(params, self.tid), **kwargs)

    @contextlib.asynccontextmanager
    async def awaiting_input(self) -> Any:
        """``input_required`` for as long as the block runs (nested uses count)."""
        await self.manager.input_needed(self.tid, self.session)
        try:
            yield
        finally:
            await self.manager.input_received(self.tid, self.session)


class _Execution:
    __slots__ = (
        "announce",
        "asyncio_task",
        "input_waits",
        "owner",
        "rctx",
        "session",
        "timer",
        "tool_errors_fail",
        "waiters",
    )

    def __init__(self, session: Session, owner: str | None) -> None:
        self.session = session
        self.owner = owner
        self.rctx: RequestContext | None = None
        self.tool_errors_fail = True
        self.announce = True
        self.asyncio_task: asyncio.Task[None] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.input_waits = 0
        #: Ids of ``tasks/result`` requests blocked on this task (newest last).
        self.waiters: list[RequestId] = []


class TaskReceiver:
    """Runs task-augmented requests this side receives and serves ``tasks/*``.

    ``default_ttl``/``max_ttl`` (milliseconds; a requested ttl is capped at ``max_ttl``,
    None = unlimited), ``poll_interval`` (milliseconds, suggested to requestors),
    ``page_size`` of ``tasks/list``, ``max_running_per_owner`` (concurrent unfinished tasks
    per owner) and ``owner(session) -> str | None`` (who may see a task; by default nobody
    is told apart, which suits a client: its only requestor is its server).
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
        self.owner_of: OwnerFn = owner or self._default_owner
        #: True when ``owner=`` was given (tasks are not bound to the session by default).
        self.custom_owner = owner is not None
        self.debug = debug
        self._running: dict[str, _Execution] = {}

    @property
    def running_count(self) -> int:
        """Tasks this manager is running in this process now."""
        return len(self._running)

    @staticmethod
    def _default_owner(session: Session) -> str | None:
        return None

    #: Whether ``tasks/list`` shows the tasks whose owner is None to a requestor whose owner
    #: is None (a client's: its only requestor is its server; a server's never does, see
    #: :mod:`mcpkit.owner`).
    list_unowned = True

    def failure_message(self, result: JSONObject) -> str | None:
        """A status message when ``result`` means the task ``failed`` (None: completed).
        Results are successes here; the server's manager fails tool results with isError."""
        return None

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
        owner = self.owner_of(rctx.session)
        info = await self.launch(
            rctx,
            run,
            ttl=ttl,
            owner=owner,
            context=lambda task_id: TaskRequestContext(rctx, task_id, self),
        )
        return {"task": info.to_wire()}

    async def launch(
        self,
        rctx: RequestContext,
        run: Runner,
        *,
        ttl: int | None,
        owner: str | None,
        context: Callable[[str], RequestContext],
        tool_errors_fail: bool = True,
        announce: bool = True,
    ) -> TaskInfo:
        """Create a task in the store (readable at once) and run ``run(context(task_id))``
        in the background; return the new task. The task ends ``completed`` with what
        ``run`` returns (``failed`` when :meth:`failure_message` says so and
        ``tool_errors_fail``), ``failed`` with the JSON-RPC error it raises, ``cancelled``
        when stopped; deleted when its ``ttl`` (milliseconds) runs out. ``announce``: send
        ``notifications/tasks/status`` to the session of ``rctx``."""
        session = rctx.session
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
        execution.tool_errors_fail = tool_errors_fail
        execution.announce = announce
        trctx = context(info.task_id)
        execution.rctx = trctx
        self._running[info.task_id] = execution
        self.store.claim(info.task_id, self._settled_elsewhere)
        loop = asyncio.get_running_loop()
        execution.asyncio_task = loop.create_task(self._execute(info.task_id, trctx, run))
        if ttl is not None:
            execution.timer = loop.call_later(ttl / 1000, self._expire, info.task_id)
        return info

    def execution_context(self, task_id: str) -> RequestContext | None:
        """The context the running task ``task_id`` talks back through (None: not running
        in this process)."""
        execution = self._running.get(task_id)
        return None if execution is None else execution.rctx

    async def stop(self, task_id: str) -> TaskInfo | None:
        """Cancel the task ``task_id``: ``cancelled`` in the store before this returns, its
        run stopped. None when it is unknown or already terminal."""
        done = await self.store.finish(
            task_id, "cancelled", None, "The task was cancelled by request."
        )
        if done is not None:
            execution = self._running.get(task_id)
            if execution is not None:
                await self._announce(task_id, done)
                if execution.rctx is not None:
                    execution.rctx.cancelled = True
                if execution.asyncio_task is not None:
                    execution.asyncio_task.cancel()
        return done

    async def _execute(self, task_id: str, trctx: RequestContext, run: Runner) -> None:
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
                execution = self._running.get(task_id)
                fails = execution is None or execution.tool_errors_fail
                note = self.failure_message(result) if fails else None
                status: TaskStatus = "failed" if note is not None else "completed"
                await self._finish(task_id, status, {"result": result}, note or None)
        finally:
            self.store.release(task_id)
            execution = self._running.pop(task_id, None)
            if execution is not None and execution.timer is not None:
                execution.timer.cancel()

    def _settled_elsewhere(self, task_id: str) -> None:
        """Another process settled (cancelled) the task this one runs: stop the run."""
        execution = self._running.get(task_id)
        if execution is None:
            return
        if execution.rctx is not None:
            execution.rctx.cancelled = True
        if execution.asyncio_task is not None:
            execution.asyncio_task.cancel()

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
        """``notifications/tasks/status`` to the requestor, dropped when it cannot go."""
        execution = self._running.get(task_id)
        if execution is None or not execution.announce:
            return
        session = execution.session
        if session.closed:
            return
        try:  # a session not (or no longer) operating refuses it with McpError
            await session.notify("notifications/tasks/status", info.to_wire())
        except (ConnectionClosed, McpError) as exc:
            logger.debug("Not sending a task status: %s", exc)

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
        """The task sent a request to the requestor: ``input_required``."""
        execution = self._running.get(task_id)
        if execution is None:
            return
        execution.input_waits += 1
        if execution.input_waits == 1:
            await self._set_status(task_id, "input_required")

    async def input_received(self, task_id: str, session: Any) -> None:
        """The requestor answered: back to ``working`` once nothing else is awaited."""
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
        if info is None or not allowed(info.owner, self.owner_of(rctx.session)):
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
        owner = self.owner_of(rctx.session)
        if not self.list_unowned and not listable(owner):
            return {"tasks": []}  # nobody's tasks are reached by their ids only
        try:
            page, next_pos = await self.store.list(owner, after, self.page_size)
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
            done = await self.stop(info.task_id)
            if done is not None:
                return done.to_wire()
            info = await self._lookup(params, rctx)
        raise McpError(
            INVALID_PARAMS, f"Cannot cancel task: already in terminal status {info.status!r}"
        )

    def handlers(self) -> dict[str, Callable[[JSONObject | None, RequestContext], Awaitable[Any]]]:
        """The ``tasks/*`` request handlers, by method."""
        return {
            "tasks/get": self.handle_get,
            "tasks/result": self.handle_result,
            "tasks/list": self.handle_list,
            "tasks/cancel": self.handle_cancel,
        }


# -- the requestor --------------------------------------------------------------------------------


class TaskStatusTracker:
    """Requestor side: feeds ``notifications/tasks/status`` to whoever waits on a task.

    Call :meth:`observe` with each notification's params; :func:`wait_for_task` uses
    :meth:`watching` to be woken early (it still polls: the notifications are optional).
    """

    __slots__ = ("_events", "_latest", "_watchers")

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self._latest: dict[str, JSONObject] = {}
        self._watchers: dict[str, int] = {}

    def observe(self, params: Any) -> None:
        """Record a status notification (malformed ones are ignored)."""
        if not isinstance(params, dict):
            return
        task_id = params.get("taskId")
        if not isinstance(task_id, str):
            return
        event = self._events.get(task_id)
        if event is not None:
            self._latest[task_id] = params
            event.set()

    @contextlib.contextmanager
    def watching(self, task_id: str) -> Iterator[asyncio.Event]:
        """An event set on every status notification for ``task_id`` while in the block."""
        event = self._events.get(task_id)
        if event is None:
            event = self._events[task_id] = asyncio.Event()
        self._watchers[task_id] = self._watchers.get(task_id, 0) + 1
        try:
            yield event
        finally:
            left = self._watchers[task_id] - 1
            if left:
                self._watchers[task_id] = left
            else:
                del self._watchers[task_id]
                self._events.pop(task_id, None)
                self._latest.pop(task_id, None)

    def latest(self, task_id: str) -> JSONObject | None:
        """The last status notified for a watched task (None when none arrived)."""
        return self._latest.get(task_id)


_trackers: weakref.WeakKeyDictionary[Any, TaskStatusTracker] = weakref.WeakKeyDictionary()


def tracker_for(session: Session) -> TaskStatusTracker:
    """The status tracker of ``session``, installed as its ``notifications/tasks/status``
    handler on first use (for sessions that have no handler of their own for it)."""
    tracker = _trackers.get(session)
    if tracker is None:
        tracker = _trackers[session] = TaskStatusTracker()
        session.set_notification_handler("notifications/tasks/status", tracker.observe)
    return tracker


#: Shortest wait between two ``tasks/get`` polls (seconds), whatever ``pollInterval`` says.
MIN_POLL_INTERVAL: Final = 0.01
#: Wait between polls when the receiver suggests none (seconds).
DEFAULT_POLL_INTERVAL: Final = 1.0


async def wait_for_task(
    get: Callable[[], Awaitable[JSONObject]],
    task_id: str,
    *,
    tracker: TaskStatusTracker | None = None,
    on_input_required: Callable[[], Awaitable[Any]] | None = None,
    default_interval: float = DEFAULT_POLL_INTERVAL,
) -> JSONObject:
    """Poll ``get()`` (a ``tasks/get``) until the task is terminal; return its final state.

    Waits ``pollInterval`` between polls (``default_interval`` seconds when the receiver
    suggests none), woken early by a status notification through ``tracker``. On
    ``input_required``, ``on_input_required()`` is awaited (the spec has the requestor call
    ``tasks/result`` then, so the receiver can deliver its requests).
    """
    with contextlib.ExitStack() as stack:
        event = stack.enter_context(tracker.watching(task_id)) if tracker is not None else None
        while True:
            if event is not None:
                event.clear()
            task = await get()
            status = task.get("status")
            if status in TERMINAL:
                return task
            if status == "input_required" and on_input_required is not None:
                await on_input_required()
                continue
            interval = task.get("pollInterval")
            delay = (
                interval / 1000
                if isinstance(interval, int | float) and not isinstance(interval, bool)
                else default_interval
            )
            delay = max(delay, MIN_POLL_INTERVAL)
            if event is None:
                await asyncio.sleep(delay)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), delay)
            latest = tracker.latest(task_id) if tracker is not None else None
            if latest is not None and latest.get("status") in TERMINAL:
                return latest
