"""The task stores behind TaskStore: in memory and SQLite, same rules; SQLite survives."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpkit.sqlite_task_store import ABANDONED_MESSAGE, SQLiteTaskStore
from mcpkit.tasks import MemoryTaskStore, TaskStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


StoreFactory = Callable[[Clock], TaskStore]


@pytest.fixture(params=["memory", "sqlite"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    if request.param == "memory":
        return lambda clock: MemoryTaskStore(clock=clock)
    return lambda clock: SQLiteTaskStore(str(tmp_path / "tasks.sqlite3"), clock=clock)


async def test_lifecycle_of_a_task(make_store: StoreFactory) -> None:
    clock = Clock()
    store = make_store(clock)
    info = await store.create(ttl=60_000, poll_interval=500, owner="alice")
    assert re.fullmatch(r"[0-9a-f]{32}", info.task_id)
    assert info.status == "working" and info.owner == "alice"
    got = await store.get(info.task_id)
    assert got is not None and got.to_wire() == info.to_wire()
    clock.now += 1
    asked = {"q": {"method": "elicitation/create", "params": {"message": "?"}}}
    parked = await store.update(info.task_id, "input_required", input_requests=asked)
    assert parked is not None and parked.input_requests == asked
    got = await store.get(info.task_id)
    assert got is not None and got.status == "input_required" and got.input_requests == asked
    # The same status again only with a new set of open requests (some answered).
    assert await store.update(info.task_id, "input_required") is None
    fewer = await store.update(info.task_id, "input_required", input_requests={})
    assert fewer is not None and fewer.input_requests is None
    back = await store.update(info.task_id, "working")
    assert back is not None and back.input_requests is None
    done = await store.finish(info.task_id, "completed", {"result": {"content": []}}, None)
    assert done is not None and done.status == "completed"
    assert done.last_updated_at == clock.now
    assert await store.outcome(info.task_id) == {"result": {"content": []}}
    # Terminal tasks never change.
    assert await store.finish(info.task_id, "cancelled", None) is None
    assert await store.update(info.task_id, "working") is None
    with pytest.raises(ValueError):
        await store.update(info.task_id, "working", input_requests=asked)


async def test_ttl_expiry_not_early(make_store: StoreFactory) -> None:
    clock = Clock()
    store = make_store(clock)
    info = await store.create(ttl=1000, poll_interval=None, owner=None)
    clock.now += 0.999
    assert await store.get(info.task_id) is not None
    clock.now += 0.002
    assert await store.get(info.task_id) is None


async def test_list_by_owner_and_delete(make_store: StoreFactory) -> None:
    clock = Clock()
    store = make_store(clock)
    mine = [await store.create(ttl=None, poll_interval=None, owner="a") for _ in range(3)]
    await store.create(ttl=None, poll_interval=None, owner="b")
    page, after = await store.list("a", 0, 2)
    assert [t.task_id for t in page] == [t.task_id for t in mine[:2]]
    assert after is not None
    rest, end = await store.list("a", after, 2)
    assert [t.task_id for t in rest] == [mine[2].task_id] and end is None
    with pytest.raises(ValueError):
        await store.list("a", 10_000, 2)
    await store.delete(mine[0].task_id)
    assert await store.get(mine[0].task_id) is None


async def test_sqlite_store_survives_a_restart(tmp_path: Path) -> None:
    path = str(tmp_path / "tasks.sqlite3")
    first = SQLiteTaskStore(path)
    finished = await first.create(ttl=None, poll_interval=None, owner="a")
    await first.finish(
        finished.task_id, "completed", {"result": {"content": [{"type": "text", "text": "42"}]}}
    )
    running = await first.create(ttl=None, poll_interval=None, owner="a")
    first.close()

    second = SQLiteTaskStore(path)
    again = await second.get(finished.task_id)
    assert again is not None and again.status == "completed" and again.owner == "a"
    assert await second.outcome(finished.task_id) == {
        "result": {"content": [{"type": "text", "text": "42"}]}
    }
    # A task whose process went away cannot resume: it ends failed, saying why.
    lost = await second.get(running.task_id)
    assert lost is not None and lost.status == "failed"
    assert lost.status_message == ABANDONED_MESSAGE
    outcome = await second.outcome(running.task_id)
    assert outcome is not None and outcome["error"]["code"] == -32603
    second.close()


async def test_sqlite_wait_wakes_on_finish(tmp_path: Path) -> None:
    import asyncio

    store = SQLiteTaskStore(str(tmp_path / "t.sqlite3"))
    info = await store.create(ttl=None, poll_interval=None, owner=None)
    waiter = asyncio.ensure_future(store.wait(info.task_id, 30))
    await asyncio.sleep(0.01)
    assert not waiter.done()
    await store.finish(info.task_id, "cancelled", None)
    await asyncio.wait_for(waiter, 2)


async def test_the_2025_task_flow_on_the_sqlite_store(tmp_path: Path, wire: Any) -> None:
    from mcpkit import Server
    from mcpkit.server.tasks import TaskManager
    from tests.server.helpers import connected

    store = SQLiteTaskStore(str(tmp_path / "t.sqlite3"))
    app = Server("sqlite-2025", tasks=TaskManager(store, poll_interval=20))

    @app.tool(task_support="optional")
    async def double(n: int) -> str:
        return str(n * 2)

    async with connected(app, wire) as (client, _):
        created = await client.request(
            "tools/call", {"name": "double", "arguments": {"n": 4}, "task": {"ttl": 60_000}}
        )
        task_id = created["task"]["taskId"]
        result = await client.request("tasks/result", {"taskId": task_id}, timeout=5)
        assert result["content"][0]["text"] == "8"
        listed = await client.request("tasks/list", {})
        assert [t["taskId"] for t in listed["tasks"]] == [task_id]
        got = await client.request("tasks/get", {"taskId": task_id})
        assert got["status"] == "completed" and got["ttl"] == 60_000
    # Another session (another owner) does not see it.
    async with connected(app, wire) as (other, _):
        assert (await other.request("tasks/list", {}))["tasks"] == []
    store.close()
