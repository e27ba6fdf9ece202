"""What sharing costs: 3 replicas behind nginx on Redis vs 1 process with the memory store.

Usage: python bench/scaleout.py [--calls N] [--clients K] [--tasks T] [--listeners L]
                                [--rounds R] [--smoke] [--fanout-only]

Three workloads, in both eras of mcpkit's Client where they have two, against:

- memory, 1 process: one server process with the default (memory) store, direct;
- redis, 1 process: one replica on Redis, direct (what Redis itself costs);
- redis, 3 + nginx: three replicas on Redis behind nginx round-robin, no stickiness.

1. echo: ``--clients`` clients at once, each making ``--calls`` ``tools/call`` of ``echo``
   one after the other (a 2025 session on Redis refreshes its state before the request and
   writes its stream's registration, event and end after it: two round trips; a 2026-07-28
   call touches nothing shared);
2. tasks: the same clients each create ``--tasks`` tasks of ``slow`` (1 ms) one after the
   other, each polled to its end and its result fetched;
3. listen fan-out: ``--listeners`` 2026-07-28 ``subscriptions/listen`` streams (spread over
   the replicas by nginx), one tool list change made on one replica: how long each stream
   takes to deliver ``notifications/tools/list_changed`` (median and last), and the server
   CPU from the change to the last delivery per listener (the scheduler's nanosecond counts).
   The streams are read straight off their sockets (:class:`Listener`), every frame parsed and
   checked. ``--fanout-only`` runs this workload alone.

Server CPU per call is utime + stime of the mcpkit processes over the measurement, divided by
the calls (all replicas together), the redis-server's beside it. Every configuration runs
once per round, interleaved, so a loaded machine slows them alike; the tables give the
median over the rounds. ``--smoke``: one tiny round whose every answer is checked (exits 1
on a wrong answer or a missed notification). Bounded: every call has a 30 s timeout, a
fan-out waits at most 10 s for its deliveries.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

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
ERA_LABEL = {"legacy": "2025 session", "2026-07-28": "2026-07-28"}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench-fanout", "version": "1"},
}


@dataclass
class Target:
    """One configuration: where to send requests and whose CPU is its server's."""

    url: str
    servers: list[int]  # the mcpkit processes' pids
    redis: int | None  # redis-server's pid (None on the memory store)


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of the processes (all their threads), seconds."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)
    return total / os.sysconf("SC_CLK_TCK")


def cpu_now(pids: list[int]) -> float:
    """The CPU time of the processes' live threads, seconds, from the scheduler's nanosecond
    counts (``/proc/PID/task/TID/schedstat``): fine enough for a fan-out of some tens of
    milliseconds (utime and stime count 10 ms ticks). Falls back to :func:`cpu_seconds`."""
    try:
        return (
            sum(
                int((task / "schedstat").read_text().split()[0])
                for pid in pids
                for task in Path(f"/proc/{pid}/task").iterdir()
            )
            / 1e9
        )
    except (FileNotFoundError, ValueError):
        return cpu_seconds(pids)


@dataclass
class Sample:
    rate: float  # calls (or tasks) per second, all clients together
    p99_ms: float
    server_us: float  # server CPU per call
    redis_us: float  # redis-server CPU per call
    wrong: int


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


async def one_tasker(url: str, era: str, tasks: int, latencies: list[float]) -> int:
    """Creates ``tasks`` tasks of ``slow`` one after the other, polling each to its end."""
    wrong = 0
    async with Client(url, era=era, timeout=30) as client:  # type: ignore[arg-type]
        for _ in range(tasks):
            start = time.perf_counter()
            handle = await client.start_tool_task("slow", {"seconds": 0.001})
            result = await handle.result(timeout=30)
            latencies.append(time.perf_counter() - start)
            text = result.content[0].text  # type: ignore[union-attr]
            if handle.task_id is None or not text.endswith(" slept 0.001"):
                wrong += 1
    return wrong


async def measure(target: Target, clients: list[Awaitable[int]], latencies: list[float]) -> Sample:
    before = cpu_seconds(target.servers)
    redis_before = cpu_seconds([target.redis]) if target.redis else 0.0
    start = time.perf_counter()
    wrongs = await asyncio.gather(*clients)
    elapsed = time.perf_counter() - start
    server = cpu_seconds(target.servers) - before
    redis = cpu_seconds([target.redis]) - redis_before if target.redis else 0.0
    latencies.sort()
    n = len(latencies)
    p99 = latencies[min(n - 1, int(n * 0.99))] * 1000
    return Sample(n / elapsed, p99, server / n * 1e6, redis / n * 1e6, sum(wrongs))


def modern(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": method,
        "params": {**params, "_meta": MODERN_META},
    }


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
    }
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


