"""What sharing costs: 3 replicas behind nginx on Redis vs 1 process with the memory store.

Usage: python bench/scaleout.py [--calls N] [--clients K] [--rounds R] [--smoke]

The same echo workload (``tools/call`` of ``echo``, ``--clients`` clients at once, each
making ``--calls`` calls one after the other) in both eras of mcpkit's Client against:

- memory, 1 process: one server process with the default (memory) store, direct;
- redis, 1 process: one replica on Redis, direct (what Redis itself costs);
- redis, 3 + nginx: three replicas on Redis behind nginx round-robin, no stickiness.

A 2025 session on Redis refreshes its state and writes each event to the log (one pipeline
each way); a 2026-07-28 echo call touches nothing shared. Every configuration runs once per
round, interleaved, so a loaded machine slows them alike; the table gives calls/s (total
over the clients) and the p99 of one call's latency in milliseconds, the median over the
rounds. ``--smoke``: one tiny round whose every answer is checked (exits 1 on a wrong one).
Bounded: every call has a 30 s timeout and the run at most ``--calls * --clients * --rounds``
calls per configuration and era.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scaleout.cluster import (  # noqa: E402
    Replica,
    direct_url,
    free_port,
    start_deployment,
    stop_deployment,
    wait_port,
)

from mcpkit import Client  # noqa: E402

ERAS = ("legacy", "2026-07-28")
CONFIGS = ("memory, 1 process", "redis, 1 process", "redis, 3 + nginx")


async def one_client(url: str, era: str, calls: int, latencies: list[float], tag: str) -> int:
    wrong = 0
    async with Client(url, era=era, timeout=30) as client:  # type: ignore[arg-type]
        await client.call_tool("echo", {"text": "warm"})
        for i in range(calls):
            text = f"{tag}-{i}"
            start = time.perf_counter()
            result = await client.call_tool("echo", {"text": text})
            latencies.append(time.perf_counter() - start)
            if result.content[0].text != text:  # type: ignore[union-attr]
                wrong += 1
    return wrong


async def measure(url: str, era: str, calls: int, clients: int) -> tuple[float, float, int]:
    latencies: list[float] = []
    start = time.perf_counter()
    wrongs = await asyncio.gather(
        *(one_client(url, era, calls, latencies, f"c{k}") for k in range(clients))
    )
    elapsed = time.perf_counter() - start
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    return len(latencies) / elapsed, p99, sum(wrongs)


async def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="mcpkit-bench-scaleout-") as tmp:
        directory = Path(tmp)
        cluster = start_deployment(directory)
        memory = Replica("m1", free_port(), "", directory / "m1.log", memory=True)
        single = Replica("s1", free_port(), cluster.redis.url, directory / "s1.log")
        try:
            for extra in (memory, single):
                extra.spawn()
            for extra in (memory, single):
                wait_port(extra.port, extra.proc)
            urls = dict(
                zip(CONFIGS, (direct_url(memory), direct_url(single), cluster.url), strict=True)
            )
            results: dict[tuple[str, str], list[tuple[float, float]]] = {}
            wrong = 0
            for _ in range(args.rounds):
                for era in ERAS:
                    for config in CONFIGS:
                        rate, p99, bad = await measure(urls[config], era, args.calls, args.clients)
                        wrong += bad
                        results.setdefault((config, era), []).append((rate, p99))
        finally:
            memory.stop()
            single.stop()
            stop_deployment(cluster)
    if args.smoke:
        print(
            f"smoke run: checked the answers only ({len(results)} configuration x era runs, ",
            end="",
        )
        print(f"{wrong} wrong)")
        return 1 if wrong else 0
    print(f"echo, {args.clients} clients x {args.calls} calls, median of {args.rounds} rounds")
    print(f"{'configuration':<20} {'era':<11} {'calls/s':>9} {'p99 ms':>8}")
    for era in ERAS:
        for config in CONFIGS:
            rows = results[(config, era)]
            rate = statistics.median(r for r, _ in rows)
            p99 = statistics.median(p for _, p in rows)
            print(f"{config:<20} {era:<11} {rate:>9.0f} {p99:>8.1f}")
    return 1 if wrong else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.calls, args.clients, args.rounds = 5, 2, 1
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
