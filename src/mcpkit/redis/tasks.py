"""Tasks in Redis (both designs: 2025-11-25 and the 2026 tasks extension).

A task is a hash ``P:t:{tid}`` (status, times, ttl, owner, listing position, open input
requests), its outcome ``P:t:{tid}:out`` and, while it runs, a lease ``P:t:{tid}:lease``
naming the replica running it; an owner's tasks are listed from ``P:o:<owner>``. Every key
expires with the task's ``ttl``.

Leases: the replica running a task renews its lease on every heartbeat of the backend. A
task still ``working``/``input_required`` whose lease expired (its replica died) is settled
``failed`` with a clear error the first time any replica reads it, so a requestor polling
``tasks/get`` or blocked in ``tasks/result`` on any replica sees it end instead of waiting
forever. The heartbeat also reads the status of the tasks it runs: one cancelled from
another replica (``tasks/cancel`` there) is stopped here.

Owner enforcement is the receiver's (:class:`mcpkit.tasks.TaskReceiver` compares the stored
owner with the requestor's); this store keeps the owner with the task on every replica.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, cast

import orjson

from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject
from mcpkit.redis.backend import unavailable
from mcpkit.redis.batch import Batch
from mcpkit.tasks.status import TERMINAL, TaskStatus, allowed_update
from mcpkit.tasks.store import TaskInfo, TaskStore, new_task_id

if TYPE_CHECKING:
    from mcpkit.redis.backend import RedisBackend

__all__ = ["LEASE_EXPIRED_MESSAGE", "RedisTaskStore"]

#: The status message of a task whose replica stopped while running it.
LEASE_EXPIRED_MESSAGE: Final = (
    "The server process running this task stopped before the task finished "
    "(its lease expired); the task did not complete"
)

_GET = """
local st = redis.call('HGET', KEYS[1], 'st')
if not st then return false end
if (st == 'working' or st == 'input_required') and redis.call('HGET', KEYS[1], 'l') == '1'
   and redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('HSET', KEYS[1], 'st', 'failed', 'sm', ARGV[1], 'u', ARGV[2], 'ir', '')
  local pttl = redis.call('PTTL', KEYS[1])
  if pttl > 0 then redis.call('SET', KEYS[2], ARGV[3], 'PX', pttl)
  else redis.call('SET', KEYS[2], ARGV[3]) end
end
return redis.call('HGETALL', KEYS[1])
"""

#: ARGV: expected status, new status, message, updated-at, input requests JSON, outcome
#: JSON ('' for none), terminal ('1'/'0')
_SET = """
local st = redis.call('HGET', KEYS[1], 'st')
if not st then return -1 end
if st ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'st', ARGV[2], 'sm', ARGV[3], 'u', ARGV[4], 'ir', ARGV[5])
if ARGV[7] == '1' then
  redis.call('DEL', KEYS[3])
  if ARGV[6] ~= '' then
    local pttl = redis.call('PTTL', KEYS[1])
    if pttl > 0 then redis.call('SET', KEYS[2], ARGV[6], 'PX', pttl)
    else redis.call('SET', KEYS[2], ARGV[6]) end
  end
