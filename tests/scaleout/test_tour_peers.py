"""The official Python client and the TypeScript SDK v2 client through nginx in front of 3
replicas on Redis, in both eras: every call lands on another replica than the one before,
and sampling, elicitation and roots (2025 requests, 2026 input_required rounds) still work.

2025 era, streams: a resource subscription whose updates are made on other replicas (each
arrives once), notifications made after their call answered (only the standalone GET
stream can carry them), and a streaming call whose SSE stream the server closes midway (the
SDK resumes it with ``Last-Event-ID``; nginx sends that GET to another replica, which
serves the rest from Redis). 2026-07-28: listen (both SDKs) and tasks of the tasks
extension (each SDK through its own tasks API, see tests/interop/peers)."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
import redis.asyncio as aioredis

from mcpkit import Client
from mcpkit.client import ProtocolOptions
from mcpkit.server.tasks_extension import EXTENSION_ID as TASKS_EXTENSION
from mcpkit.tasks import RELATED_TASK
from tests.interop.conftest import PEER_SCRIPTS, NodePeer, PythonPeer, py_peer, ts_peer
from tests.scaleout.cluster import PREFIX, direct_url
from tests.scaleout.conftest import Deployment
from tests.scaleout.tours import client, replica_counts

__all__ = ["py_peer", "ts_peer"]

ERAS = ["legacy", "2026-07-28"]
CALLS = [
    *(("replica", {}) for _ in range(6)),
    ("echo", {"text": "hello"}),
    ("sample", {"prompt": "hi"}),
    ("ask", {"question": "ok?"}),
    ("roots", {}),
]


def call_args() -> list[str]:
    out: list[str] = []
    for name, arguments in CALLS:
        out += ["--call", name, json.dumps(arguments)]
    return out


def texts(report: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for call in report["calls"]:
        assert "error" not in call, call
        result = call["result"]
        structured = result.get("structuredContent")
        out.append(structured["id"] if call["name"] == "replica" else result["content"][0]["text"])
    return out


def check(report: dict[str, Any], era: str, sampled: str, root: str) -> None:
    expected = "2026-07-28" if era != "legacy" else "2025-11-25"
    assert report["protocolVersion"] == expected
    got = texts(report)
    seen = got[:6]
    assert set(seen) == {"r1", "r2", "r3"}, seen
    assert all(a != b for a, b in itertools.pairwise(seen)), seen
    echo, sample, ask, roots = got[6:]
    assert echo == "hello"
    assert sample.endswith(f"sampled: {sampled}"), sample
    assert " got: accept " in ask, ask
    assert roots.endswith(f"roots: {root}"), roots


@pytest.mark.parametrize("era", ERAS)
def test_official_python_client(live: Deployment, py_peer: PythonPeer, era: str) -> None:
    args = ["--mode", era, "--url", live.url, *call_args(), "--elicit-content", '{"v": "py"}']
    if era != "legacy":
        args += ["--listen-tools", "changed", "{}"]
    run = py_peer.run(PEER_SCRIPTS / "py_client.py", *args, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    check(report, era, "sampled by the official client", "file:///interop/root")
    if era != "legacy":
        assert report["listen"], report["listen"]  # a change made on another replica


@pytest.mark.parametrize("era", ERAS)
def test_typescript_client(live: Deployment, ts_peer: NodePeer, era: str) -> None:
    run = ts_peer.run(
        PEER_SCRIPTS / "ts_client.mjs", "--mode", era, "--url", live.url, *call_args(), timeout=120
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])  # the SDK may warn first
    check(report, era, "sampled by the TypeScript client", "file:///interop/ts-root")


# -- 2025 era: subscriptions, the GET stream, resumption; 2026: listen, tasks ---------------

#: Calls of the streams tour, in order (each lands on the next replica: nginx round-robin).
STREAM_CALLS = [
    *(("touch", {"uri": "note://tour"}) for _ in range(3)),  # subscribed: 3 updates
    ("touch", {"uri": "note://elsewhere"}),  # not subscribed: nothing
    # After each call has answered: a change only the standalone GET stream can carry,
    # made on three replicas in turn (at least two of them not the one holding the stream).
    *(("announce", {"kind": "tools", "delay": 0.3 * i}) for i in (1, 2, 3)),
    ("cut", {"count": 6, "delay": 0.05, "at": 2}),  # its SSE stream closed after step 2
]


def stream_args() -> list[str]:
    out = ["--subscribe", "note://tour", "--wait-notifications", "6", "--settle", "0.8"]
    for name, arguments in STREAM_CALLS:
        out += ["--call", name, json.dumps(arguments)]
    return out


def check_streams(report: dict[str, Any], before: dict[str, Any], after: dict[str, Any]) -> None:
    assert report["protocolVersion"] == "2025-11-25"
    calls = report["calls"]
    for call in calls:
        assert "error" not in call and not call["result"].get("isError"), call
    methods = [n["method"] for n in report["notifications"]]
    updated = [
        n["params"]["uri"]
        for n in report["notifications"]
        if n["method"] == "notifications/resources/updated"
    ]
    # Each once: the subscribed URI's three updates, made on three replicas; nothing for
    # the URI not subscribed to; the three late tool-list changes over the GET stream.
    assert updated == ["note://tour"] * 3, report["notifications"]
    assert methods.count("notifications/tools/list_changed") == 3, methods
    touched = [c["result"]["content"][0]["text"].split()[0] for c in calls[:3]]
    assert set(touched) == {"r1", "r2", "r3"}, touched
    announced = [c["result"]["content"][0]["text"].split()[0] for c in calls[4:7]]
    assert set(announced) == {"r1", "r2", "r3"}, announced
    # Resumption: the cut call's stream was closed after step 2; the SDK resumed it with
    # Last-Event-ID through nginx on another replica and got every step once, in order.
    cut = calls[-1]
    runner = cut["result"]["content"][0]["text"].rsplit(" ", 1)[1]
    assert cut["result"]["content"][0]["text"] == f"cut 6 on {runner}"
    assert cut["progress"] == [f"{runner}:{i}" for i in range(1, 7)], cut["progress"]
    resumed = {name: after[name]["resumed"] - before[name]["resumed"] for name in after}
    assert sum(resumed.values()) >= 1, resumed
    assert any(n > 0 for name, n in resumed.items() if name != runner), (runner, resumed)


async def test_official_python_client_streams(live: Deployment, py_peer: PythonPeer) -> None:
    before = await replica_counts(live)
    run = await asyncio.to_thread(
        py_peer.run,
        PEER_SCRIPTS / "py_client.py",
        "--mode",
        "legacy",
        "--url",
        live.url,
        *stream_args(),
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    check_streams(json.loads(run.stdout), before, await replica_counts(live))


async def test_typescript_client_streams_and_tasks(live: Deployment, ts_peer: NodePeer) -> None:
    """Also 2025-11-25 tasks, through the official tasks package (its V1 protocol on the
    SDK Client: task-augmented calls, tasks/get and tasks/result on any replica, the
    elicitation of a task answered through the session's stream)."""
    before = await replica_counts(live)
    run = await asyncio.to_thread(
        ts_peer.run,
        PEER_SCRIPTS / "ts_client.mjs",
        "--mode",
        "legacy",
        "--url",
        live.url,
        *stream_args(),
        *TASK_ARGS,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    check_streams(report, before, await replica_counts(live))
    check_tasks(report, "accept", live_question=True)


TASK_ARGS = ["--task", "slow", json.dumps({"seconds": 0.3}), "--task", "confirm", "{}"]


def check_tasks(report: dict[str, Any], confirmed: str, *, live_question: bool = False) -> None:
    """``live_question``: the 2025 design, where the task's question reaches the client as a
    request of its own, answered at once; whether a ``tasks/get`` poll lands while the task
    waits (``input_required``) is then a matter of timing, so the question answered as a
    request of the task stands for it. On the 2026 wire the client sees ``input_required``
    before it can answer."""
    slow, confirm = report["tasks"]
    assert "error" not in slow and "error" not in confirm, report["tasks"]
    assert slow["result"]["content"][0]["text"].endswith(" slept 0.3"), slow
    assert slow["statuses"][-1] == "completed" and "working" in slow["statuses"], slow
    assert confirm["result"]["content"][0]["text"].endswith(f"confirmed: {confirmed}"), confirm
    if live_question:
        # The question the client answered as a request related to a task (2025 design).
        asked = [
            a
            for a in report.get("answered", [])
            if a["kind"].endswith("elicitation")
            and "taskId" in ((a["params"] or {}).get("_meta") or {}).get(RELATED_TASK, {})
        ]
        assert "input_required" in confirm["statuses"] or len(asked) == 1, (confirm, asked)
    else:
        assert "input_required" in confirm["statuses"], confirm
    assert confirm["statuses"][-1] == "completed", confirm


def test_official_python_client_modern_tasks(live: Deployment, py_peer: PythonPeer) -> None:
    run = py_peer.run(
        PEER_SCRIPTS / "py_client.py",
        "--mode",
        "2026-07-28",
        "--url",
        live.url,
        *TASK_ARGS,
        "--elicit-content",
        '{"v": "py"}',
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    check_tasks(json.loads(run.stdout), "accept")


def test_typescript_client_modern_listen_and_tasks(live: Deployment, ts_peer: NodePeer) -> None:
    run = ts_peer.run(
        PEER_SCRIPTS / "ts_client.mjs",
        "--mode",
        "auto",  # the probe: the tasks package reads the extension from server/discover
        "--url",
        live.url,
        "--listen-tools",
        "changed",
        "{}",
        *TASK_ARGS,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["protocolVersion"] == "2026-07-28"
    listen = report["listen"]
    assert listen["honored"] == {"toolsListChanged": True}, listen
    assert listen["events"] == ["notifications/tools/list_changed"], listen  # once
    check_tasks(report, "accept")


async def test_a_task_answer_sent_to_another_replica_reaches_the_task(live: Deployment) -> None:
    """``tasks/update`` landing on a replica that does not run the task: the answer reaches
    the task on its replica (the SDKs' tasks clients answer each input request once)."""
    store = aioredis.Redis.from_url(live.redis.url)
    try:
        async with client(
            live.url, "2026-07-28", protocol=ProtocolOptions(extensions={TASKS_EXTENSION: {}})
        ) as c:
            handle = await c.start_tool_task("confirm", {})
            tid = handle.task_id
            assert tid is not None
            lease = await store.get(f"{PREFIX}:t:{{{tid}}}:lease")
            assert lease is not None
            runner = lease.decode().rsplit("-", 1)[0]
            for _ in range(200):
                if (await c.request("tasks/get", {"taskId": tid}))["status"] == "input_required":
                    break
                await asyncio.sleep(0.05)
            other = next(r for r in live.replicas if r.name != runner)
            async with Client(
                direct_url(other),
                era="2026-07-28",
                protocol=ProtocolOptions(extensions={TASKS_EXTENSION: {}}),
                timeout=30,
            ) as elsewhere:
                answer = {"action": "accept", "content": {"v": "once"}}
                await elsewhere.request(
                    "tasks/update", {"taskId": tid, "inputResponses": {"go": answer}}
                )
            status = None
            for _ in range(200):  # polled through nginx: tasks/get only, no more answers
                detailed = await c.request("tasks/get", {"taskId": tid})
                status = detailed["status"]
                if status == "completed":
                    break
                await asyncio.sleep(0.05)
            assert status == "completed", (runner, other.name, status)
            assert detailed["result"]["resultType"] == "complete"  # a 2026 CallToolResult
            assert detailed["result"]["content"][0]["text"] == f"{runner} confirmed: accept"
    finally:
        await store.aclose()
