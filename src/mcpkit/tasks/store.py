"""Where tasks live: :class:`TaskInfo` (the wire ``Task`` plus bookkeeping) and the
:class:`TaskStore` interface every store implements (memory: :mod:`mcpkit.tasks.memory`,
SQLite: :mod:`mcpkit.tasks.sqlite`, Redis: :mod:`mcpkit.redis.tasks`).

The status guard is the interface's, once: :meth:`TaskStore.update` and
:meth:`TaskStore.finish` check their arguments and hand the move to the store's
:meth:`TaskStore.move`, which applies it only when :func:`~mcpkit.tasks.status.allowed_update`
allows it from the stored status, in one step with that status (so two racing moves cannot
both land), and :meth:`TaskInfo.moved` writes the moved fields.
"""

from __future__ import annotations

import asyncio
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from mcpkit.errors import McpkitError
from mcpkit.jsonrpc import JSONObject
from mcpkit.tasks.status import TERMINAL, TaskStatus, check_finish, check_update

__all__ = ["TaskInfo", "TaskLimitError", "TaskStore", "new_task_id"]


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(slots=True)
class TaskInfo:
    """The state of one task (the wire ``Task``, plus its owner and a listing order)."""

    task_id: str
    status: TaskStatus
    created_at: float  # epoch seconds
    last_updated_at: float
    ttl: int | None  # milliseconds from creation; None = unlimited
    poll_interval: int | None = None
    status_message: str | None = None
    owner: str | None = None
    seq: int = 0
    #: While ``input_required`` (tasks extension): the open input requests, by key.
    input_requests: JSONObject | None = None

    @property
    def terminal(self) -> bool:
        """True for completed, failed and cancelled."""
        return self.status in TERMINAL

    @property
    def expires_at(self) -> float | None:
        """When the task may be deleted (epoch seconds), None when never."""
        return None if self.ttl is None else self.created_at + self.ttl / 1000

    def moved(
        self,
        status: TaskStatus,
        status_message: str | None,
        input_requests: JSONObject | None,
        now: float,
    ) -> TaskInfo:
        """This task after a move to ``status`` at ``now`` (in place; returned): its status
        message, its open input requests (a copy; cleared by any other status), its last
        update."""
        self.status = status
        self.status_message = status_message
        self.input_requests = dict(input_requests) if input_requests else None
        self.last_updated_at = now
        return self

    def to_wire(self) -> JSONObject:
        """The ``Task`` object."""
        out: JSONObject = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.last_updated_at),
            "ttl": self.ttl,
        }
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if self.poll_interval is not None:
            out["pollInterval"] = self.poll_interval
        return out

    def to_modern_wire(self) -> JSONObject:
        """The ``Task`` fields of the tasks extension (2026-07-28): ``ttlMs`` and
        ``pollIntervalMs`` instead of ``ttl`` and ``pollInterval``."""
        out: JSONObject = {
            "taskId": self.task_id,
            "status": self.status,
            "createdAt": _iso(self.created_at),
            "lastUpdatedAt": _iso(self.last_updated_at),
            "ttlMs": None if self.ttl is None else max(self.ttl, 1),
        }
        if self.status_message is not None:
            out["statusMessage"] = self.status_message
        if self.poll_interval:
            out["pollIntervalMs"] = self.poll_interval
        return out


def new_task_id() -> str:
    """A fresh task id: 128 random bits from :mod:`secrets`, as 32 hex digits. Knowing a
    task id is what lets an unauthenticated requestor reach the task, so it is unguessable."""
    return secrets.token_hex(16)


class TaskLimitError(McpkitError):
    """The store is full of tasks that may not be evicted yet."""


