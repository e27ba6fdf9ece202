"""The requestor of task-augmented requests (either role): :func:`task_params` (normalise
``True`` / a ttl / a dict / a ``TaskMetadata``), :class:`TaskStatusTracker` (wakes waiters
on ``notifications/tasks/status``) and :func:`wait_for_task` (polls ``tasks/get`` honouring
``pollInterval``; requestors must not rely on the notifications, so they only shorten the
wait). The client's :mod:`mcpkit.client.task_requestor` and the server's
:func:`mcpkit.server.tasks.request_as_task` build on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from mcpkit.jsonrpc import JSONObject
from mcpkit.tasks.status import TERMINAL

if TYPE_CHECKING:
    from mcpkit.session import Session

__all__ = [
    "DEFAULT_POLL_INTERVAL",
    "MIN_POLL_INTERVAL",
    "TaskStatusTracker",
    "task_params",
    "tracker_for",
    "wait_for_task",
]


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
