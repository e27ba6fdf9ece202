"""The receiver of task-augmented requests (either role: a server for ``tools/call``, a
client for ``sampling/createMessage`` and ``elicitation/create``).

:class:`TaskReceiver` turns a task-augmented request into a ``CreateTaskResult``, runs it in
the background (ttl expiry included), announces ``notifications/tasks/status`` and serves
``tasks/get``, ``tasks/result``, ``tasks/list`` and ``tasks/cancel``; while it runs, the
handler sees a :class:`TaskRequestContext`. The server's
:class:`~mcpkit.server.tasks.TaskManager` and the client's (``Client(tasks=True)``,
:mod:`mcpkit.client.tasks`) build on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpkit._cursor import decode_cursor, encode_cursor
from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    JSONObject,
    RequestId,
)
from mcpkit.owner import allowed, listable
from mcpkit.session import RequestContext, RequestHandler
from mcpkit.tasks.memory import MemoryTaskStore
from mcpkit.tasks.related import related_meta, with_related
from mcpkit.tasks.status import TaskStatus
from mcpkit.tasks.store import TaskInfo, TaskLimitError, TaskStore

if TYPE_CHECKING:
    from mcpkit.session import Session

__all__ = ["OwnerFn", "Runner", "TaskReceiver", "TaskRequestContext", "tasks_only"]

logger = logging.getLogger("mcpkit.tasks")

OwnerFn = Callable[["Session"], str | None]
Runner = Callable[[RequestContext], Awaitable[JSONObject]]


def tasks_only(handler: RequestHandler) -> RequestHandler:
    """``tasks/*`` exist from 2025-11-25 on; older sessions get -32601 (a modern request
    goes to ``handler``, which serves the tasks extension's rules)."""

    async def serve(params: JSONObject | None, rctx: RequestContext) -> Any:
        version = rctx.session.protocol_version
        if rctx.envelope is None and version is not None and not version.tasks:
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {rctx.method}")
        return await handler(params, rctx)

    return serve


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

    #: The ``statusMessage`` of a task cancelled by request (None: none).
    cancelled_message: str | None = "The task was cancelled by request."

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
        poll_interval: int | None = None,
    ) -> TaskInfo:
        """Create a task in the store (readable at once) and run ``run(context(task_id))``
        in the background; return the new task. The task ends ``completed`` with what
        ``run`` returns (``failed`` when :meth:`failure_message` says so and
        ``tool_errors_fail``), ``failed`` with the JSON-RPC error it raises, ``cancelled``
        when stopped; deleted when its ``ttl`` (milliseconds) runs out. ``announce``: send
        ``notifications/tasks/status`` to the session of ``rctx``; ``poll_interval``
        (milliseconds): this task's, instead of the manager's."""
        session = rctx.session
        running = sum(1 for e in self._running.values() if e.owner == owner)
        if running >= self.max_running_per_owner:
            raise McpError(
                INTERNAL_ERROR,
                f"Too many unfinished tasks (limit {self.max_running_per_owner} per requestor)",
            )
        try:
            interval = self.poll_interval if poll_interval is None else poll_interval
            info = await self.store.create(ttl=ttl, poll_interval=interval, owner=owner)
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
        done = await self.store.finish(task_id, "cancelled", None, self.cancelled_message)
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

    def _result_requested(self, task_id: str) -> None:
        """A ``tasks/result`` just blocked on the running task ``task_id`` (a hook)."""

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
                self._result_requested(task_id)
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
