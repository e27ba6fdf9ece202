"""The task status table: which status a task may move to from which, as data.

``working <-> input_required -> completed | failed | cancelled``; a terminal status never
changes. :data:`TRANSITIONS` maps each status to the ones it may move to (2025-11-25 tasks
and the 2026 tasks extension alike); :func:`can_transition` reads it, and
:func:`allowed_update` adds the rule of the open input requests (an ``input_required`` task
may be moved to ``input_required`` again with a new set). Every store applies the same guard
through :meth:`mcpkit.tasks.TaskStore.update` and :meth:`~mcpkit.tasks.TaskStore.finish`.
Nothing here does I/O; ``tests/tasks/test_status_table.py`` walks the table cell by cell.
"""

from __future__ import annotations

from typing import Final, Literal, Protocol

from mcpkit.jsonrpc import JSONObject

__all__ = [
    "STATUSES",
    "TERMINAL",
    "TRANSITIONS",
    "TaskStatus",
    "allowed_update",
    "can_transition",
    "check_finish",
    "check_update",
]

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
#: Every status, in the order of a task's life.
STATUSES: Final[tuple[TaskStatus, ...]] = (
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
)
#: Statuses a task never leaves.
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
_ENDS: Final = frozenset({"completed", "failed", "cancelled"})
#: status -> the statuses a task in it may move to.
TRANSITIONS: Final[dict[str, frozenset[str]]] = {
    "working": frozenset({"input_required"}) | _ENDS,
    "input_required": frozenset({"working"}) | _ENDS,
    "completed": frozenset(),
    "failed": frozenset(),
    "cancelled": frozenset(),
}


class _HasStatus(Protocol):
    @property
    def status(self) -> str: ...


def can_transition(old: str, new: str) -> bool:
    """True when the spec allows a task to move from status ``old`` to ``new``."""
    return new in TRANSITIONS.get(old, ())


def check_update(status: str, input_requests: JSONObject | None) -> None:
    """ValueError when ``input_requests`` go with another status than ``input_required``."""
    if input_requests and status != "input_required":
        raise ValueError("input requests go with the input_required status only")


def check_finish(status: str) -> None:
    """ValueError when ``status`` is not a terminal one (what a task may finish with)."""
    if status not in TERMINAL:
        raise ValueError(f"{status!r} is not a terminal status")


def allowed_update(info: _HasStatus, status: str, input_requests: JSONObject | None) -> bool:
    """Whether a task now in ``info.status`` may be moved to ``status`` with
    ``input_requests`` (the guard of every store; ValueError as :func:`check_update`)."""
    check_update(status, input_requests)
    if info.status == status == "input_required":
        return input_requests is not None
    return can_transition(info.status, status)
