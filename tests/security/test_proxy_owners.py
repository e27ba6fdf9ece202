"""The proxy's table of downstream task owners (mcpkit.proxy.owners)."""

from __future__ import annotations

import pytest

from mcpkit.errors import McpError
from mcpkit.proxy.owners import TaskOwners


def test_owners_reach_their_own_tasks_only() -> None:
    owners = TaskOwners()
    owners.created({"task": {"taskId": "t1", "ttl": 60_000}}, "oauth:alice")
    owners.created({"resultType": "task", "taskId": "t2", "ttlMs": None}, "oauth:alice")
    owners.created({"content": []}, "oauth:alice")  # not a task: nothing kept
    assert len(owners) == 2
    owners.check("t1", "oauth:alice")
    owners.check("t2", "oauth:alice")
    for task_id in ("t1", "t2", "unknown", None, 7):
        with pytest.raises(McpError) as refused:
            owners.check(task_id, "oauth:mallory")
        assert refused.value.code == -32602
    listed = {"tasks": [{"taskId": "t1"}, {"taskId": "t2"}, {"taskId": "other"}]}
    assert owners.visible(listed, "oauth:alice")["tasks"] == [{"taskId": "t1"}, {"taskId": "t2"}]
    assert owners.visible(listed, "oauth:mallory")["tasks"] == []
    assert owners.visible(listed, None)["tasks"] == []  # nobody's are never listed


def test_expired_and_evicted_tasks_are_refused_not_opened() -> None:
    owners = TaskOwners(max_tasks=2)
    owners.created({"task": {"taskId": "gone", "ttl": 0}}, "oauth:alice")
    with pytest.raises(McpError):
        owners.check("gone", "oauth:alice")
    for i in range(3):
        owners.created({"task": {"taskId": f"t{i}", "ttl": None}}, "oauth:alice")
    assert len(owners) == 2
    with pytest.raises(McpError):
        owners.check("t0", "oauth:alice")  # evicted: refused, never anyone's


def test_nobody_reaches_nobodys_tasks_by_id() -> None:
    owners = TaskOwners()
    owners.created({"task": {"taskId": "t1", "ttl": None}}, None)
    owners.check("t1", None)
    owners.check("made-on-another-replica", None)
    with pytest.raises(McpError):
        owners.check("t1", "oauth:alice")
