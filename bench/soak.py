"""Soak: hold N sessions over stdio and Streamable HTTP for a given time with a realistic mix
of calls, and report what was lost, duplicated or mismatched, latencies, and the servers'
memory (RSS slope) and file descriptors.

    .venv/bin/python bench/soak.py --duration 600 --stdio 4 --http 16   # the 10-minute run
    .venv/bin/python bench/soak.py --duration 30 --json                 # the CI run's size

Every server is a subprocess running ``tests/reliability/app.py`` (an mcpkit ``Server``):
one process per stdio session, one process for all HTTP sessions. ``--server official``
runs the same tools written with the official Python SDK (``tests/reliability/official_app.py``
in the peer venv ``.cache/peers/py``, made by ``scripts/peers.sh``) under the same harness,
and ``--server both`` runs one after the other and prints them side by side. Each session runs
``--concurrency`` workers, each looping over a weighted mix: ``echo`` of a unique text,
``steps`` with progress, a call cancelled by its timeout (``hang``), ``resources/read``,
``prompts/get``, a 256 KiB result, ``tools/list``. Every raw response the client session
receives is counted per request id (the session's tracer), so a response that never came
(lost), came twice (duplicated) or carries another request's answer (mismatched) is seen
even where the session would hide it. Exit status 1 on any loss, duplicate, mismatch,
unexpected error or leak.

Leak rule: RSS is sampled once a second; the slope is fitted over the second half of the
run (after warm-up). A server leaks when its RSS grew by more than ``--leak-mb`` (8 MiB)
from the first-half median to the last sample *and* the fitted slope is above
``--leak-slope`` MiB/min (2). Measured on 2 cores: flat runs show +0.2 to +2 MiB and slopes
of -1 to +1.5 MiB/min over 30 s (allocator noise); a leak of 1 KiB per request (about 600
requests/s) shows +17 MiB and 35 MiB/min. File descriptors must end where they started
(+2 for sockets still closing).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from mcpkit.errors import McpError, RequestTimeout  # noqa: E402
from mcpkit.session import ClientSession  # noqa: E402
from mcpkit.transports import StdioClientTransport  # noqa: E402
from mcpkit.transports.http import StreamableHTTPClientTransport  # noqa: E402

CLIENT_INFO = {"name": "soak", "version": "1"}
#: (kind, weight) of the mix each worker draws from.
MIX = [
    ("echo", 40),
    ("progress", 15),
    ("cancel", 8),
    ("resource", 12),
    ("prompt", 12),
    ("large", 5),
    ("list", 8),
]


PEER_PYTHON = ROOT / ".cache" / "peers" / "py" / "bin" / "python"
#: server name -> (interpreter, module) of the reliability server it runs.
SERVERS = {
    "mcpkit": (sys.executable, "tests.reliability.app"),
    "official": (str(PEER_PYTHON), "tests.reliability.official_app"),
}


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return env


def rss_kb(pid: int) -> int:
    match = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(match.group(1)) if match else 0


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class Tally:
    """What one transport's sessions did."""

    requests: int = 0
    ok: int = 0
    cancelled: int = 0
    errors: int = 0
    mismatched: int = 0
    latencies: list[float] = field(default_factory=list)
    first_error: str = ""
    #: request id -> responses received for it (from the tracer), per session.
    seen: list[dict[Any, int]] = field(default_factory=list)
    #: ids of requests that finished (ok or error; not cancelled), per session.
    done: list[set[Any]] = field(default_factory=list)
    cancelled_ids: list[set[Any]] = field(default_factory=list)

    def error(self, text: str) -> None:
        self.errors += 1
        self.first_error = self.first_error or text