class Listener(asyncio.Protocol):
    """One 2026-07-28 ``subscriptions/listen`` stream read straight off its socket (HTTP/1.1,
    chunked or not): every ``data:`` line is parsed and checked, at a small fraction of an
    HTTP client's cost per event, so that 1,000 of them in this process measure the server's
    fan-out rather than the benchmark's own reading."""

    def __init__(self, request: bytes, fan: Fan) -> None:
        self.request = request
        self.fan = fan
        self.head = b""
        self.chunked: bool | None = None  # None: the headers are not read yet
        self.raw = b""  # the body as received (chunk framing included)
        self.sse = b""  # the decoded body not yet split into events
        self.transport: asyncio.Transport | None = None
        self.delivered = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        if self.chunked is None:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            head, data = self.head[:end].lower(), self.head[end + 4 :]
            if not head.startswith(b"http/1.1 200"):
                self.fan.wrong += 1
                return
            self.chunked = b"transfer-encoding: chunked" in head
        if self.chunked:
            self.raw += data
            while True:
                line_end = self.raw.find(b"\r\n")
                if line_end < 0:
                    break
                size = int(self.raw[:line_end].split(b";", 1)[0], 16)
                if len(self.raw) < line_end + 2 + size + 2:
                    break
                self.sse += self.raw[line_end + 2 : line_end + 2 + size]
                self.raw = self.raw[line_end + 2 + size + 2 :]
        else:
            self.sse += data
        self.sse = self.sse.replace(b"\r\n", b"\n")
        *events, self.sse = self.sse.split(b"\n\n")
        for event in events:
            for line in event.split(b"\n"):
                if line.startswith(b"data:"):
                    self.fan.frame(self, orjson.loads(line[5:]))


class Fan:
    """What the listeners of one fan-out saw."""

    def __init__(self, listeners: int) -> None:
        self.listeners = listeners
        self.acked = 0
        self.every_ack = asyncio.Event()
        self.all_delivered = asyncio.Event()
        self.changed_at = 0.0
        self.delays: list[float] = []
        self.wrong = 0

    def frame(self, listener: Listener, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "notifications/subscriptions/acknowledged":
            self.acked += 1
            if self.acked == self.listeners:
                self.every_ack.set()
        elif method == "notifications/tools/list_changed" and not listener.delivered:
            listener.delivered = True
            self.delays.append(time.perf_counter() - self.changed_at)
            if len(self.delays) == self.listeners:
                self.all_delivered.set()
        else:
            self.wrong += 1


async def fanout(target: Target, listeners: int) -> tuple[list[float], int, float]:
    """Opens ``listeners`` 2026-07-28 ``subscriptions/listen`` streams, waits until every one
    is acknowledged, then calls ``changed`` (the tool list changed) once: the time from that
    call to each stream's ``notifications/tools/list_changed``, how many never got it (or
    got anything else), and the server CPU (all replicas, seconds) from the call to the last
    delivery. The streams stay open until every one has it (or 10 s)."""
    url = target.url
    parts = httpx.URL(url)
    host, port = parts.host, parts.port or 80
    fan = Fan(listeners)
    transports: list[asyncio.BaseTransport] = []
    loop = asyncio.get_running_loop()
    try:
        for k in range(1, listeners + 1):
            body = orjson.dumps(
                modern(k, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
            )
            lines = [f"POST {parts.raw_path.decode()} HTTP/1.1", f"Host: {host}:{port}"]
            lines += [f"{k}: {v}" for k, v in modern_headers("subscriptions/listen").items()]
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
            request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
            transport, _ = await loop.create_connection(
                lambda r=request: Listener(r, fan),  # type: ignore[misc]
                host,
                port,
            )
            transports.append(transport)
        await asyncio.wait_for(fan.every_ack.wait(), 60)
        async with httpx.AsyncClient(timeout=httpx.Timeout(60.0)) as http:
            await asyncio.sleep(0.2)  # the acknowledgments' writes are done
            before = cpu_now(target.servers)
            fan.changed_at = time.perf_counter()
            call = modern(0, "tools/call", {"name": "changed", "arguments": {}})
            answer = await http.post(
                url, json=call, headers=modern_headers("tools/call", "changed")
            )
            answer.raise_for_status()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fan.all_delivered.wait(), 10)
            cpu = cpu_now(target.servers) - before
    finally:
        for transport in transports:
            transport.close()
    return sorted(fan.delays), listeners - len(fan.delays) + fan.wrong, cpu


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


async def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="mcpkit-bench-scaleout-") as tmp:
        directory = Path(tmp)
        cluster = start_deployment(directory)
        memory = Replica("m1", free_port(), "", directory / "m1.log", memory=True)
        single = Replica("s1", free_port(), cluster.redis.url, directory / "s1.log")
        calls: dict[tuple[str, str], list[Sample]] = {}
        tasks: dict[tuple[str, str], list[Sample]] = {}
        fan: dict[str, list[tuple[float, float, int, float]]] = {}
        wrong = 0
        try:
            for extra in (memory, single):
                extra.spawn()
            for extra in (memory, single):
                wait_port(extra.port, extra.proc)
            redis_pid = cluster.redis.proc.pid if cluster.redis.proc else None
            targets = {
                CONFIGS[0]: Target(direct_url(memory), [pid(memory)], None),
                CONFIGS[1]: Target(direct_url(single), [pid(single)], redis_pid),
                CONFIGS[2]: Target(cluster.url, [pid(r) for r in cluster.replicas], redis_pid),
            }
            for _ in range(args.rounds):
                for era in () if args.fanout_only else ERAS:
                    for config, target in targets.items():
                        lat: list[float] = []
                        echo = [
                            one_client(target.url, era, args.calls, lat, f"c{k}")
                            for k in range(args.clients)
                        ]
                        sample = await measure(target, echo, lat)
                        wrong += sample.wrong
                        calls.setdefault((config, era), []).append(sample)
                        lat = []
                        work = [
                            one_tasker(target.url, era, args.tasks, lat)
                            for _ in range(args.clients)
                        ]
                        sample = await measure(target, work, lat)
                        wrong += sample.wrong
                        tasks.setdefault((config, era), []).append(sample)
                for config, target in targets.items():
                    delays, missed, cpu = await fanout(target, args.listeners)
                    wrong += missed
                    last = delays[-1] * 1000 if delays else float("nan")
                    per = cpu / args.listeners * 1e6
                    fan.setdefault(config, []).append((median(delays) * 1000, last, missed, per))
        finally:
            memory.stop()
            single.stop()
            stop_deployment(cluster)
    if args.smoke:
        runs = len(calls) + len(tasks) + len(fan)
        print(f"smoke run: checked the answers only ({runs} runs, {wrong} wrong or missed)")
        return 1 if wrong else 0
    print(report(args, calls, tasks, fan))
    return 1 if wrong else 0


