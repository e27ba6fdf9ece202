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
server. Tasks are bound to an owner: by default the session that created them (for
Streamable HTTP, the ``Mcp-Session-Id``; stateless HTTP has no owner, so its tasks are
reachable by id alone: task ids are random 128-bit values). Pass ``owner=`` to bind them to
an authorization context instead. A tool result with ``isError`` fails its task.
"""

from __future__ import annotations

from typing import Any

from mcpkit.jsonrpc import JSONObject
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
    "related_meta",
    "with_related",
]


class TaskManager(TaskReceiver):
    """Runs the task-augmented tool calls of one server and serves ``tasks/*``.

    Options as for :class:`~mcpkit.tasks.TaskReceiver`; the default owner of a task is the
    session that created it (see the module docstring).
    """

    @staticmethod
    def _default_owner(session: Any) -> str | None:
        transport = getattr(session, "transport", None)
        if transport is not None and hasattr(transport, "session_id"):
            sid = transport.session_id  # Streamable HTTP: the Mcp-Session-Id (None: stateless)
            return None if sid is None else str(sid)
        key = getattr(session, "task_owner_key", None)
        return None if key is None else str(key)

    def failure_message(self, result: JSONObject) -> str | None:
        """A tool result with ``isError`` fails the task (its first text is the message)."""
        if result.get("isError") is not True:
            return None
        return _first_text(result) or ""


def _first_text(result: JSONObject) -> str | None:
    content = result.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                return str(block.get("text"))
    return None
