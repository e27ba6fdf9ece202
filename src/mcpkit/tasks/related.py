"""Wire names of tasks shared by both roles and eras: the ``_meta`` entry tying a message to
a task (``io.modelcontextprotocol/related-task``) and the id of the 2026 tasks extension."""

from __future__ import annotations

from typing import Final

from mcpkit.jsonrpc import JSONObject

__all__ = ["EXTENSION_ID", "RELATED_TASK", "related_meta", "with_related"]

#: The ``_meta`` key tying a message to a task.
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
#: The id of the tasks extension (2026-07-28) in ``capabilities.extensions``.
EXTENSION_ID: Final = "io.modelcontextprotocol/tasks"


def related_meta(task_id: str) -> JSONObject:
    """The ``_meta`` entry tying a message to a task."""
    return {RELATED_TASK: {"taskId": task_id}}


def with_related(params: JSONObject | None, task_id: str) -> JSONObject:
    """``params`` with ``_meta[related-task]`` set (a copy; the caller's dict is untouched)."""
    out = dict(params) if params else {}
    meta = out.get("_meta")
    out["_meta"] = {**(meta if isinstance(meta, dict) else {}), **related_meta(task_id)}
    return out
