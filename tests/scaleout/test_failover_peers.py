"""The official Python client and the TypeScript SDK v2 client when the replica serving
their streaming call is SIGKILLed (2025 era, through nginx in front of 3 replicas on Redis).

Each SDK resumes the broken SSE stream itself (GET with ``Last-Event-ID``), nginx sends
that GET to a live replica, which replays from Redis what the dead one had sent and, once
the dead replica's lease expires, ends the call with the JSON-RPC error saying so: every
progress notification already received arrives once and in order, and the call ends with
an error, never a hang (bench/failover.py counts the same with mcpkit's client over 100+
trials).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable
from typing import Any

from mcpkit.redis.sessions import PRODUCER_DIED_MESSAGE
from tests.interop.conftest import PEER_SCRIPTS, NodePeer, PythonPeer, py_peer, ts_peer
from tests.scaleout.conftest import Deployment
from tests.scaleout.tours import replica_counts

__all__ = ["py_peer", "ts_peer"]

#: 3 s of progress: long enough to be found running and killed midway.
CALL = ["--call", "stream", json.dumps({"count": 60, "delay": 0.05})]


async def kill_midway(live: Deployment, run: Callable[[], subprocess.CompletedProcess[str]]) -> Any:
    """Run the peer; SIGKILL the replica running its call once the call is underway."""
    peer = asyncio.ensure_future(asyncio.to_thread(run))
    victim = None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while victim is None and not peer.done() and loop.time() < deadline:
        counts = await replica_counts(live)
        victim = next((name for name, c in counts.items() if c.get("running")), None)
    assert victim is not None, "the call was never seen running"
    await asyncio.sleep(0.5)  # some progress first: the stream has event ids to resume from
    live.replica(victim).kill()
    return victim, await peer


def check_killed(report: dict[str, Any], victim: str) -> None:
    assert report["protocolVersion"] == "2025-11-25"
    (call,) = report["calls"]
    assert PRODUCER_DIED_MESSAGE in call.get("error", ""), call
    progress = call["progress"]
    assert progress, call  # killed midway, not before the stream began
    # Once each, in order, all from the replica that died.
    assert progress == [f"{victim}:{i}" for i in range(1, len(progress) + 1)], progress
    assert len(progress) < 60, progress


async def test_official_python_client_resumes_a_killed_call(
    live: Deployment, py_peer: PythonPeer
) -> None:
    args = ["--mode", "legacy", "--url", live.url, *CALL]
    victim, run = await kill_midway(
        live, lambda: py_peer.run(PEER_SCRIPTS / "py_client.py", *args, timeout=120)
    )
    assert run.returncode == 0, run.stderr[-3000:]
    check_killed(json.loads(run.stdout), victim)


async def test_typescript_client_resumes_a_killed_call(live: Deployment, ts_peer: NodePeer) -> None:
    args = ["--mode", "legacy", "--url", live.url, *CALL]
    victim, run = await kill_midway(
        live, lambda: ts_peer.run(PEER_SCRIPTS / "ts_client.mjs", *args, timeout=120)
    )
    assert run.returncode == 0, run.stderr[-3000:]
    check_killed(json.loads(run.stdout.strip().splitlines()[-1]), victim)
