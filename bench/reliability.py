"""Reliability side by side: the probes of ``tests/reliability`` run by one harness against
the mcpkit reliability server (``tests/reliability/app.py``) and the same tools written with
the official Python SDK (``tests/reliability/official_app.py``, in the peer venv made by
``scripts/peers.sh``), each with its default limits. Prints one table per area.

    .venv/bin/python bench/reliability.py            # both servers, about 2 minutes
    .venv/bin/python bench/reliability.py --smoke    # one tiny probe per area, mcpkit only

Areas: floods (results of 1 KiB to 16 MiB, bursts of notifications, over stdio and HTTP),
hostile HTTP clients (slowloris heads, huge and many headers, abandoned sessions, SSE
readers that never read: what a well-behaved client meanwhile sees and what memory does),
bad input (garbage, wrong shapes: the answer and whether the session goes on). The soak
has its own runner: ``bench/soak.py --server both``. Every probe is bounded in count and
time; a probe that fails records what happened instead of stopping the run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

import httpx  # noqa: E402
from bench.soak import SERVERS, server_env  # noqa: E402
from tests.reliability import hostile  # noqa: E402
from tests.reliability.procs import fd_count, rss_kb  # noqa: E402

from mcpkit.session import ClientSession  # noqa: E402
from mcpkit.transports import StdioClientTransport  # noqa: E402
from mcpkit.transports.http import StreamableHTTPClientTransport  # noqa: E402

CLIENT_INFO = {"name": "reliability-bench", "version": "1"}
HEADERS = {"content-type": "application/json", "accept": hostile.ACCEPT}
MiB = 1024 * 1024
#: The harness's own limit per incoming message (above the largest result probed).
LIMIT = 32 * MiB


class Served:
    """One reliability server over Streamable HTTP in a subprocess."""

    def __init__(self, proc: asyncio.subprocess.Process, url: str) -> None:
        self.proc, self.url = proc, url

    def rss_mb(self) -> float:
        return rss_kb(self.proc.pid) / 1024

    def fds(self) -> int:
        return fd_count(self.proc.pid)


@contextlib.asynccontextmanager
async def http_server(server: str) -> AsyncIterator[Served]:
    python, module = SERVERS[server]
    proc = await asyncio.create_subprocess_exec(
        python,
        "-m",
        module,
        "http",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=server_env(),
        cwd=str(ROOT),
    )
    assert proc.stderr is not None
    drain: asyncio.Task[None] | None = None
    try:
        async with asyncio.timeout(30):
            while True:
                line = (await proc.stderr.readline()).decode()
                if not line:
                    raise RuntimeError(f"{server}: the HTTP server exited before serving")
                if match := re.search(r"on (http://\S+) \(Streamable", line):
                    break
        drain = asyncio.create_task(_drain(proc.stderr))
        yield Served(proc, match.group(1))
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        if drain is not None:
            drain.cancel()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


async def session(server: str, target: str) -> ClientSession:
    """An initialized low-level session over stdio (``target`` "stdio") or HTTP (a URL)."""
    transport: Any
    if target == "stdio":
        python, module = SERVERS[server]
        transport = StdioClientTransport(
            python, ["-m", module, "stdio"], env=server_env(), cwd=str(ROOT), max_message_size=LIMIT
        )
    else:
        transport = StreamableHTTPClientTransport(
            target, sse_read_timeout=60, max_message_size=LIMIT
        )
    client = ClientSession(transport)
    await client.start()
    await client.initialize(CLIENT_INFO, {}, timeout=30)
    return client


async def legit_call(http: httpx.AsyncClient, url: str) -> float:
    """A whole well-behaved exchange (initialize, initialized, one call, delete), seconds."""
    started = time.monotonic()
    r = await http.post(url, content=hostile.INIT, headers=HEADERS)
    r.raise_for_status()
    headers = {
        **HEADERS,
        "mcp-session-id": r.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-11-25",
    }
    await http.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}},
    }
    r = await http.post(url, json=call, headers=headers)
    if r.status_code != 200 or "hi" not in r.text:
        raise RuntimeError(f"the well-behaved call got {r.status_code}: {r.text[:120]}")
    await http.delete(url, headers=headers)
    return time.monotonic() - started


async def probe(fn: Callable[[], Awaitable[Any]], limit: float) -> Any:
    """``fn()`` bounded by ``limit`` seconds; a failure becomes its description."""
    try:
        async with asyncio.timeout(limit):
            return await fn()
    except TimeoutError:
        return f"no answer in {limit:.0f} s"
    except Exception as exc:  # the table shows what happened
        return f"failed: {type(exc).__name__}: {str(exc)[:60]}"


# -- floods ---------------------------------------------------------------------------------


async def floods(server: str, smoke: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    sizes = [1024] if smoke else [1024, MiB, 16 * MiB]
    burst = 100 if smoke else 10_000
    async with http_server(server) as served:
        for target in ("stdio", served.url):
            kind = "stdio" if target == "stdio" else "HTTP"
            client = await session(server, target)
            try:
                out.update(await flood(client, kind, sizes, burst))
            finally:
                with contextlib.suppress(Exception):
                    await client.close()
    return out


async def flood(client: ClientSession, kind: str, sizes: list[int], burst: int) -> dict[str, Any]:
    """Results of each size, then a burst of log notifications, on one session."""
    out: dict[str, Any] = {}

    async def whole(size: int) -> str:
        t0 = time.monotonic()
        r = await client.request(
            "tools/call", {"name": "blob", "arguments": {"size": size}}, timeout=120
        )
        got = len(r["content"][0]["text"])
        verdict = "whole" if got == size else f"{got} of {size} B"
        return f"{verdict}, {time.monotonic() - t0:.2f} s"

    for size in sizes:
        label = f"{size // MiB} MiB" if size >= MiB else f"{size // 1024} KiB"
        out[f"{kind} result of {label}"] = await probe(lambda size=size: whole(size), 150)
    seen: list[int] = []
    client.set_notification_handler("notifications/message", lambda p: seen.append(p["data"]["i"]))

    async def bursts() -> str:
        t0 = time.monotonic()
        arguments = {"count": burst, "size": 100}
        await client.request("tools/call", {"name": "burst", "arguments": arguments}, timeout=120)
        await asyncio.sleep(0.2)  # the last notifications may trail the result on HTTP
        order = "in order" if seen == sorted(seen) else "out of order"
        return f"{len(seen)}/{burst} {order}, {time.monotonic() - t0:.2f} s"

    out[f"{kind} burst of {burst} logs"] = await probe(bursts, 150)
    return out


# -- hostile HTTP clients -------------------------------------------------------------------


async def hostile_clients(server: str, smoke: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    n = 4 if smoke else 100
    async with http_server(server) as served, httpx.AsyncClient(timeout=30) as http:
        url = served.url
        await legit_call(http, url)  # warm
        out["RSS at start MB"] = round(served.rss_mb(), 1)
        out["well-behaved exchange, idle, ms"] = round(await legit_call(http, url) * 1000, 1)

        # Slowloris: n heads trickling a byte every 0.2 s.
        stop = asyncio.Event()
        conns = [await hostile.slow_head(url, stop) for _ in range(n)]
        await asyncio.sleep(1)
        out[f"well-behaved exchange, {n} slow heads, ms"] = await probe(
            lambda: _ms(legit_call(http, url)), 30
        )
        wait = 1 if smoke else 12
        await asyncio.sleep(wait)
        closed = sum(await asyncio.gather(*(_closed(reader) for reader, _ in conns)))
        out[f"slow heads closed by the server after {wait + 2} s"] = f"{closed}/{n}"
        stop.set()
        for _, writer in conns:
            writer.close()

        # Huge and many headers.
        heads = 2 if smoke else 8

        async def huge() -> str:
            statuses = await asyncio.gather(
                *(hostile.huge_header(url, 16 * MiB) for _ in range(heads))
            )
            return ", ".join(sorted({_status(s) for s in statuses}))

        before = served.rss_mb()
        out[f"{heads} heads of 16 MiB: answer"] = await probe(huge, 60)
        out[f"{heads} heads of 16 MiB: RSS growth MB"] = round(served.rss_mb() - before, 1)
        out["500 headers: answer"] = await probe(
            lambda: _status_of(hostile.many_headers(url, 500)), 30
        )

        # Abandoned sessions: initialized, never deleted.
        count = 10 if smoke else 1000
        before = served.rss_mb()

        async def abandon() -> int:
            done = 0
            for start in range(0, count, 50):
                rs = await asyncio.gather(
                    *(
                        http.post(url, content=hostile.INIT, headers=HEADERS)
                        for _ in range(min(50, count - start))
                    )
                )
                done += sum(1 for r in rs if r.status_code == 200)
            return done

        opened = await probe(abandon, 120)
        if isinstance(opened, int):
            out[f"{count} abandoned sessions: KB each"] = round(
                (served.rss_mb() - before) * 1024 / max(opened, 1), 1
            )
        else:
            out[f"{count} abandoned sessions: KB each"] = opened
        out["well-behaved exchange after, ms"] = await probe(lambda: _ms(legit_call(http, url)), 30)

        # SSE readers that never read: each calls burst (30 x 1 MiB) and never reads.
        readers = 2 if smoke else 5
        before = served.rss_mb()
        socks = await probe(lambda: _never_reading(http, url, readers), 60)
        await asyncio.sleep(3)
        out[f"{readers} never-reading SSE clients: RSS growth MB"] = round(
            served.rss_mb() - before, 1
        )
        out["well-behaved exchange meanwhile, ms"] = await probe(
            lambda: _ms(legit_call(http, url)), 30
        )
        if isinstance(socks, list):
            for sock in socks:
                sock.close()
        await asyncio.sleep(2)
        out["RSS at end MB"] = round(served.rss_mb(), 1)
    return out


async def _closed(reader: asyncio.StreamReader) -> bool:
    """Whether the server has closed this connection (what it sent before is read)."""
    try:
        await hostile.until_closed(reader, 0.5)
    except TimeoutError:
        return False
    return True


async def _never_reading(http: httpx.AsyncClient, url: str, n: int) -> list[Any]:
    from tests.reliability.test_hostile import open_never_reading

    socks = []
    for i in range(n):
        r = await http.post(url, content=hostile.INIT, headers=HEADERS)
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "burst", "arguments": {"count": 30, "size": MiB}},
            }
        ).encode()
        socks.append(await open_never_reading(url, r.headers["mcp-session-id"], body))
    return socks


async def _ms(exchange: Awaitable[float]) -> float:
    return round(await exchange * 1000, 1)


async def _status_of(line: Awaitable[bytes]) -> str:
    return _status(await line)


def _status(line: bytes) -> str:
    parts = line.split()
    return parts[1].decode() if len(parts) > 1 else "connection closed"


# -- bad input ------------------------------------------------------------------------------

BAD_BODIES: list[tuple[str, bytes]] = [
    ("not JSON", b"{nope"),
    ("a JSON number", b"42"),
    ("no method", b'{"jsonrpc":"2.0","id":7}'),
    ("params not an object", b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":3}'),
    ("unknown method", b'{"jsonrpc":"2.0","id":9,"method":"no/such"}'),
    (
        "tool arguments wrong",
        b'{"jsonrpc":"2.0","id":10,"method":"tools/call",'
        b'"params":{"name":"echo","arguments":{"text":5}}}',
    ),
]


async def bad_input(server: str, smoke: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with http_server(server) as served, httpx.AsyncClient(timeout=30) as http:
        url = served.url
        r = await http.post(url, content=hostile.INIT, headers=HEADERS)
        headers = {
            **HEADERS,
            "mcp-session-id": r.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        }
        await http.post(
            url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        for label, body in BAD_BODIES[:2] if smoke else BAD_BODIES:
            r = await http.post(url, content=body, headers=headers)
            code = re.search(rb'"code":\s*(-?\d+)', r.content)
            error = code.group(1).decode() if code else "no JSON-RPC error"
            is_error = b'"isError":true' in r.content.replace(b" ", b"")
            out[f"HTTP {label}"] = f"{r.status_code}, {'isError result' if is_error else error}"
        call = {
            "jsonrpc": "2.0",
            "id": 11,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "still"}},
        }
        r = await http.post(url, json=call, headers=headers)
        out["HTTP session goes on after"] = "yes" if "still" in r.text else f"no ({r.status_code})"
    # stdio: the raw line, then a good call on the same pipe.
    python, module = SERVERS[server]
    proc = await asyncio.create_subprocess_exec(
        python,
        "-m",
        module,
        "stdio",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=server_env(),
        cwd=str(ROOT),
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:

        async def exchange(line: bytes) -> bytes:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(line + b"\n")
            await proc.stdin.drain()
            return await asyncio.wait_for(proc.stdout.readline(), 10)

        await exchange(hostile.INIT)
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        answers = []
        for label, body in BAD_BODIES[:2] if smoke else BAD_BODIES:
            got = await probe(lambda body=body: exchange(body), 12)
            if isinstance(got, bytes):
                code = re.search(rb'"code":\s*(-?\d+)', got)
                is_error = b'"isError":true' in got.replace(b" ", b"")
                got = (
                    "isError result"
                    if is_error
                    else (code.group(1).decode() if code else got[:40].decode())
                )
            answers.append(f"{label}: {got}")
            out[f"stdio {label}"] = got
        good = await probe(lambda: exchange(json.dumps(call).encode()), 12)
        out["stdio session goes on after"] = (
            "yes" if isinstance(good, bytes) and b"still" in good else f"no ({good})"
        )
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return out


AREAS = {"floods": floods, "hostile HTTP clients": hostile_clients, "bad input": bad_input}


def table(area: str, results: dict[str, dict[str, Any]]) -> str:
    names = list(results)
    keys: list[str] = []
    for rows in results.values():
        keys += [k for k in rows if k not in keys]
    lines = [f"### {area}", "", "| | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for key in keys:
        lines.append(f"| {key} | " + " | ".join(str(results[n].get(key, "")) for n in names) + " |")
    return "\n".join(lines)


async def run(names: list[str], smoke: bool) -> dict[str, dict[str, dict[str, Any]]]:
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for area, fn in AREAS.items():
        results[area] = {}
        for name in names:
            results[area][name] = await fn(name, smoke)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", choices=["mcpkit", "official", "both"], default="both")
    parser.add_argument("--smoke", action="store_true", help="one tiny probe per area")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--area", choices=list(AREAS), action="append", help="only these")
    args = parser.parse_args()
    for area in set(AREAS) - set(args.area or AREAS):
        del AREAS[area]
    if args.smoke:
        args.server = "mcpkit" if args.server == "both" else args.server
    names = ["mcpkit", "official"] if args.server == "both" else [args.server]
    if "official" in names and not Path(SERVERS["official"][0]).exists():
        sys.exit("the official SDK is not installed: run `bash scripts/peers.sh` first")
    results = asyncio.run(run(names, args.smoke))
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print("\n\n".join(table(area, rows) for area, rows in results.items()))
    failures = [
        f"{area}/{name}/{key}: {value}"
        for area, rows in results.items()
        for name, values in rows.items()
        if name == "mcpkit"
        for key, value in values.items()
        if isinstance(value, str) and (value.startswith(("failed", "no answer", "no (")))
    ]
    if failures:
        print("\nmcpkit probes that failed:\n  " + "\n  ".join(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
