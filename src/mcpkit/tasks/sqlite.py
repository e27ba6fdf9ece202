"""A durable task store in SQLite (stdlib ``sqlite3``): tasks survive a restart.

:class:`SQLiteTaskStore` keeps every task, its status, owner, open input requests and
outcome (the tool result or the JSON-RPC error) in one table, so a task created before the
server restarts is still readable after it, its result included, until its ttl runs out.

A task that was still running when its process stopped cannot resume (the coroutine running
it is gone): when the store is opened, such tasks end ``failed`` with a JSON-RPC internal
error saying so (``abandon_unfinished=True``, the default). One server process per database
file; replicas behind a load balancer need a shared store instead.

The database is small and local: each call runs inline under a lock (WAL journaling with
``synchronous=NORMAL``, a few microseconds per statement), like
:class:`~mcpkit.transports.http.event_store.SQLiteEventStore`.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any, Final

import orjson

from mcpkit.jsonrpc import INTERNAL_ERROR, JSONObject
from mcpkit.tasks.status import TERMINAL, TaskStatus, allowed_update
from mcpkit.tasks.store import TaskInfo, TaskLimitError, TaskStore, new_task_id

__all__ = ["ABANDONED_MESSAGE", "SQLiteTaskStore"]

#: The error message of a task whose process stopped before it finished.
ABANDONED_MESSAGE: Final = "The server stopped before the task finished"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS mcp_tasks ("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL UNIQUE,"
    " status TEXT NOT NULL, created_at REAL NOT NULL, last_updated_at REAL NOT NULL,"
    " ttl INTEGER, poll_interval INTEGER, status_message TEXT, owner TEXT,"
    " input_requests BLOB, outcome BLOB, expires_at REAL)"
)
_COLUMNS = (
    "task_id, status, created_at, last_updated_at, ttl, poll_interval, status_message,"
    " owner, seq, input_requests"
)


def _row_info(row: Any) -> TaskInfo:
    requests = orjson.loads(row[9]) if row[9] is not None else None
    return TaskInfo(
        row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], requests
    )


class SQLiteTaskStore(TaskStore):
    """Tasks in an SQLite database file (or ``":memory:"``): see the module docstring.

    ``max_tasks`` bounds the unfinished tasks held (None: no bound); expired tasks are
    deleted as they are met and on every ``purge_every``-th creation.
    """

    def __init__(
        self,
        path: str = "mcpkit-tasks.sqlite3",
        *,
        abandon_unfinished: bool = True,
        max_tasks: int | None = None,
        purge_every: int = 100,
        clock: Callable[[], float] = time.time,
    ) -> None:
        import sqlite3  # only when used

        self.path = path
        self.max_tasks = max_tasks
        self.purge_every = purge_every
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._db.execute("CREATE INDEX IF NOT EXISTS mcp_tasks_expiry ON mcp_tasks (expires_at)")
        self._events: dict[str, asyncio.Event] = {}
        self._creates = 0
        if abandon_unfinished:
            self.abandon_unfinished()

    # -- helpers --------------------------------------------------------------------------------

    def _execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        with self._lock:
            return self._db.execute(sql, args)

    def _fetch(self, task_id: str) -> TaskInfo | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_COLUMNS}, expires_at FROM mcp_tasks WHERE task_id = ?", (task_id,)
            ).fetchone()
        if row is None:
            return None
        expires = row[10]
        if expires is not None and expires <= self._clock():
            self._delete(task_id)
            return None
        return _row_info(row)

    def _delete(self, task_id: str) -> None:
        self._execute("DELETE FROM mcp_tasks WHERE task_id = ?", (task_id,))
        event = self._events.pop(task_id, None)
        if event is not None:
            event.set()

    def _wake(self, task_id: str) -> None:
        event = self._events.get(task_id)
        if event is not None:
            event.set()

    def abandon_unfinished(self) -> int:
        """End every unfinished task ``failed`` (their process is gone); how many there were."""
        error = orjson.dumps({"error": {"code": INTERNAL_ERROR, "message": ABANDONED_MESSAGE}})
        cursor = self._execute(
            "UPDATE mcp_tasks SET status = 'failed', status_message = ?, outcome = ?,"
            " input_requests = NULL, last_updated_at = ?"
            " WHERE status IN ('working', 'input_required')",
            (ABANDONED_MESSAGE, error, self._clock()),
        )
        return int(cursor.rowcount)

    def purge(self) -> None:
        """Delete every task whose ttl has elapsed."""
        self._execute("DELETE FROM mcp_tasks WHERE expires_at <= ?", (self._clock(),))

    def __len__(self) -> int:
        row = self._execute("SELECT COUNT(*) FROM mcp_tasks").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    # -- the store ------------------------------------------------------------------------------

    async def create(
        self, *, ttl: int | None, poll_interval: int | None, owner: str | None
    ) -> TaskInfo:
        self._creates += 1
        if self._creates % self.purge_every == 1:
            self.purge()
        if self.max_tasks is not None:
            row = self._execute(
                "SELECT COUNT(*) FROM mcp_tasks WHERE status IN ('working', 'input_required')"
            ).fetchone()
            if int(row[0]) >= self.max_tasks:
                raise TaskLimitError(f"Too many unfinished tasks (limit {self.max_tasks})")
        now = self._clock()
        task_id = new_task_id()
        expires = None if ttl is None else now + ttl / 1000
        cursor = self._execute(
            "INSERT INTO mcp_tasks (task_id, status, created_at, last_updated_at, ttl,"
            " poll_interval, owner, expires_at) VALUES (?, 'working', ?, ?, ?, ?, ?, ?)",
            (task_id, now, now, ttl, poll_interval, owner, expires),
        )
        return TaskInfo(
            task_id, "working", now, now, ttl, poll_interval, None, owner, int(cursor.lastrowid)
        )

    async def get(self, task_id: str) -> TaskInfo | None:
        return self._fetch(task_id)

    async def move(
        self,
        task_id: str,
        status: TaskStatus,
        status_message: str | None,
        input_requests: JSONObject | None,
        outcome: JSONObject | None,
    ) -> TaskInfo | None:
        info = self._fetch(task_id)
        if info is None or not allowed_update(info, status, input_requests):
            return None
        now = self._clock()
        requests = orjson.dumps(input_requests) if input_requests else None
        kept = orjson.dumps(outcome) if outcome is not None else None
        # One statement, on the status read: the outcome and a terminal status land
        # together, and only once.
        cursor = self._execute(
            "UPDATE mcp_tasks SET status = ?, status_message = ?, input_requests = ?,"
            " outcome = ?, last_updated_at = ? WHERE task_id = ? AND status = ?",
            (status, status_message, requests, kept, now, task_id, info.status),
        )
        if cursor.rowcount != 1:  # moved meanwhile (e.g. cancelled)
            return None
        if status in TERMINAL:
            self._wake(task_id)
        return info.moved(status, status_message, input_requests, now)

    async def outcome(self, task_id: str) -> JSONObject | None:
        row = self._execute(
            "SELECT outcome FROM mcp_tasks WHERE task_id = ?", (task_id,)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        outcome: JSONObject = orjson.loads(row[0])
        return outcome

    async def list(
        self, owner: str | None, after: int, limit: int
    ) -> tuple[list[TaskInfo], int | None]:
        last = self._execute(
            "SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE name = 'mcp_tasks'"
        ).fetchone()
        if after > int(last[0] or 0):
            raise ValueError("position never issued")
        self.purge()
        owner_clause = "owner IS NULL" if owner is None else "owner = ?"
        args: tuple[Any, ...] = (after,) if owner is None else (after, owner)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM mcp_tasks WHERE seq > ? AND {owner_clause}"
                " ORDER BY seq LIMIT ?",
                (*args, limit + 1),
            ).fetchall()
        page = [_row_info(r) for r in rows[:limit]]
        return page, (page[-1].seq if len(rows) > limit else None)

    async def delete(self, task_id: str) -> None:
        self._delete(task_id)

    async def wait(self, task_id: str, poll_interval: float) -> None:
        """Return once the task is terminal or gone: woken at once for tasks finished by
        this store, checked every ``poll_interval`` seconds otherwise."""
        event = self._events.get(task_id)
        if event is None:
            event = self._events[task_id] = asyncio.Event()
        try:
            while True:
                info = self._fetch(task_id)
                if info is None or info.terminal:
                    return
                event.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), max(poll_interval, 0.01))
        finally:
            self._events.pop(task_id, None)
