"""Whose is each task the proxy passes through: the downstream owner, not the upstream's.

Every downstream client may share one upstream connection (a 2026-07-28 upstream, a
stateless proxy, the pool of 2026-07-28 clients of a handshake-era upstream), so to the
upstream all their tasks have one owner. The proxy therefore keeps the owner of each task
it created for a downstream client (by the rule of :mod:`mcpkit.owner`: the principal, else
the downstream session, else nobody) and checks it before forwarding ``tasks/get``,
``tasks/result``, ``tasks/cancel`` and ``tasks/update``; ``tasks/list`` keeps only the
asker's tasks (nobody's are never listed). A task whose owner is not on record is unknown
to an owner (-32602, as the upstream would answer); a caller owned by nobody (no
authentication, no session) reaches any task by its id, as the upstream would let it.

The records live where the deployment keeps its state: in this process
(:class:`MemoryOwnerRecords`, bounded: a record leaves when its task's ttl ends, and past
``max_tasks`` the oldest go first) or, for a proxy with a shared store
(``store="redis://..."``), in Redis (:class:`mcpkit.redis.task_owners.RedisOwnerRecords`),
so replicas behind a load balancer check the same owner. A forgotten record is refused,
never opened to others.

The MRTR ``requestState`` a 2026-07-28 upstream issues is bound to whom it saw: the proxy.
For an authenticated downstream principal the proxy seals it once more, bound to that
principal and request (:func:`seal_upstream_state`), and opens it before forwarding the next
round (:func:`open_upstream_state`), so another principal cannot continue the round.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_PARAMS
from mcpkit.owner import allowed, listable

if TYPE_CHECKING:
    from mcpkit.server.request_state import RequestStateSealer

__all__ = [
    "MemoryOwnerRecords",
    "OwnerRecords",
    "TaskOwners",
    "open_upstream_state",
    "seal_upstream_state",
]

_NOT_FOUND: Final = "Failed to retrieve task: Task not found"


class OwnerRecords(Protocol):
    """Where the owner of each proxied task is recorded (this process, or Redis)."""

    async def record(self, task_id: str, owner: str | None, ttl: float | None) -> None:
        """Record ``owner`` for ``task_id`` for ``ttl`` seconds (None: the task's ttl is
        unlimited); a task already on record keeps its first owner."""
        ...

    async def owners(self, task_ids: Sequence[str]) -> dict[str, str | None]:
        """The recorded owner of each of ``task_ids`` on record (the others are absent)."""
        ...


class MemoryOwnerRecords:
    """Owner records in this process: a task leaves when its ttl ends, and past
    ``max_tasks`` the oldest go first."""

    def __init__(self, max_tasks: int = 100_000) -> None:
        self.max_tasks = max_tasks
        #: task id -> (owner, expiry as time.monotonic(), or None for none)
        self._owners: OrderedDict[str, tuple[str | None, float | None]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._owners)

    async def record(self, task_id: str, owner: str | None, ttl: float | None) -> None:
        if task_id in self._owners:
            return
        self._owners[task_id] = (owner, None if ttl is None else time.monotonic() + ttl)
        while len(self._owners) > self.max_tasks:
            self._owners.popitem(last=False)

    async def owners(self, task_ids: Sequence[str]) -> dict[str, str | None]:
        now = time.monotonic()
        found: dict[str, str | None] = {}
        for task_id in task_ids:
            entry = self._owners.get(task_id)
            if entry is not None and entry[1] is not None and entry[1] <= now:
                del self._owners[task_id]
                entry = None
            if entry is not None:
                found[task_id] = entry[0]
        return found


class TaskOwners:
    """The downstream owner of each task created through the proxy (see module docstring),
    kept in ``records`` (default: this process's memory)."""

    def __init__(self, records: OwnerRecords | None = None) -> None:
        self.records: OwnerRecords = records if records is not None else MemoryOwnerRecords()

    async def created(self, result: Any, owner: str | None) -> None:
        """Note the task a ``tools/call`` ``result`` created (either design), if any."""
        if not isinstance(result, dict):
            return
        task = result.get("task")
        if isinstance(task, dict):  # 2025-11-25 CreateTaskResult
            task_id, ttl = task.get("taskId"), task.get("ttl")
        elif result.get("resultType") == "task":  # the tasks extension's
            task_id, ttl = result.get("taskId"), result.get("ttlMs")
        else:
            return
        if not isinstance(task_id, str):
            return
        seconds = max(0.0, ttl / 1000) if isinstance(ttl, int | float) else None
        await self.records.record(task_id, owner, seconds)

    async def check(self, task_id: Any, owner: str | None) -> None:
        """McpError(-32602) unless ``owner`` may reach the task ``task_id``."""
        if not isinstance(task_id, str):
            if owner is None:
                return  # the upstream answers the malformed request
            raise McpError(INVALID_PARAMS, _NOT_FOUND)
        found = await self.records.owners([task_id])
        if task_id not in found:
            if owner is None:
                return  # nobody's task (maybe made before a restart): its id reaches it
            raise McpError(INVALID_PARAMS, _NOT_FOUND)
        if not allowed(found[task_id], owner):
            raise McpError(INVALID_PARAMS, _NOT_FOUND)

    async def visible(self, result: Any, owner: str | None) -> Any:
        """A ``tasks/list`` result with only ``owner``'s tasks (none for nobody)."""
        if not isinstance(result, dict) or not isinstance(result.get("tasks"), list):
            return result
        if not listable(owner):
            return {**result, "tasks": []}
        ids = [i for t in result["tasks"] if (i := _task_id(t)) is not None]
        found = await self.records.owners(ids) if ids else {}
        kept = [
            task
            for task in result["tasks"]
            if (task_id := _task_id(task)) in found and allowed(found[task_id], owner)
        ]
        return {**result, "tasks": kept}


def _task_id(task: Any) -> str | None:
    task_id = task.get("taskId") if isinstance(task, dict) else None
    return task_id if isinstance(task_id, str) else None


def _binding(method: str, params: Any, principal: str) -> Any:
    from mcpkit.server.request_state import RequestBinding

    return RequestBinding.of(method, params if isinstance(params, dict) else {}, principal)


def open_upstream_state(
    sealer: RequestStateSealer, method: str, params: Any, principal: str | None
) -> Any:
    """``params`` of a downstream MRTR round with the upstream's ``requestState`` in place of
    the proxy's (McpError -32602 when it was issued to another principal or request)."""
    if principal is None or not isinstance(params, dict):
        return params
    token = params.get("requestState")
    if token is None:
        return params
    state = sealer.open(token, _binding(method, params, principal))
    return {**params, "requestState": state.data.get("u")}


def seal_upstream_state(
    sealer: RequestStateSealer, method: str, params: Any, principal: str | None, result: Any
) -> Any:
    """An upstream's ``InputRequiredResult`` with its ``requestState`` sealed for the
    downstream ``principal`` and request."""
    if principal is None or not isinstance(result, dict):
        return result
    token = result.get("requestState")
    if not isinstance(token, str):
        return result
    sealed = sealer.seal(_binding(method, params, principal), data={"u": token})
    return {**result, "requestState": sealed}
