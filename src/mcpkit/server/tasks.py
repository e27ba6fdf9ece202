"""Tasks on the server (2025-11-25, experimental): task-augmented ``tools/call``.

A ``tools/call`` whose params carry ``task`` (for a tool with ``execution.taskSupport``
``"optional"`` or ``"required"``) is answered at once with a ``CreateTaskResult``; the tool
runs in the background. The client polls ``tasks/get``, blocks on ``tasks/result`` (which
returns the tool's ``CallToolResult`` with ``_meta["io.modelcontextprotocol/related-task"]``,
or the JSON-RPC error the call would have produced), lists with ``tasks/list`` and stops with
``tasks/cancel``. Status changes are announced with ``notifications/tasks/status``; while the
tool waits on the client (elicitation, sampling, roots) the task is ``input_required``.

The machinery is role-independent and lives in :mod:`mcpkit.tasks` (state, stores, the
:class:`~mcpkit.tasks.TaskReceiver`); :class:`TaskManager` adds what is particular to a
server. Tasks are bound to an owner by the one rule of :mod:`mcpkit.owner`: the
authenticated principal, else the session that created them (for Streamable HTTP, the
``Mcp-Session-Id``), else nobody (stateless HTTP): such a task is reachable by its id alone
(a random 128-bit value) and never listed. Pass ``owner=`` to decide otherwise. A tool
result with ``isError`` fails its task.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from mcpkit.errors import ConnectionClosed, McpError
from mcpkit.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, JSONObject
from mcpkit.lifecycle import has_capability
from mcpkit.owner import task_owner
from mcpkit.server import tasks_extension
from mcpkit.session import RequestContext, Session
from mcpkit.tasks import (
    RELATED_TASK,
    TERMINAL,
    MemoryTaskStore,
    TaskInfo,
    TaskLimitError,
    TaskReceiver,
    TaskRequestContext,
    TaskStatus,
    TaskStore,
    related_meta,
    task_params,
    tracker_for,
    wait_for_task,
    with_related,
)

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
    "check_client_tasks",
    "related_meta",
    "request_as_task",
    "with_related",
]


class TaskManager(TaskReceiver):
    """Runs the task-augmented tool calls of one server and serves ``tasks/*``.

    Options as for :class:`~mcpkit.tasks.TaskReceiver`; the default owner of a task is the
    principal, else the session that created it (see the module docstring).
    """

    _default_owner = staticmethod(task_owner)
    #: Tasks of nobody (stateless, unauthenticated) are reached by id, never listed.
    list_unowned = False

    def failure_message(self, result: JSONObject) -> str | None:
        """A tool result with ``isError`` fails the task (its first text is the message)."""
        if result.get("isError") is not True:
            return None
        return _first_text(result) or ""

    def handlers(self) -> dict[str, Callable[[JSONObject | None, RequestContext], Awaitable[Any]]]:
        """The ``tasks/*`` request handlers, by method: a 2025 request gets the 2025-11-25
        methods, a modern one the tasks extension's (see :mod:`mcpkit.server.tasks_extension`)."""
        legacy = super().handlers()
        modern: dict[str, Callable[..., Awaitable[JSONObject]]] = {
            "tasks/get": tasks_extension.handle_get,
            "tasks/update": tasks_extension.handle_update,
            "tasks/cancel": tasks_extension.handle_cancel,
        }
        table: dict[str, Callable[[JSONObject | None, RequestContext], Awaitable[Any]]] = {}
        for method in ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update"):
            table[method] = self._by_era(method, legacy.get(method), modern.get(method))
        return table

    def _by_era(
        self,
        method: str,
        legacy: Callable[[JSONObject | None, RequestContext], Awaitable[Any]] | None,
        modern: Callable[..., Awaitable[JSONObject]] | None,
    ) -> Callable[[JSONObject | None, RequestContext], Awaitable[Any]]:
        async def serve(params: JSONObject | None, rctx: RequestContext) -> Any:
            if rctx.envelope is not None:
                if modern is None:
                    raise tasks_extension.removed(method)
                return await modern(self, params, rctx)
            if legacy is None:
                raise McpError(METHOD_NOT_FOUND, f"Method not found: {method}")
            return await legacy(params, rctx)

        return serve


def _first_text(result: JSONObject) -> str | None:
    content = result.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                return str(block.get("text"))
    return None


# -- the server as requestor: task-augmented sampling and elicitation ------------------------------

#: Requests a server may send task-augmented, and the client capability (under ``tasks``).
CLIENT_TASK_REQUESTS: dict[str, tuple[str, ...]] = {
    "sampling/createMessage": ("requests", "sampling", "createMessage"),
    "elicitation/create": ("requests", "elicitation", "create"),
}


def check_client_tasks(session: Any, method: str) -> None:
    """Raise McpError(-32601) unless the client declared task support for ``method``."""
    path = CLIENT_TASK_REQUESTS.get(method)
    if path is None:
        raise ValueError(f"{method!r} cannot be sent as a task (only {list(CLIENT_TASK_REQUESTS)})")
    version = session.protocol_version
    if version is not None and not version.tasks:
        raise McpError(
            METHOD_NOT_FOUND,
            f"Cannot send {method!r} as a task: this connection negotiated {version.name}, "
            "which has no tasks",
        )
    if not has_capability(session.client_capabilities, ("tasks", *path)):
        raise McpError(
            METHOD_NOT_FOUND,
            f"The client did not declare the capability {'.'.join(('tasks', *path))!r} "
            f"needed to send {method!r} as a task",
        )


async def request_as_task(
    rctx: RequestContext,
    method: str,
    params: JSONObject,
    task: Any = True,
    *,
    timeout: float | None = None,
    spawn: Callable[[Coroutine[Any, Any, None]], None] | None = None,
) -> JSONObject:
    """Send ``method`` to the client as a task on behalf of the request ``rctx`` serves,
    wait for the task (polling ``tasks/get`` at the client's ``pollInterval``, woken early by
    its status notifications) and return what ``tasks/result`` answers: the result the plain
    request would have had (its error is raised as :class:`~mcpkit.errors.McpError`).

    ``task``: ``True``, a ttl in milliseconds, a dict or a ``TaskMetadata``. ``timeout``
    (seconds) bounds the whole wait. If the wait is abandoned (cancelled or timed out) the
    client's task is cancelled too, when the client supports ``tasks/cancel``: in the
    background, through ``spawn`` (e.g. :meth:`AppSession.spawn`; without it there is no
    cancel).
    """
    session = rctx.session
    check_client_tasks(session, method)
    sent = {**params, "task": task_params(task)}
    related = rctx.related_request_id if isinstance(rctx, TaskRequestContext) else rctx.request_id
    task_id: str | None = None
    done = False
    # A tool running as a task stays input_required for the whole wait (not only while the
    # first request is out).
    waiting = (
        rctx.awaiting_input() if isinstance(rctx, TaskRequestContext) else contextlib.nullcontext()
    )
    try:
        async with asyncio.timeout(timeout), waiting:
            raw = await rctx.request(method, sent)
            created = raw.get("task") if isinstance(raw, dict) else None
            task_id = created.get("taskId") if isinstance(created, dict) else None
            if not isinstance(task_id, str):
                raise McpError(
                    INTERNAL_ERROR,
                    f"The client answered a task-augmented {method!r} without a task",
                )
            tid: str = task_id
            got: list[Any] = []

            async def fetch() -> None:
                nonlocal done
                try:
                    got.append(
                        await session.request(
                            "tasks/result",
                            {"taskId": tid},
                            timeout=None,
                            related_request_id=related,
                        )
                    )
                except McpError:
                    done = True  # the task's own error, or it is gone: nothing to cancel
                    raise

            async def poll() -> JSONObject:
                state = await session.request(
                    "tasks/get", {"taskId": tid}, related_request_id=related
                )
                if not isinstance(state, dict):
                    raise McpError(INTERNAL_ERROR, "The client sent an invalid task state")
                return state

            await wait_for_task(poll, tid, tracker=tracker_for(session), on_input_required=fetch)
            done = True  # terminal
            if not got:
                await fetch()
        result = got[0]
        if not isinstance(result, dict):
            raise McpError(INTERNAL_ERROR, f"The client sent an invalid {method!r} result")
        return result
    finally:
        if not done and task_id is not None and not session.closed and spawn is not None:
            _cancel_quietly(session, task_id, spawn)


def _cancel_quietly(
    session: Session, task_id: str, spawn: Callable[[Coroutine[Any, Any, None]], None]
) -> None:
    if not has_capability(session.lifecycle.peer_capabilities, ("tasks", "cancel")):
        return

    async def cancel() -> None:
        with contextlib.suppress(McpError, ConnectionClosed):
            await session.request("tasks/cancel", {"taskId": task_id}, timeout=10)

    spawn(cancel())