class TaskStore(ABC):
    """Where tasks and their outcomes live (see the module docstring). A store implements
    :meth:`create`, :meth:`get`, :meth:`move`, :meth:`outcome`, :meth:`list` and
    :meth:`delete`; the status rules are applied by :meth:`move` with the one guard
    (:func:`~mcpkit.tasks.status.allowed_update`): terminal tasks never change."""

    @abstractmethod
    async def create(
        self, *, ttl: int | None, poll_interval: int | None, owner: str | None
    ) -> TaskInfo:
        """A new ``working`` task with a fresh unguessable id (TaskLimitError when full)."""

    @abstractmethod
    async def get(self, task_id: str) -> TaskInfo | None:
        """The task, or None when unknown or expired."""

    async def update(
        self,
        task_id: str,
        status: TaskStatus,
        status_message: str | None = None,
        *,
        input_requests: JSONObject | None = None,
    ) -> TaskInfo | None:
        """Move a task to ``status``; None when unknown or the move is not allowed.
        ``input_requests`` (only with ``input_required``) are the task's open input
        requests; an ``input_required`` task may be updated to ``input_required`` again
        with a new set (some answered). Any other status clears them."""
        check_update(status, input_requests)
        return await self.move(task_id, status, status_message, input_requests, None)

    async def finish(
        self,
        task_id: str,
        status: TaskStatus,
        outcome: JSONObject | None,
        status_message: str | None = None,
    ) -> TaskInfo | None:
        """Move to a terminal ``status`` and keep ``outcome`` (``{"result": ...}`` or
        ``{"error": ...}``) in one step; None when unknown or already terminal."""
        check_finish(status)
        return await self.move(task_id, status, status_message, None, outcome)

    async def move(
        self,
        task_id: str,
        status: TaskStatus,
        status_message: str | None,
        input_requests: JSONObject | None,
        outcome: JSONObject | None,
    ) -> TaskInfo | None:
        """A store's one write of a status (called by :meth:`update` and :meth:`finish`,
        their arguments checked): the task moved to ``status`` when
        :func:`~mcpkit.tasks.status.allowed_update` allows it from the status it is stored
        with, applied in one step with that status, ``outcome`` (a terminal move's, or
        None) kept with it; the task as moved (:meth:`TaskInfo.moved`), or None when it is
        unknown, expired or the move is not allowed. A store implements this (or both
        :meth:`update` and :meth:`finish`)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement TaskStore.move")

    async def set_message(self, task_id: str, status_message: str | None) -> TaskInfo | None:
        """A ``working`` task with a new ``statusMessage`` (its status kept); None when it
        is unknown or not working, or the store cannot (this base class)."""
        return None

    @abstractmethod
    async def outcome(self, task_id: str) -> JSONObject | None:
        """What :meth:`finish` stored (None for none, e.g. a cancelled task)."""

    @abstractmethod
    async def list(
        self, owner: str | None, after: int, limit: int
    ) -> tuple[list[TaskInfo], int | None]:
        """Up to ``limit`` of ``owner``'s tasks after position ``after`` (0 = from the start)
        and the position to continue from (None at the end). ValueError for a position this
        store never issued."""

    @abstractmethod
    async def delete(self, task_id: str) -> None:
        """Forget a task and its outcome."""

    def claim(self, task_id: str, on_settled: Callable[[str], None]) -> None:  # noqa: B027
        """This process starts running ``task_id``. A shared store keeps a lease on it
        (so the task is settled ``failed`` if this process dies) and calls
        ``on_settled(task_id)`` when another process settled it (e.g. cancelled it);
        an in-process store needs neither."""

    def release(self, task_id: str) -> None:  # noqa: B027
        """The run of ``task_id`` in this process ended (see :meth:`claim`)."""

    #: Seconds between looks for answers other processes posted (:meth:`take_input`) while
    #: a task of this process waits for input; None: this store never has any.
    input_poll_interval: float | None = None

    async def post_input(self, task_id: str, responses: JSONObject) -> bool:
        """Hand answers to ``task_id``'s input requests to the process running it (a shared
        store, the task running elsewhere); False when this store cannot (an in-process
        store: the task runs in this process or nowhere)."""
        return False

    async def take_input(self, task_id: str) -> tuple[JSONObject, ...]:
        """The answers other processes posted for ``task_id`` (each returned once)."""
        return ()

    async def wait(self, task_id: str, poll_interval: float) -> None:
        """Return once the task is terminal or gone (this default polls)."""
        while True:
            info = await self.get(task_id)
            if info is None or info.terminal:
                return
            await asyncio.sleep(poll_interval)
