"""Replica death: SIGKILL the replica serving streaming tool calls, GET streams and listen
streams, counted by bench/failover.py (run here with ``--smoke``, a few trials of each
kind; ``python bench/failover.py`` runs 100+ trials of each); and a task whose replica was
killed ends ``failed`` with a clear error.

bench/failover.py checks, per kind: nothing the server had written is lost or received
twice (a killed streaming call resumes through nginx on another replica, a GET stream is
resumed with ``Last-Event-ID``, a killed listen is opened again), and every killed request
ends with a clear error within its bound (a streaming call: -32603 once the dead replica's
lease expires), never a hang.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from mcpkit import McpError
from mcpkit.redis.tasks import LEASE_EXPIRED_MESSAGE
from tests.scaleout.cluster import PREFIX
from tests.scaleout.conftest import Deployment
from tests.scaleout.tours import client

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("streaming call (2025)", "GET stream (2025)", "listen (2026)")


@pytest.mark.timeout(240)
def test_failover_benchmark_smoke() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "failover.py"), "--smoke"],
        capture_output=True,
        text=True,
        timeout=220,
        check=False,
    )
    out = run.stdout
    assert run.returncode == 0, out + run.stderr[-3000:]
    assert "ok: 0 lost, duplicated or hung" in out, out
    rows = {line[:22].strip(): line[22:].split() for line in out.splitlines()}
    for kind in KINDS:
        trials, lost, dup = (int(v) for v in rows[kind][:3])
        assert trials >= 3 and lost == 0 and dup == 0, (kind, rows[kind])
    for kind in ("streaming call (2025)", "listen (2026)"):
        assert int(rows[kind][3]) == int(rows[kind][0]), (kind, rows[kind])  # all ended


@pytest.mark.timeout(120)
async def test_task_of_a_killed_replica_fails_with_a_clear_error(live: Deployment) -> None:
    store = aioredis.Redis.from_url(live.redis.url)
    try:
        for era in ("legacy", "2026-07-28"):
            live.ensure_running()
            async with client(live.url, era) as c:
                handle = await c.start_tool_task("slow", {"seconds": 60})
                lease = await store.get(f"{PREFIX}:t:{{{handle.task_id}}}:lease")
                assert lease is not None
                runner = lease.decode().rsplit("-", 1)[0]  # "r2-<pid>": replica r2
                live.replica(runner).kill()
                with pytest.raises(McpError) as failed:
                    await handle.result(timeout=30)  # polled through the other replicas
                assert failed.value.message == LEASE_EXPIRED_MESSAGE
                assert handle.status == "failed"
    finally:
        await store.aclose()
        live.ensure_running()
