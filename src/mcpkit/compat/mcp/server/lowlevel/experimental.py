"""1.x's ``server.experimental``: ``enable_tasks()`` serves ``tasks/get``, ``tasks/result``,
``tasks/list`` and ``tasks/cancel`` from mcpkit's tasks engine (the native server's
:class:`~mcpkit.server.tasks.TaskManager`; tasks belong to the session that created them),
their refusals worded as 1.x words them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS, JSONObject
from mcpkit.server.tasks import TaskManager
from mcpkit.session import RequestContext
from mcpkit.tasks import TaskInfo, TaskStatus, tasks_only

if TYPE_CHECKING:
    from mcpkit.compat.mcp.server.lowlevel.server import Server

__all__ = ["ExperimentalHandlers", "V1TaskManager"]

TASK_METHODS = ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel")


class ExperimentalHandlers:
    """``server.experimental`` of a 1.x low-level server."""

    def __init__(self, server: Server[Any, Any]) -> None:
        self._server = server
        self._manager: TaskManager | None = None

    @property
    def task_manager(self) -> TaskManager | None:
        """The tasks engine, once :meth:`enable_tasks` was called."""
        return self._manager

    def context(self, params: JSONObject | None, rctx: Any, ctx: Any) -> Any:
        """``request_context.experimental`` of a request (``rctx``/``ctx``: mcpkit's): its
        ``task`` field where the revision has tasks, ``run_task`` once tasks are on."""
        from mcpkit.compat.mcp.server.experimental.request_context import Experimental

        version = ctx.protocol_version
        task = params.get("task") if isinstance(params, dict) else None
        if version is None or not version.tasks or ctx.era == "modern":
            task = None
        return Experimental(
            task_metadata=task,
            _client_capabilities=rctx.session.client_capabilities,
            _rctx=rctx,
            _manager=self._manager,
        )

    def capabilities(self) -> dict[str, Any]:
        """What 1.x adds to the server's capabilities once tasks are on."""
        if "tasks/list" not in self._server.request_handlers:
            return {}
        return {"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}

    def enable_tasks(self, store: Any = None, queue: Any = None) -> TaskManager:
        """Serve tasks: ``tasks/*`` answered, ``ctx.experimental.run_task`` available.
        ``store``: an mcpkit :class:`~mcpkit.tasks.TaskStore` (1.x's store classes are not
        taken); ``queue`` is not used (requests of a task go to the client at once)."""
        manager = V1TaskManager(store)
        self._server.native.task_manager = manager
        self._server.native.declared = self._server.native.declared | {"tasks"}
        self._manager = manager
        for method, handler in manager.handlers().items():
            if method not in TASK_METHODS:
                continue
            served = tasks_only(_worded(method, handler))
            self._server.request_handlers[method] = served
            self._server.native.request_handler(method)(served)
        return manager


class V1TaskManager(TaskManager):
    """mcpkit's tasks as 1.x keeps them: polled every 500 ms, kept as long as the
    requestor's ``ttl`` says (forever without one), a task's last ``statusMessage`` kept
    when it ends or is cancelled, ``notifications/tasks/status`` only for its status
    messages and its end (not for a cancellation, nor for ``input_required`` and back)."""

    cancelled_message = None

    def __init__(self, store: Any = None) -> None:
        super().__init__(store, default_ttl=None, max_ttl=None, poll_interval=500)
        self._asked: dict[str, asyncio.Event] = {}

    async def result_requested(self, task_id: str) -> None:
        """Return once a ``tasks/result`` is blocked on the task (a task's requests to the
        client travel on that request's stream, as 1.x delivers them)."""
        try:
            while self.result_waiter(task_id) is None:
                event = self._asked.setdefault(task_id, asyncio.Event())
                event.clear()  # a tasks/result come and gone meanwhile: wait for the next
                await event.wait()
        finally:  # answered or cancelled: nothing is kept for the task
            self._asked.pop(task_id, None)

    def _result_requested(self, task_id: str) -> None:
        event = self._asked.get(task_id)
        if event is not None:
            event.set()

    async def _kept_message(self, task_id: str, message: str | None) -> str | None:
        if message is not None:
            return message
        current = await self.store.get(task_id)
        return None if current is None else current.status_message

    async def stop(self, task_id: str) -> TaskInfo | None:
        """Cancel the task (its status message kept) and stop its run."""
        message = await self._kept_message(task_id, None)
        done = await self.store.finish(task_id, "cancelled", None, message)
        if done is not None:
            execution = self._running.get(task_id)
            if execution is not None:  # 1.x announces no cancellation
                if execution.rctx is not None:
                    execution.rctx.cancelled = True
                if execution.asyncio_task is not None:
                    execution.asyncio_task.cancel()
        return done

    async def _set_status(self, task_id: str, status: TaskStatus) -> None:
        """``input_required`` and back, unannounced (as 1.x moves them)."""
        await self.store.update(task_id, status)

    async def _finish(
        self, task_id: str, status: TaskStatus, outcome: JSONObject | None, message: str | None
    ) -> None:
        kept = await self._kept_message(task_id, message)
        await super()._finish(task_id, status, outcome, kept)


Handler = Callable[[JSONObject | None, RequestContext], Awaitable[Any]]


def _worded(method: str, handler: Handler) -> Handler:
    async def serve(params: JSONObject | None, rctx: RequestContext) -> Any:
        try:
            return await handler(params, rctx)
        except McpError as exc:
            task_id = params.get("taskId") if isinstance(params, dict) else None
            text = str(exc.message)
            if exc.code == INVALID_PARAMS and "Task not found" in text:
                raise McpError(INVALID_PARAMS, f"Task not found: {task_id}") from None
            if exc.code == INVALID_PARAMS and text.startswith("Cannot cancel task"):
                status = text.rsplit(" ", 1)[-1]
                raise McpError(
                    INVALID_PARAMS, f"Cannot cancel task in terminal state {status}"
                ) from None
            raise

    return serve