def pid(replica: Replica) -> int:
    assert replica.proc is not None
    return replica.proc.pid


def report(
    args: argparse.Namespace,
    calls: dict[tuple[str, str], list[Sample]],
    tasks: dict[tuple[str, str], list[Sample]],
    fan: dict[str, list[tuple[float, float, int, float]]],
) -> str:
    lines = [
        f"Medians of {args.rounds} interleaved rounds; server CPU is the mcpkit processes' "
        "(all replicas), redis the redis-server's, per call or task.",
        f"Load average before: {LOAD_BEFORE}, after: {' '.join(map(str, os.getloadavg()))}.",
        "",
    ]
    if not args.fanout_only:
        lines += tables(args, calls, tasks)
    lines += [
        "",
        f"listen fan-out: {args.listeners} 2026-07-28 listeners, one tool list change "
        "(server CPU from the change to the last delivery, per listener)",
        "",
        "| configuration | median delivery ms | last delivery ms | missed | server µs/listener |",
        "|---|---|---|---|---|",
    ]
    for config in CONFIGS:
        runs = fan[config]
        lines.append(
            f"| {config} | {median([r[0] for r in runs]):.1f} | "
            f"{median([r[1] for r in runs]):.1f} | {sum(r[2] for r in runs)} | "
            f"{median([r[3] for r in runs]):.0f} |"
        )
    return "\n".join(lines)


def tables(
    args: argparse.Namespace,
    calls: dict[tuple[str, str], list[Sample]],
    tasks: dict[tuple[str, str], list[Sample]],
) -> list[str]:
    """The echo and tasks tables."""
    lines = [
        f"echo, {args.clients} clients x {args.calls} calls",
        "",
        "| configuration | era | calls/s | p99 ms | server µs/call | redis µs/call |",
        "|---|---|---|---|---|---|",
    ]

    def row(table: dict[tuple[str, str], list[Sample]], config: str, era: str) -> str:
        s = table[(config, era)]
        cells = [median([x.rate for x in s]), median([x.p99_ms for x in s])]
        cells += [median([x.server_us for x in s]), median([x.redis_us for x in s])]
        return (
            f"| {config} | {ERA_LABEL[era]} | {cells[0]:,.0f} | {cells[1]:.1f} | "
            f"{cells[2]:.0f} | {cells[3]:.0f} |"
        )

    lines += [row(calls, c, e) for e in ERAS for c in CONFIGS]
    for era in ERAS:
        mem = median([x.server_us for x in calls[(CONFIGS[0], era)]])
        red = median([x.server_us for x in calls[(CONFIGS[1], era)]])
        lines.append(
            f"\n{ERA_LABEL[era]}: one replica on Redis spends {red / mem:.2f}x the server CPU "
            "per call of the memory store"
        )
    lines += [
        "",
        f"tasks: {args.clients} clients x {args.tasks} tasks of `slow` (1 ms), each created "
        "and polled to its end",
        "",
        "| configuration | era | tasks/s | p99 ms | server µs/task | redis µs/task |",
        "|---|---|---|---|---|---|",
    ]
    lines += [row(tasks, c, e) for e in ERAS for c in CONFIGS]
    return lines


LOAD_BEFORE = " ".join(map(str, os.getloadavg()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=50, help="tasks per client")
    parser.add_argument("--listeners", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument(
        "--fanout-only", action="store_true", help="run the listen fan-out alone (no echo, tasks)"
    )
    args = parser.parse_args()
    if args.smoke:
        args.calls, args.clients, args.rounds, args.tasks, args.listeners = 5, 2, 1, 2, 20
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
