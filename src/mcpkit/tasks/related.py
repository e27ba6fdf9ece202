"""Tying a message to a task: the ``_meta`` entry ``io.modelcontextprotocol/related-task``."""

from __future__ import annotations

from typing import Final

from mcpkit.jsonrpc import JSONObject

__all__ = ["RELATED_TASK", "related_meta", "with_related"]

#: The ``_meta`` key tying a message to a task.
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"


def related_meta(task_id: str) -> JSONObject:
    """The ``_meta`` entry tying a message to a task."""
    return {RELATED_TASK: {"taskId": task_id}}


def with_related(params: JSONObject | None, task_id: str) -> JSONObject:
    """``params`` with ``_meta[related-task]`` set (a copy; the caller's dict is untouched)."""
    out = dict(params) if params else {}
    meta = out.get("_meta")
    out["_meta"] = {**(meta if isinstance(meta, dict) else {}), **related_meta(task_id)}
    return out
