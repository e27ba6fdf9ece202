"""The client as the receiver of task-augmented requests (2025-11-25, experimental).

With ``Client(..., tasks=True)`` (or a :class:`~mcpkit.tasks.TaskStore`, or a configured
:class:`~mcpkit.tasks.TaskReceiver`) the client declares ``tasks`` (``list``, ``cancel`` and
``requests.sampling.createMessage`` / ``requests.elicitation.create`` for the handlers it
has). A server may then send ``sampling/createMessage`` or ``elicitation/create`` with a
``task`` field: the client answers a ``CreateTaskResult`` at once, runs the handler in the
background (its ``ctx`` is a :class:`~mcpkit.tasks.TaskRequestContext`, with ``task_id``),
announces ``notifications/tasks/status`` and serves ``tasks/get``, ``tasks/result``,
``tasks/list`` and ``tasks/cancel``. A handler that raises ``McpError`` fails the task and
``tasks/result`` answers that error.

The client's tasks have no owner: its only requestor is the server it is connected to.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcpkit.jsonrpc import JSONObject
from mcpkit.session import RequestContext
from mcpkit.tasks import TaskReceiver, TaskStore, tasks_only

__all__ = ["make_receiver", "serve_as_task", "tasks_capability", "tasks_only"]

Handler = Callable[[JSONObject | None, RequestContext], Awaitable[Any]]


def make_receiver(tasks: Any, debug: bool) -> TaskReceiver | None:
    """The receiver for ``Client(tasks=...)``: None/False (off), True, a store or a receiver."""
    if tasks is None or tasks is False:
        return None
    if tasks is True:
        return TaskReceiver(debug=debug)
    if isinstance(tasks, TaskReceiver):
        return tasks
    if isinstance(tasks, TaskStore):
        return TaskReceiver(tasks, debug=debug)
    raise TypeError(f"tasks must be True, a TaskStore or a TaskReceiver, not {tasks!r}")


def tasks_capability(*, sampling: bool, elicitation: bool) -> JSONObject:
    """The client's ``tasks`` capability for the request types it serves."""
    requests: JSONObject = {}
    if sampling:
        requests["sampling"] = {"createMessage": {}}
    if elicitation:
        requests["elicitation"] = {"create": {}}
    return {"list": {}, "cancel": {}, "requests": requests}


def serve_as_task(receiver: TaskReceiver, inner: Handler) -> Handler:
    """``inner`` served as a task when the request carries ``task`` (on a revision with
    tasks); served normally otherwise."""

    async def serve(params: JSONObject | None, ctx: RequestContext) -> Any:
        task = params.get("task") if type(params) is dict else None
        version = ctx.session.protocol_version
        if task is None or version is None or not version.tasks:
            return await inner(params, ctx)

        async def run(tctx: RequestContext) -> JSONObject:
            result: JSONObject = await inner(params, tctx)
            return result

        return await receiver.start(ctx, task, run)

    return serve
