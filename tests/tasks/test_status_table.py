"""The task status table, cell by cell, alone (no store) and as every store applies it.

The expected cells are written out here from the spec (2025-11-25 tasks: ``working <->
input_required -> completed | failed | cancelled``, terminal statuses never change), not
read from :data:`mcpkit.tasks.TRANSITIONS`. Each store (memory, SQLite, and Redis on a
redis-server of its own) is walked through every (from, to) pair with ``update`` and
``finish``: the guard they share is the one the table says.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpkit.redis import RedisBackend
from mcpkit.sqlite_task_store import SQLiteTaskStore
from mcpkit.tasks import (
    STATUSES,
    TERMINAL,
    TRANSITIONS,
    MemoryTaskStore,
    TaskInfo,
    TaskStore,
    allowed_update,
    can_transition,
)
from tests.scaleout.cluster import Redis, free_port

W, IR, C, F, X = "working", "input_required", "completed", "failed", "cancelled"
#: (from, to) -> allowed, every pair of the five statuses.
EXPECTED: dict[tuple[str, str], bool] = {
    (W, W): False, (W, IR): True, (W, C): True, (W, F): True, (W, X): True,
    (IR, W): True, (IR, IR): False, (IR, C): True, (IR, F): True, (IR, X): True,
    **{(t, s): False for t in (C, F, X) for s in (W, IR, C, F, X)},
}  # fmt: skip
ASKED = {"q": {"method": "elicitation/create", "params": {"message": "?"}}}


def test_the_table_is_complete_and_says_what_the_spec_says() -> None:
    assert set(STATUSES) == {W, IR, C, F, X} and set(TERMINAL) == {C, F, X}
    assert set(TRANSITIONS) == set(STATUSES)
    for old, new in itertools.product(STATUSES, STATUSES):
        assert can_transition(old, new) is EXPECTED[(old, new)], (old, new)
        assert (new in TRANSITIONS[old]) is EXPECTED[(old, new)], (old, new)
    assert not can_transition("unknown", W) and not can_transition(W, "unknown")


class _At:
    def __init__(self, status: str) -> None:
        self.status = status


@pytest.mark.parametrize(("old", "new"), list(itertools.product(STATUSES, STATUSES)))
def test_the_update_guard_in_every_cell(old: str, new: str) -> None:
    at = _At(old)
    expected = EXPECTED[(old, new)]
    assert allowed_update(at, new, None) is expected
    if new == IR:
        # input_required again is allowed only with a new set of open requests.
        assert allowed_update(at, IR, ASKED) is (expected or old == IR)
        assert allowed_update(at, IR, {}) is (expected or old == IR)
    else:
        assert allowed_update(at, new, {}) is expected  # an empty set is no requests
        with pytest.raises(ValueError, match="input_required status only"):
            allowed_update(at, new, ASKED)


# -- the same table, as each store applies it ---------------------------------------------------


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redis]:
    server = Redis(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def make_store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Callable[[], TaskStore]]:
    backends: list[RedisBackend] = []
    if request.param == "memory":
        yield MemoryTaskStore
    elif request.param == "sqlite":
        yield lambda: SQLiteTaskStore(str(tmp_path / "tasks.sqlite3"))
    else:
        server: Redis = request.getfixturevalue("redis_server")

        def redis_store() -> TaskStore:
            backend = RedisBackend(server.url, prefix=f"s{free_port()}")
            backends.append(backend)
            return backend.task_store()

        yield redis_store
    for backend in backends:
        await asyncio.wait_for(backend.aclose(), 30)


async def _task_in(store: TaskStore, status: str) -> TaskInfo:
    """A new task moved to ``status`` by the allowed path."""
    info = await store.create(ttl=60_000, poll_interval=None, owner=None)
    if status == IR:
        assert await store.update(info.task_id, IR, input_requests=ASKED) is not None
    elif status in TERMINAL:
        assert await store.finish(info.task_id, status, {"result": {"n": 1}}) is not None  # type: ignore[arg-type]
    got = await store.get(info.task_id)
    assert got is not None and got.status == status
    return got


async def test_every_store_applies_the_table(make_store: Callable[[], TaskStore]) -> None:
    store = make_store()
    for old, new in itertools.product(STATUSES, STATUSES):
        info = await _task_in(store, old)
        tid = info.task_id
        # input_required again is allowed with a new set of open requests (sent here).
        allowed = EXPECTED[(old, new)] or old == new == IR
        if new in TERMINAL:
            moved = await store.finish(tid, new, {"result": {"n": 2}}, "done")  # type: ignore[arg-type]
            with pytest.raises(ValueError, match="not a terminal status"):
                await store.finish(tid, W, None)
        else:
            requests = ASKED if new == IR else None
            moved = await store.update(tid, new, "moved", input_requests=requests)  # type: ignore[arg-type]
        stored = await store.get(tid)
        assert stored is not None
        if allowed:
            assert moved is not None and moved.status == new, (old, new)
            assert stored.status == new and stored.status_message == moved.status_message
            assert stored.input_requests == (ASKED if new == IR else None), (old, new)
            if new in TERMINAL:
                assert await store.outcome(tid) == {"result": {"n": 2}}, (old, new)
        else:
            assert moved is None, (old, new)
            assert stored.status == old, (old, new)
            if old in TERMINAL:  # what it finished with is kept
                assert await store.outcome(tid) == {"result": {"n": 1}}, (old, new)
    # Unknown tasks move nowhere.
    assert await store.update("0" * 32, IR, input_requests=ASKED) is None
    assert await store.finish("0" * 32, C, None) is None


async def test_only_one_of_two_racing_finishes_lands(make_store: Callable[[], TaskStore]) -> None:
    store = make_store()
    info = await store.create(ttl=60_000, poll_interval=None, owner=None)
    outcomes: list[Any] = await asyncio.gather(
        store.finish(info.task_id, C, {"result": {"who": 1}}),
        store.finish(info.task_id, X, None),
    )
    assert sum(o is not None for o in outcomes) == 1
    final = await store.get(info.task_id)
    assert final is not None and final.status in (C, X)
    assert await store.outcome(info.task_id) == (
        {"result": {"who": 1}} if final.status == C else None
    )
