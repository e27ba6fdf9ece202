"""The bounded in-process task store."""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import Callable

from mcpkit.jsonrpc import JSONObject
from mcpkit.tasks.status import TERMINAL, TaskStatus, allowed_update
from mcpkit.tasks.store import TaskInfo, TaskLimitError, TaskStore, new_task_id

__all__ = ["MemoryTaskStore"]


class MemoryTaskStore(TaskStore):
    """A bounded in-process store. When ``max_tasks`` are held, expired tasks are purged,
    then the oldest finished ones evicted; a store full of unfinished tasks refuses more."""

    def __init__(self, max_tasks: int = 10_000, clock: Callable[[], float] = time.time) -> None:
        if max_tasks < 1:
            raise ValueError("max_tasks must be at least 1")
        self.max_tasks = max_tasks
        self._clock = clock
        self._tasks: dict[str, TaskInfo] = {}
        self._outcomes: dict[str, JSONObject] = {}
        self._events: dict[str, asyncio.Event] = {}
        self._expiry: list[tuple[float, str]] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._tasks)

    def purge(self) -> None:
        """Delete every task whose ttl has elapsed."""
        now = self._clock()
        heap = self._expiry
        while heap and heap[0][0] <= now:
            _, task_id = heapq.heappop(heap)
            self._forget(task_id)

    def _forget(self, task_id: str) -> None:
        self._tasks.pop(task_id, None)
        self._outcomes.pop(task_id, None)
        event = self._events.pop(task_id, None)
        if event is not None:
            event.set()

    async def create(
        self, *, ttl: int | None, poll_interval: int | None, owner: str | None
    ) -> TaskInfo:
        self.purge()
        if len(self._tasks) >= self.max_tasks:
            victim = next((t for t in self._tasks.values() if t.terminal), None)
            if victim is None:
                raise TaskLimitError(f"Too many unfinished tasks (limit {self.max_tasks})")
            self._forget(victim.task_id)
        now = self._clock()
        self._seq += 1
        info = TaskInfo(
            new_task_id(), "working", now, now, ttl, poll_interval, None, owner, self._seq
        )
        self._tasks[info.task_id] = info
        self._events[info.task_id] = asyncio.Event()
        expires = info.expires_at
        if expires is not None:
            heapq.heappush(self._expiry, (expires, info.task_id))
        return info

    async def get(self, task_id: str) -> TaskInfo | None:
        self.purge()
        return self._tasks.get(task_id)

    async def move(
        self,
        task_id: str,
        status: TaskStatus,
        status_message: str | None,
        input_requests: JSONObject | None,
        outcome: JSONObject | None,
    ) -> TaskInfo | None:
        info = self._tasks.get(task_id)
        if info is None or not allowed_update(info, status, input_requests):
            return None
        if outcome is not None:
            self._outcomes[task_id] = outcome
        info.moved(status, status_message, input_requests, self._clock())
        if status in TERMINAL:
            self._events[task_id].set()
        return info

    async def set_message(self, task_id: str, status_message: str | None) -> TaskInfo | None:
        info = self._tasks.get(task_id)
        if info is None or info.status != "working":
            return None
        return info.moved("working", status_message, None, self._clock())

    async def outcome(self, task_id: str) -> JSONObject | None:
        return self._outcomes.get(task_id)

    async def list(
        self, owner: str | None, after: int, limit: int
    ) -> tuple[list[TaskInfo], int | None]:
        if after > self._seq:
            raise ValueError("position never issued")
        self.purge()
        page: list[TaskInfo] = []
        for info in self._tasks.values():
            if info.seq <= after or info.owner != owner:
                continue
            if len(page) == limit:
                return page, page[-1].seq
            page.append(info)
        return page, None

    async def delete(self, task_id: str) -> None:
        self._forget(task_id)

    async def wait(self, task_id: str, poll_interval: float) -> None:
        info = self._tasks.get(task_id)
        event = self._events.get(task_id)
        if info is None or event is None or info.terminal:
            return
        await event.wait()
