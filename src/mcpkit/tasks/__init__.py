"""Tasks (2025-11-25, experimental, and the 2026 tasks extension): the role-independent core.

Either side of a connection can be the *receiver* of task-augmented requests (a server for
``tools/call``; a client for ``sampling/createMessage`` and ``elicitation/create``) and
either side can be the *requestor*. This package holds what both roles share, one concept a
module:

- :mod:`~mcpkit.tasks.status`: the status table (``working <-> input_required ->
  completed | failed | cancelled``; terminal states never change) and the one guard every
  store applies (:func:`allowed_update`);
- :mod:`~mcpkit.tasks.store`: :class:`TaskInfo` (the wire ``Task`` plus bookkeeping) and the
  :class:`TaskStore` interface (async, so SQLite and Redis stores fit; the guard lifted into
  :meth:`TaskStore.update` / :meth:`TaskStore.finish`, a store writes with
  :meth:`TaskStore.move`);
- :mod:`~mcpkit.tasks.memory` (the bounded :class:`MemoryTaskStore`) and
  :mod:`~mcpkit.tasks.sqlite` (``SQLiteTaskStore``, durable; also importable from
  ``mcpkit.sqlite_task_store``); the Redis store shared by replicas is
  :class:`mcpkit.redis.tasks.RedisTaskStore`;
- :mod:`~mcpkit.tasks.receiver`: :class:`TaskReceiver`, which turns a task-augmented request
  into a ``CreateTaskResult``, runs it in the background (ttl expiry included), announces
  ``notifications/tasks/status`` and serves ``tasks/get``, ``tasks/result``, ``tasks/list``
  and ``tasks/cancel``;
- :mod:`~mcpkit.tasks.requestor`: :func:`task_params`, :class:`TaskStatusTracker` and
  :func:`wait_for_task` (polls ``tasks/get`` honouring ``pollInterval``, woken early by the
  status notifications);
- :mod:`~mcpkit.tasks.related`: the ``_meta`` entry tying a message to a task.

The package sits with the features: it imports only the session engine and the base
modules, never a server or a client. The server's wiring (:mod:`mcpkit.server.tasks`,
:mod:`mcpkit.server.tasks_extension`) and the client's (:mod:`mcpkit.client.tasks` as a
receiver, :mod:`mcpkit.client.task_requestor` as a requestor) build on it.
"""

from __future__ import annotations

from mcpkit.tasks.memory import MemoryTaskStore
from mcpkit.tasks.receiver import OwnerFn, Runner, TaskReceiver, TaskRequestContext, tasks_only
from mcpkit.tasks.related import RELATED_TASK, related_meta, with_related
from mcpkit.tasks.requestor import (
    DEFAULT_POLL_INTERVAL,
    MIN_POLL_INTERVAL,
    TaskStatusTracker,
    task_params,
    tracker_for,
    wait_for_task,
)
from mcpkit.tasks.status import (
    STATUSES,
    TERMINAL,
    TRANSITIONS,
    TaskStatus,
    allowed_update,
    can_transition,
)
from mcpkit.tasks.store import TaskInfo, TaskLimitError, TaskStore, new_task_id

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "MIN_POLL_INTERVAL",
    "RELATED_TASK",
    "STATUSES",
    "TERMINAL",
    "TRANSITIONS",
    "MemoryTaskStore",
    "OwnerFn",
    "Runner",
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