class Sampler:
    """RSS and descriptors of the server processes, once a second."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.rss: list[tuple[float, int]] = []  # (seconds, total KiB)
        self.fds_start = sum(fd_count(p) for p in pids)

    async def run(self, stop: asyncio.Event) -> None:
        t0 = time.monotonic()
        while not stop.is_set():
            self.rss.append((time.monotonic() - t0, sum(rss_kb(p) for p in self.pids)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)

    def report(self) -> dict[str, float]:
        samples = self.rss
        half = samples[len(samples) // 2 :] or samples
        if len(half) >= 2:
            xs = [t for t, _ in half]
            ys = [kb / 1024 for _, kb in half]
            mx, my = statistics.fmean(xs), statistics.fmean(ys)
            var = sum((x - mx) ** 2 for x in xs)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var * 60
        else:
            slope = 0.0
        first_half = [kb for _, kb in samples[: max(1, len(samples) // 2)]]
        return {
            "rss_start_mb": samples[0][1] / 1024 if samples else 0.0,
            "rss_mid_mb": statistics.median(first_half) / 1024 if samples else 0.0,
            "rss_end_mb": samples[-1][1] / 1024 if samples else 0.0,
            "rss_slope_mb_min": slope,
        }


def leaking(mem: dict[str, float], leak_mb: float, leak_slope: float) -> bool:
    """The leak rule: grown by more than ``leak_mb`` since the first half *and* still
    rising faster than ``leak_slope`` MiB/min over the second half."""
    grew = mem["rss_end_mb"] - mem["rss_mid_mb"]
    return grew > leak_mb and mem["rss_slope_mb_min"] > leak_slope


async def worker(
    client: ClientSession, tally: Tally, index: int, rng: random.Random, until: float
) -> None:
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    n = 0
    while time.monotonic() < until:
        kind = rng.choices(kinds, weights)[0]
        n += 1
        token = f"s{index}-{n}-{rng.randrange(1 << 30)}"
        tally.requests += 1
        started = time.monotonic()
        try:
            ok = await one(client, kind, token)
        except RequestTimeout:
            if kind == "cancel":
                tally.cancelled += 1
                continue
            tally.error(f"{kind}: timed out")
            continue
        except McpError as exc:
            tally.error(f"{kind}: {exc}")
            continue
        tally.latencies.append(time.monotonic() - started)
        if ok:
            tally.ok += 1
        else:
            tally.mismatched += 1
            tally.first_error = tally.first_error or f"{kind}: mismatched answer"


async def one(client: ClientSession, kind: str, token: str) -> bool:
    """One call of the mix; True when its answer is the one asked for."""
    if kind == "echo":
        r = await client.request(
            "tools/call", {"name": "echo", "arguments": {"text": token}}, timeout=30
        )
        return bool(r["content"][0]["text"] == token)
    if kind == "progress":
        got: list[float] = []
        r = await client.request(
            "tools/call",
            {"name": "steps", "arguments": {"count": 3, "delay": 0.005}},
            timeout=30,
            on_progress=lambda p, total, message: got.append(p),
        )
        return bool(r["content"][0]["text"] == "done 3" and got == [1, 2, 3])
    if kind == "cancel":
        await client.request("tools/call", {"name": "hang", "arguments": {}}, timeout=0.05)
        return False  # never reached: the timeout cancels it
    if kind == "resource":
        r = await client.request("resources/read", {"uri": f"mem://doc/{token}"}, timeout=30)
        return bool(r["contents"][0]["text"] == f"document {token}")
    if kind == "prompt":
        r = await client.request(
            "prompts/get", {"name": "greet", "arguments": {"name": token}}, timeout=30
        )
        return token in json.dumps(r)
    if kind == "large":
        size = 256 * 1024
        r = await client.request(
            "tools/call", {"name": "blob", "arguments": {"size": size}}, timeout=30
        )
        return len(r["content"][0]["text"]) == size
    r = await client.request("tools/list", {}, timeout=30)
    return {t["name"] for t in r["tools"]} >= {"echo", "steps", "blob"}


def tracer_for(seen: dict[Any, int], done: set[Any], cancelled: set[Any]) -> Any:
    def trace(direction: str, msg: Any) -> None:
        items = msg if isinstance(msg, list) else [msg]
        for item in items:
            if not isinstance(item, dict):
                continue
            if direction == "send" and item.get("method") == "notifications/cancelled":
                cancelled.add(item["params"]["requestId"])
            elif direction == "send" and "method" in item and "id" in item:
                seen.setdefault(item["id"], 0)
            elif direction == "recv" and "method" not in item and "id" in item:
                seen[item["id"]] = seen.get(item["id"], 0) + 1
                done.add(item["id"])

    return trace


async def open_session(transport: Any, tally: Tally) -> ClientSession:
    seen: dict[Any, int] = {}
    done: set[Any] = set()
    cancelled: set[Any] = set()
    tally.seen.append(seen)
    tally.done.append(done)
    tally.cancelled_ids.append(cancelled)
    client = ClientSession(transport, tracer=tracer_for(seen, done, cancelled))
    await client.start()
    await client.initialize(CLIENT_INFO, {}, timeout=30)
    return client


async def start_http_server(
    event_store_kb: int, server: str = "mcpkit"
) -> tuple[asyncio.subprocess.Process, str]:
    python, module = SERVERS[server]
    proc = await asyncio.create_subprocess_exec(
        python,
        "-m",
        module,
        "http",
        "--event-store-kb",
        str(event_store_kb),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=server_env(),
        cwd=str(ROOT),
    )
    assert proc.stderr is not None
    async with asyncio.timeout(30):
        while True:
            line = (await proc.stderr.readline()).decode()
            if not line:
                raise RuntimeError("the HTTP server exited before serving")
            match = re.search(r"on (http://\S+) \(Streamable", line)
            if match:
                break
    _DRAINS.add(asyncio.ensure_future(_drain(proc.stderr)))
    return proc, match.group(1)


_DRAINS: set[asyncio.Future[None]] = set()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


async def soak(args: argparse.Namespace, server: str = "mcpkit") -> dict[str, Any]:
    rng = random.Random(args.seed)
    results: dict[str, Any] = {}
    clients: dict[str, list[ClientSession]] = {"stdio": [], "http": []}
    tallies = {"stdio": Tally(), "http": Tally()}
    pids: dict[str, list[int]] = {"stdio": [], "http": []}
    http_proc = None
    fds_before: dict[str, int] = {}
    samplers: dict[str, Sampler] = {}
    try:
        for _ in range(args.stdio):
            python, module = SERVERS[server]
            cmd = [python, "-m", module, "stdio"]
            transport = StdioClientTransport(cmd[0], cmd[1:], env=server_env(), cwd=str(ROOT))
            clients["stdio"].append(await open_session(transport, tallies["stdio"]))
            assert transport.pid is not None
            pids["stdio"].append(transport.pid)
        if args.http:
            http_proc, url = await start_http_server(args.event_store_kb, server)
            pids["http"].append(http_proc.pid)
            fds_before["http"] = fd_count(http_proc.pid)
            for _ in range(args.http):
                transport = StreamableHTTPClientTransport(url, sse_read_timeout=60)
                clients["http"].append(await open_session(transport, tallies["http"]))
        # Warm-up: the mix for --warmup seconds, not counted, so that imports, caches, pools
        # and the event store (up to its byte bound) are filled before RSS is sampled.
        warm = Tally()
        warm_until = time.monotonic() + args.warmup
        await asyncio.gather(
            *(
                worker(client, warm, i, random.Random(i), warm_until)
                for kind_clients in clients.values()
                for i, client in enumerate(kind_clients)
                for _ in range(args.concurrency)
            )
        )
        if warm.errors or warm.mismatched:
            raise RuntimeError(f"warm-up failed: {warm.first_error}")
        samplers = {k: Sampler(p) for k, p in pids.items() if p}
        stop = asyncio.Event()
        sampling = [asyncio.ensure_future(s.run(stop)) for s in samplers.values()]
        started = time.monotonic()
        until = started + args.duration
        work = [
            worker(client, tallies[kind], i * 100 + w, random.Random(rng.random()), until)
            for kind, kind_clients in clients.items()
            for i, client in enumerate(kind_clients)
            for w in range(args.concurrency)
        ]
        await asyncio.gather(*work)
        elapsed = time.monotonic() - started
        await asyncio.sleep(0.5)  # late responses to cancelled calls may still come
        stop.set()
        await asyncio.gather(*sampling)
        for kind, tally in tallies.items():
            if not pids[kind]:
                continue
            lost = dup = late = 0
            for seen, _done, cancelled in zip(
                tally.seen, tally.done, tally.cancelled_ids, strict=True
            ):
                for rid, count in seen.items():
                    if rid in cancelled:
                        late += count  # allowed by the spec (a race), counted apart
                    elif count == 0:
                        lost += 1
                    elif count > 1:
                        dup += count - 1
            lat = sorted(tally.latencies)
            mem = samplers[kind].report()
            grew = mem["rss_end_mb"] - mem["rss_mid_mb"]
            leak = leaking(mem, args.leak_mb, args.leak_slope)
            results[kind] = {
                "sessions": len(clients[kind]),
                "seconds": round(elapsed, 1),
                "requests": tally.requests,
                "ok": tally.ok,
                "cancelled": tally.cancelled,
                "errors": tally.errors,
                "lost": lost,
                "duplicated": dup,
                "mismatched": tally.mismatched,
                "late_after_cancel": late,
                "rps": round(tally.requests / elapsed, 1),
                "p50_ms": round(lat[len(lat) // 2] * 1000, 2) if lat else None,
                "p99_ms": round(lat[int(len(lat) * 0.99)] * 1000, 2) if lat else None,
                **{k: round(v, 2) for k, v in mem.items()},
                "rss_growth_mb": round(grew, 2),
                "fds_start": samplers[kind].fds_start,
                "fds_end": sum(fd_count(p) for p in pids[kind]),
                "leak": leak,
                "first_error": tally.first_error,
            }
        # Every client goes: the HTTP server must be back to the descriptors it had before
        # any session (stdio servers exit with their client).
        for client in clients["http"]:
            await client.close()
        clients["http"] = []
        if "http" in results:
            deadline = time.monotonic() + 5
            while (  # noqa: ASYNC110 (polling /proc)
                fd_count(pids["http"][0]) > fds_before["http"] + 2 and time.monotonic() < deadline
            ):
                await asyncio.sleep(0.1)
            after = fd_count(pids["http"][0])
            results["http"]["fds_after_close"] = after
            results["http"]["fds_before"] = fds_before["http"]
            results["http"]["leak"] = results["http"]["leak"] or after > fds_before["http"] + 2
        if "stdio" in results:
            results["stdio"]["fds_before"] = results["stdio"]["fds_start"]
            results["stdio"]["fds_after_close"] = results["stdio"]["fds_end"]
            results["stdio"]["leak"] = (
                results["stdio"]["leak"]
                or results["stdio"]["fds_end"] > results["stdio"]["fds_start"] + 2
            )
    finally:
        for kind_clients in clients.values():
            for client in kind_clients:
                with contextlib.suppress(Exception):
                    await client.close()
        if http_proc is not None and http_proc.returncode is None:
            http_proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(http_proc.wait(), 10)
            if http_proc.returncode is None:
                http_proc.kill()
    return results


ROWS = [
    ("sessions", "sessions"),
    ("seconds", "seconds"),
    ("requests", "requests"),
    ("rps", "requests/s"),
    ("ok", "answered right"),
    ("cancelled", "cancelled (by timeout)"),
    ("errors", "errors"),
    ("lost", "lost"),
    ("duplicated", "duplicated"),
    ("mismatched", "mismatched"),
    ("late_after_cancel", "late after cancel"),
    ("p50_ms", "p50 ms"),
    ("p99_ms", "p99 ms"),
    ("rss_start_mb", "RSS start MB"),
    ("rss_end_mb", "RSS end MB"),
    ("rss_growth_mb", "RSS growth (2nd half) MB"),
    ("rss_slope_mb_min", "RSS slope MB/min"),
    ("fds_start", "fds start"),
    ("fds_end", "fds end"),
    ("fds_before", "fds before sessions"),
    ("fds_after_close", "fds after close"),
    ("leak", "leak"),
]


def table(results: dict[str, Any]) -> str:
    kinds = list(results)
    lines = ["| | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for key, label in ROWS:
        lines.append(f"| {label} | " + " | ".join(str(results[k][key]) for k in kinds) + " |")
    for k in kinds:
        if results[k]["first_error"]:
            lines.append(f"\n{k}: first error: {results[k]['first_error']}")
    return "\n".join(lines)


def failed(results: dict[str, Any]) -> bool:
    return any(
        r["lost"] or r["duplicated"] or r["mismatched"] or r["errors"] or r["leak"]
        for r in results.values()
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=60, help="seconds (default 60)")
    parser.add_argument("--stdio", type=int, default=2, help="stdio sessions (default 2)")
    parser.add_argument("--http", type=int, default=8, help="HTTP sessions (default 8)")
    parser.add_argument("--concurrency", type=int, default=4, help="workers per session (4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warmup", type=float, default=5, help="seconds not counted (5)")
    parser.add_argument(
        "--event-store-kb",
        type=int,
        default=512,
        help="the HTTP server's event store bound per session, KiB (512)",
    )
    parser.add_argument("--leak-mb", type=float, default=8.0)
    parser.add_argument("--leak-slope", type=float, default=2.0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--server",
        choices=["mcpkit", "official", "both"],
        default="mcpkit",
        help="which implementation serves (both: one after the other, side by side)",
    )
    args = parser.parse_args()
    args.duration = min(args.duration, 3600.0)  # bounded
    names = ["mcpkit", "official"] if args.server == "both" else [args.server]
    if "official" in names and not PEER_PYTHON.exists():
        sys.exit("the official SDK is not installed: run `bash scripts/peers.sh` first")
    results: dict[str, Any] = {}
    for name in names:
        for kind, row in asyncio.run(soak(args, name)).items():
            results[kind if len(names) == 1 else f"{name} {kind}"] = row
    print(json.dumps(results, indent=1) if args.json else table(results))
    sys.exit(1 if failed(results) else 0)


if __name__ == "__main__":
    main()