end
return 1
"""

_RENEW = """
local st = redis.call('HGET', KEYS[1], 'st')
if st == 'working' or st == 'input_required' then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
end
return st or false
"""


def _dec(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisTaskStore(TaskStore):
    """A :class:`~mcpkit.tasks.TaskStore` shared by every replica (see module docstring).

    ``unlimited_ttl`` (seconds) bounds the keys of tasks created with no ttl."""

    def __init__(self, backend: RedisBackend, *, unlimited_ttl: float = 7 * 86400) -> None:
        self.backend = backend
        self.keys = backend.keys
        self.unlimited_ttl = unlimited_ttl
        #: Tasks running in this process -> called when settled elsewhere.
        self._local: dict[str, Callable[[str], None]] = {}
        #: A task waiting for input looks for answers posted on other replicas this often.
        self.input_poll_interval = backend.heartbeat_interval
        backend.on_heartbeat.append(self._renew)

    # -- helpers -----------------------------------------------------------------------------

    def _task_keys(self, tid: str) -> list[str]:
        k = self.keys
        return [k.task(tid), k.task_outcome(tid), k.task_lease(tid)]

    @property
    def _lease_ms(self) -> int:
        return int(self.backend.heartbeat_ttl * 1000)

    def _decode(self, raw: Any) -> TaskInfo | None:
        if not raw:
            return None
        if isinstance(raw, dict):
            fields = {_dec(k): _dec(v) for k, v in raw.items()}
        else:
            items = [_dec(x) for x in raw]
            fields = dict(zip(items[::2], items[1::2], strict=True))
        ttl = fields.get("ttl", "")
        pi = fields.get("pi", "")
        sm = fields.get("sm", "")
        ow = fields.get("ow", "")
        ir = fields.get("ir", "")
        return TaskInfo(
            task_id=fields["id"],
            status=cast("TaskStatus", fields["st"]),
            created_at=float(fields["c"]),
            last_updated_at=float(fields["u"]),
            ttl=int(ttl) if ttl else None,
            poll_interval=int(pi) if pi else None,
            status_message=sm or None,
            owner=ow[1:] if ow.startswith("=") else None,
            seq=int(fields.get("seq", "0")),
            input_requests=orjson.loads(ir) if ir else None,
        )

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except Exception as exc:
            raise unavailable(exc, self.backend.url) from None

    # -- the TaskStore interface -------------------------------------------------------------

    async def create(
        self, *, ttl: int | None, poll_interval: int | None, owner: str | None
    ) -> TaskInfo:
        backend = self.backend
        tid = new_task_id()
        now = time.time()
        seq = int(await self._call(backend.run("INCR", self.keys.task_seq)))
        keys = self._task_keys(tid)
        ttl_ms = ttl if ttl is not None else int(self.unlimited_ttl * 1000)
        owner_key = self.keys.owner_tasks(owner if owner is not None else "")
        fields = {
            "id": tid,
            "st": "working",
            "c": repr(now),
            "u": repr(now),
            "ttl": "" if ttl is None else str(ttl),
            "pi": "" if poll_interval is None else str(poll_interval),
            "sm": "",
            "ow": "" if owner is None else "=" + owner,
            "seq": str(seq),
            "ir": "",
            "l": "1",
        }
        batch = Batch()
        batch.commands += [
            ("HSET", keys[0], *(item for pair in fields.items() for item in pair)),
            ("PEXPIRE", keys[0], max(ttl_ms, 1)),
            ("SET", keys[2], backend.replica_id, "PX", self._lease_ms),
            ("ZADD", owner_key, seq, tid),
            ("PEXPIRE", owner_key, max(ttl_ms, int(self.unlimited_ttl * 1000))),
        ]
        replies = await self._call(backend.run_batch(batch))
        failed = next((r for r in replies if isinstance(r, Exception)), None)
        if failed is not None:
            raise unavailable(failed, backend.url)
        self.backend.start()  # the heartbeat renews the lease
        return TaskInfo(tid, "working", now, now, ttl, poll_interval, None, owner, seq)

    async def get(self, task_id: str) -> TaskInfo | None:
        if not task_id or "}" in task_id:
            return None
        error = orjson.dumps({"error": {"code": INTERNAL_ERROR, "message": LEASE_EXPIRED_MESSAGE}})
        raw = await self._call(
            self.backend.run(
                "EVAL",
                _GET,
                3,
                *self._task_keys(task_id),
                LEASE_EXPIRED_MESSAGE,
                repr(time.time()),
                error,
            )
        )
        return self._decode(raw)

    async def move(
        self,
        task_id: str,
        status: TaskStatus,
        status_message: str | None,
        input_requests: JSONObject | None,
        outcome: JSONObject | None,
    ) -> TaskInfo | None:
        terminal = status in TERMINAL
        for _ in range(16):
            info = await self.get(task_id)
            if info is None or not allowed_update(info, status, input_requests):
                return None
            now = time.time()
            done = await self._call(
                self.backend.run(
                    "EVAL",
                    _SET,
                    3,
                    *self._task_keys(task_id),
                    info.status,
                    status,
                    status_message or "",
                    repr(now),
                    orjson.dumps(input_requests).decode() if input_requests else "",
                    orjson.dumps(outcome).decode() if outcome is not None else "",
                    "1" if terminal else "0",
                )
            )
            if int(done) == -1:
                return None
            if int(done) == 1:
                if terminal:  # settled here: nothing to tell this process later
                    self._local.pop(task_id, None)
                return info.moved(status, status_message, input_requests, now)
        return None

    async def outcome(self, task_id: str) -> JSONObject | None:
        raw = await self._call(self.backend.run("GET", self.keys.task_outcome(task_id)))
        if raw is None:
            return None
        value = orjson.loads(raw)
        return value if isinstance(value, dict) else None

    async def list(
        self, owner: str | None, after: int, limit: int
    ) -> tuple[list[TaskInfo], int | None]:
        client = self.backend.client
        issued = await self._call(client.get(self.keys.task_seq))
        if after > int(issued or 0):
            raise ValueError("position never issued")
        owner_key = self.keys.owner_tasks(owner if owner is not None else "")
        page: list[TaskInfo] = []
        cursor = after
        while len(page) <= limit:
            ids = await self._call(
                client.zrangebyscore(owner_key, f"({cursor}", "+inf", start=0, num=limit + 1)
            )
            if not ids:
                return page, None
            gone: list[str] = []
            for raw_id in ids:
                tid = _dec(raw_id)
                info = await self.get(tid)
                if info is None:
                    gone.append(tid)
                    continue
                cursor = info.seq
                if info.owner != owner:
                    continue
                if len(page) == limit:
                    if gone:
                        await self._call(client.zrem(owner_key, *gone))
                    return page, page[-1].seq
                page.append(info)
            if gone:
                await self._call(client.zrem(owner_key, *gone))
            if len(ids) <= limit:
                return page, None
        return page, page[-1].seq if page else None

    async def delete(self, task_id: str) -> None:
        self._local.pop(task_id, None)
        keys = [*self._task_keys(task_id), self._inbox(task_id)]
        await self._call(self.backend.client.delete(*keys))

    async def wait(self, task_id: str, poll_interval: float) -> None:
        """Return once the task is terminal or gone (polls Redis, at most every
        ``poll_interval`` seconds and at least every half lease, so a dead replica's task
        is settled promptly)."""
        interval = min(max(poll_interval, 0.05), self.backend.heartbeat_ttl / 2)
        while True:
            info = await self.get(task_id)
            if info is None or info.terminal:
                return
            await asyncio.sleep(interval)

    # -- input answered on another replica ----------------------------------------------------

    def _inbox(self, task_id: str) -> str:
        return f"{self.keys.task(task_id)}:in"

    async def post_input(self, task_id: str, responses: JSONObject) -> bool:
        """Queue answers (``tasks/update`` on this replica) for the replica running the
        task, in ``P:t:{tid}:in`` (expiring with the task); it takes them while it waits."""
        client = self.backend.client
        task_ttl = int(await self._call(client.pttl(self.keys.task(task_id))))
        if task_ttl <= 0:
            return False
        pipe = client.pipeline(transaction=False)
        pipe.rpush(self._inbox(task_id), orjson.dumps(responses))
        pipe.pexpire(self._inbox(task_id), task_ttl)
        await self._call(pipe.execute())
        return True

    async def take_input(self, task_id: str) -> tuple[JSONObject, ...]:
        pipe = self.backend.client.pipeline(transaction=True)
        pipe.lrange(self._inbox(task_id), 0, -1)
        pipe.delete(self._inbox(task_id))
        posted, _ = await self._call(pipe.execute())
        return tuple(cast(JSONObject, orjson.loads(raw)) for raw in posted)

    # -- leases -------------------------------------------------------------------------------

    def claim(self, task_id: str, on_settled: Callable[[str], None]) -> None:
        """This process runs ``task_id``: renew its lease on every heartbeat, and call
        ``on_settled(task_id)`` when it is found terminal (cancelled elsewhere)."""
        self._local[task_id] = on_settled

    def release(self, task_id: str) -> None:
        """The run of ``task_id`` ended here."""
        self._local.pop(task_id, None)

    async def _renew(self) -> None:
        if not self._local:
            return
        ids = list(self._local)
        pipe = self.backend.client.pipeline(transaction=False)
        replica = self.backend.replica_id.encode()
        for tid in ids:
            k = self.keys
            pipe.eval(_RENEW, 2, k.task(tid), k.task_lease(tid), replica, self._lease_ms)
        results = await pipe.execute()
        for tid, status in zip(ids, results, strict=True):
            state = _dec(status) if status else None
            if state is None or state in TERMINAL:
                callback = self._local.pop(tid, None)
                if callback is not None:
                    callback(tid)
