"""All cores with one flag: calls/s of one mcpkit HTTP process against ``workers=2``.

Usage: python bench/workers.py [--calls N] [--clients K] [--rounds R] [--workers W]

The benchmark server (``servers/mcpkit_server.py``, an ``async def`` echo tool) serves
stateless JSON with ``app.run("http", workers=...)``; the raw client (``client.py``, the
one of ``run.py``, every answer checked) sends ``--clients`` connections' worth of echo
calls, 2025 stateless and 2026-07-28, to 1 process and to ``--workers`` processes, one
after the other in every round. Server CPU is that of every server process (the workers
and their parent) over the run, warm-up included; the client's own CPU per call is shown
beside it because on a machine with as many cores as workers the client competes with
them: the ratio says what the workers win once the client has its share. The CPU columns
in cores (CPU seconds per second) show how much of the machine each side got: when the
server's share stays near what one process took, no core was free for the second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from client import (  # noqa: E402
    BenchError,
    cpu_seconds,
    free_port,
    http_calls,
    spawn,
    stop,
    wait_for_port,
)


def _tree_cpu(root: int) -> float:
    """CPU seconds of ``root`` and its children (the workers)."""
    total = 0.0
    pids = [root]
    try:
        children = Path(f"/proc/{root}/task/{root}/children").read_text().split()
    except OSError:
        children = []
    pids += [int(p) for p in children]
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


async def one(workers: int, modern: bool, calls: int, clients: int) -> dict[str, float]:
    port = free_port()
    argv = [sys.executable, str(HERE / "servers" / "mcpkit_server.py"), "http", "--port"]
    argv += [str(port), "--stateless", "--json-response", "--workers", str(workers)]
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    proc = await spawn(argv, env, asyncio.subprocess.DEVNULL, stdio=False)
    try:
        await wait_for_port(port, proc, 30)
        await asyncio.sleep(1.0)  # the workers import and start behind the listening port
        before = _tree_cpu(proc.pid)
        m = await http_calls(port, proc.pid, clients, calls, True, 20.0, modern=modern)
        server = _tree_cpu(proc.pid) - before
    finally:
        await stop(proc)
    if m.errors:
        raise BenchError(f"{m.errors} wrong answers: {m.first_error}")
    return {
        "rate": m.rate,
        "server_us": server / m.calls * 1e6,
        "client_us": m.client_us,
        "client_share": m.client_cpu / m.seconds,
    }


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=6000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = [("2025 stateless JSON", False), ("2026-07-28 JSON", True)]
    counts = (1, args.workers)
    results: dict[tuple[str, int], list[dict[str, float]]] = {}
    for _ in range(args.rounds):
        for label, modern in rows:
            for n in counts:
                got = await one(n, modern, args.calls, args.clients)
                results.setdefault((label, n), []).append(got)
    print(
        f"cpus: {os.cpu_count()}, {args.clients} clients, {args.calls} calls per run, "
        f"median of {args.rounds} rounds"
    )
    print(
        "| row | workers | calls/s | server CPU/call µs | client CPU/call µs "
        "| server CPU (cores) | client CPU (cores) | calls/s vs 1 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, _ in rows:
        base = statistics.median(r["rate"] for r in results[(label, 1)])
        for n in counts:
            rs = results[(label, n)]
            rate = statistics.median(r["rate"] for r in rs)
            server = statistics.median(r["server_us"] for r in rs)
            client = statistics.median(r["client_us"] for r in rs)
            share = statistics.median(r["client_share"] for r in rs)
            print(
                f"| {label} | {n} | {rate:,.0f} | {server:.0f} | {client:.0f} | "
                f"{rate * server / 1e6:.2f} | {share:.2f} | {rate / base:.2f}x |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
