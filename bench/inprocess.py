"""In-process cost of one ``tools/call`` on mcpkit's server paths.

Usage: python bench/inprocess.py [--calls N] [--rounds R] [--case NAME ...] [--turn]
       python bench/inprocess.py --profile legacy|modern|sse|stdio32 [--calls N]
       python bench/inprocess.py --opcodes legacy|modern|bare-modern|...   (bytecodes per call)

Drives the server directly with the ``echo`` tool, no client library in between:

- ``legacy``: the Streamable HTTP app in its 2025-11-25 stateless JSON mode, and
  ``modern``: the same app answering a 2026-07-28 request (pre-built scope, receive and
  send; no sockets, no HTTP parser);
- ``sse``: the app with sessions and SSE answers (2025-11-25): one session initialized
  first, then every call a POST with its ``Mcp-Session-Id`` answered by an SSE stream;
- ``initialize``: one idle 2025-11-25 session opened per call (``initialize`` and
  ``notifications/initialized``, the sessions kept), as ``bench/run.py``'s ``sessions-*``
  rows open them;
- ``stdio32``: a stdio server session on real pipes, fed 32 requests per chunk (framing,
  engine, ``tools/call``, encoding and the batched write);
- ``legacy-sync``, ``modern-sync``, ``stdio32-sync``: the same with ``echo`` a ``def``
  tool (run in the server's worker threads); with its ``async def`` case beside it, the
  ratio of the two is printed;
- ``bare-legacy``, ``bare-modern``, ``bare-sse``: ``modern_floor.py``'s bare ASGI app (no
  MCP) answering the same call with the same scope, receive and send: the least an app
  costs on each wire (``bench/uvicorn_inprocess.py`` adds uvicorn's own work to both).

By default ``legacy`` and ``modern`` run in interleaved rounds (``--case`` picks others).
Reports CPU µs per call of each case (process time, steadier than wall time on a shared
machine; the best round and the median) and, with both eras, their ratio. ``--profile``
runs one case under cProfile and prints the top functions by own time and the number of
function calls per request; ``--opcodes`` counts the bytecodes one call executes, per
function (exact, and independent of the machine's load). Every answer is checked (a 200
with a result, or on stdio every response of each chunk); ``--smoke`` runs each case a few
times and exits.

The HTTP cases call the app back to back, so the event loop never turns between calls;
``--turn`` lets it run once after each call, as a real server's does (timers a request
armed and cancelled are then dropped from the loop's heap as they would be; without it they
pile up, and their cost with them).

Instructions per call, stable on a loaded machine (callgrind; one case at a time):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        python bench/inprocess.py --case sse --calls 500 --rounds 1   # then --calls 2000

(the difference of the two totals / 1500 is one call).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import gc
import os
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson

from mcpkit import Server

_ACCEPT = b"application/json, text/event-stream"


def _scope(headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "query_string": b"",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"accept", _ACCEPT),
            (b"content-type", b"application/json"),
            *headers,
        ],
    }


def legacy_case() -> tuple[dict[str, Any], bytes]:
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hello"}},
        }
    )
    return _scope([(b"mcp-protocol-version", b"2025-11-25")]), body


def modern_case() -> tuple[dict[str, Any], bytes]:
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "echo",
                "arguments": {"text": "hello"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                },
            },
        }
    )
    scope = _scope(
        [
            (b"mcp-protocol-version", b"2026-07-28"),
            (b"mcp-method", b"tools/call"),
            (b"mcp-name", b"echo"),
        ]
    )
    return scope, body


#: Let the event loop run once after every HTTP call (``--turn``), as it does between the
#: requests a real server serves: what the calls scheduled (timers) is then run or dropped
#: as it would be, instead of piling up in a loop that never turns.
_TURN = [False]


def make_server(sync: bool = False) -> Server:
    """The server with ``echo`` as an ``async def`` tool, or with ``sync`` a ``def`` one
    (run in the server's worker threads)."""
    server = Server("bench", version="1.0")

    if sync:

        @server.tool(name="echo")
        def sync_echo(text: str) -> str:
            """Echo the text."""
            return text

    else:

        @server.tool(name="echo")
        async def echo(text: str) -> str:
            """Echo the text."""
            return text

    return server


def make_app(sync: bool = False) -> Any:
    return make_server(sync).http_app(stateless=True, json_response=True)


async def run_calls(app: Any, scope: dict[str, Any], body: bytes, n: int) -> float:
    """Seconds for ``n`` sequential calls (each checked for a 200 with a result)."""
    message = {"type": "http.request", "body": body, "more_body": False}
    # Only the last answer is kept (and the count of bad statuses): nothing grows with the
    # number of calls, so the cost per call is the same for any number of them.
    status = [0, 0]  # bad statuses, last status
    last = [b""]

    async def receive() -> dict[str, Any]:
        return message

    async def send(m: dict[str, Any]) -> None:
        if m["type"] == "http.response.start":
            code = status[1] = m["status"]
            if code != 200:
                status[0] += 1
        else:
            last[0] = m.get("body", b"")

    turn = _TURN[0]
    start = time.process_time()
    for _ in range(n):
        await app(scope, receive, send)
        if turn:
            await asyncio.sleep(0)
    elapsed = time.process_time() - start
    if status[0] or b'"result"' not in last[0]:
        raise SystemExit(f"unexpected answer: {status[1]} {last[0][:200]!r}")
    return elapsed


Runner = Callable[[int], Awaitable[float]]


async def http_case(era: str, sync: bool = False) -> Runner:
    """A stateless ``tools/call`` of one era on the stateless JSON app."""
    app = make_app(sync)
    scope, body = legacy_case() if era == "legacy" else modern_case()

    async def run(n: int) -> float:
        return await run_calls(app, scope, body, n)

    return run


async def bare_case(era: str) -> Runner:
    """The same call answered by ``modern_floor.py``'s bare ASGI app (no MCP: orjson and a
    dozen lines), with the scope, receive and send of the mcpkit case of that wire: what an
    app costs at the least, to compare mcpkit's instructions with (``sse``: the bare app
    that answers over SSE, a session id on the request)."""
    import modern_floor

    app: Any = modern_floor._bare_sse_app if era == "sse" else modern_floor._bare_app
    scope, body = modern_case() if era == "modern" else legacy_case()
    if era == "sse":
        scope["headers"].append((b"mcp-session-id", b"0123456789abcdef"))

    async def run(n: int) -> float:
        return await run_calls(app, scope, body, n)

    return run


async def sse_case() -> Runner:
    """``tools/call`` on an initialized 2025-11-25 session, answered by an SSE stream."""
    app = make_server().http_app()
    init = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
    )
    sent: list[dict[str, Any]] = []

    async def post(scope: dict[str, Any], body: bytes) -> None:
        message = {"type": "http.request", "body": body, "more_body": False}

        async def receive() -> dict[str, Any]:
            return message

        async def send(m: dict[str, Any]) -> None:
            sent.append(m)

        await app(scope, receive, send)

    await post(_scope([]), init)
    sid = dict(sent[0]["headers"]).get(b"mcp-session-id")
    if sid is None:
        raise SystemExit(f"initialize failed: {sent!r}")
    headers = [(b"mcp-session-id", sid), (b"mcp-protocol-version", b"2025-11-25")]
    scope = _scope(headers)
    await post(scope, orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hello"}},
    }
    body = orjson.dumps(call)
    message = {"type": "http.request", "body": body, "more_body": False}
    counts = [0, 0, 0]  # answers carrying the echoed text, bad statuses, last status
    last = [b""]

    async def receive() -> dict[str, Any]:
        return message

    async def send(m: dict[str, Any]) -> None:
        if m["type"] == "http.response.start":
            code = counts[2] = m["status"]
            if code != 200:
                counts[1] += 1
        else:
            data = last[0] = m.get("body", b"")
            counts[0] += data.count(b'"text":"hello"')

    async def run(n: int) -> float:
        counts[:] = [0, 0, 0]
        turn = _TURN[0]
        start = time.process_time()
        for _ in range(n):
            await app(scope, receive, send)
            if turn:
                await asyncio.sleep(0)
        elapsed = time.process_time() - start
        if counts[1] or counts[0] != n:
            raise SystemExit(f"unexpected answer: {counts[2]} {last[0][-300:]!r}")
        return elapsed

    return run


async def initialize_case() -> Runner:
    """One idle 2025-11-25 session opened per call, as ``bench/run.py``'s ``sessions-*``
    rows open them: an ``initialize`` POST (its answer must carry an ``Mcp-Session-Id``)
    and the ``notifications/initialized`` POST of that session (a 202). The sessions are
    kept open, so the cost of holding many is in the measure too."""
    # One load generator opens them all from one address: no per-client cap.
    app = make_server().http_app(max_sessions_per_client=None, max_sessions=1 << 30)
    init_scope = _scope([])
    init = {
        "type": "http.request",
        "body": orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "1"},
                },
            }
        ),
        "more_body": False,
    }
    initialized = {
        "type": "http.request",
        "body": b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        "more_body": False,
    }
    base_headers = init_scope["headers"] + [(b"mcp-protocol-version", b"2025-11-25")]
    state: dict[str, Any] = {"sid": None, "status": 0, "body": b"", "bad": 0}

    async def receive_init() -> dict[str, Any]:
        return init

    async def receive_initialized() -> dict[str, Any]:
        return initialized

    async def send(m: dict[str, Any]) -> None:
        if m["type"] == "http.response.start":
            state["status"] = m["status"]
            for name, value in m["headers"]:
                if name == b"mcp-session-id":
                    state["sid"] = value
        else:
            state["body"] = m.get("body", b"")

    async def run(n: int) -> float:
        turn = _TURN[0]
        start = time.process_time()
        for _ in range(n):
            state["sid"] = None
            await app(init_scope, receive_init, send)
            sid = state["sid"]
            if sid is None or state["status"] != 200 or b'"result"' not in state["body"]:
                state["bad"] += 1
                continue
            scope = dict(init_scope, headers=[*base_headers, (b"mcp-session-id", sid)])
            await app(scope, receive_initialized, send)
            if state["status"] != 202:
                state["bad"] += 1
            if turn:
                await asyncio.sleep(0)
        elapsed = time.process_time() - start
        if state["bad"]:
            raise SystemExit(f"unexpected answer: {state['status']} {state['body'][:300]!r}")
        return elapsed

    return run


class _Collect(asyncio.Protocol):
    """Reads the server's stdout: counts whole lines, wakes the waiter at a target."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.lines = 0
        self.want = 0
        self.waiter: asyncio.Future[None] | None = None

    def data_received(self, data: bytes) -> None:
        self.buf += data
        self.lines += data.count(b"\n")
        if self.waiter is not None and self.lines >= self.want and not self.waiter.done():
            self.waiter.set_result(None)


async def stdio_case(chunk: int = 32, sync: bool = False) -> Runner:
    """A stdio server session on pipes, fed ``chunk`` pipelined requests at a time."""
    from mcpkit.transports.stdio import StdioServerTransport

    loop = asyncio.get_running_loop()
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    transport = StdioServerTransport(
        stdin=os.fdopen(in_r, "rb", buffering=0), stdout=os.fdopen(out_w, "wb", buffering=0)
    )
    session = make_server(sync).session(transport)
    await session.start()
    collect = _Collect()
    await loop.connect_read_pipe(lambda: collect, os.fdopen(out_r, "rb", buffering=0))
    writer = os.fdopen(in_w, "wb", buffering=0)

    async def exchange(data: bytes, lines: int) -> bytes:
        collect.want = collect.lines + lines
        collect.waiter = loop.create_future()
        writer.write(data)
        await collect.waiter
        out = bytes(collect.buf)
        collect.buf.clear()
        return out

    init = {
        "jsonrpc": "2.0",
        "id": "init",
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
    await exchange(orjson.dumps(init) + b"\n", 1)
    writer.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    calls = b"".join(
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hello"}},
            }
        )
        + b"\n"
        for i in range(chunk)
    )

    async def run(n: int) -> float:
        rounds = max(1, n // chunk)
        start = time.process_time()
        for _ in range(rounds):
            out = await exchange(calls, chunk)
            if out.count(b'"text":"hello"') != chunk:
                raise SystemExit(f"unexpected answer: {out[-300:]!r}")
        return (time.process_time() - start) * n / (rounds * chunk)

    return run


CASES: dict[str, tuple[str, Callable[[], Awaitable[Runner]]]] = {
    "legacy": ("2025 stateless JSON", lambda: http_case("legacy")),
    "modern": ("2026 JSON", lambda: http_case("modern")),
    "sse": ("2025 session SSE", sse_case),
    "stdio32": ("stdio 32 per chunk", stdio_case),
    "initialize": ("2025 session opened", initialize_case),
    # the same with a ``def`` echo tool
    "legacy-sync": ("2025 stateless JSON, def", lambda: http_case("legacy", sync=True)),
    "modern-sync": ("2026 JSON, def", lambda: http_case("modern", sync=True)),
    "stdio32-sync": ("stdio 32 per chunk, def", lambda: stdio_case(sync=True)),
    # the bare ASGI app of modern_floor.py (no MCP) on each wire, to compare with
    "bare-legacy": ("bare app, 2025 JSON", lambda: bare_case("legacy")),
    "bare-modern": ("bare app, 2026 JSON", lambda: bare_case("modern")),
    "bare-sse": ("bare app, SSE", lambda: bare_case("sse")),
}


async def measure(calls: int, rounds: int, cases: list[str]) -> dict[str, list[float]]:
    runners = {CASES[c][0]: await CASES[c][1]() for c in cases}
    out: dict[str, list[float]] = {k: [] for k in runners}
    for run in runners.values():
        await run(200)  # warm-up
    for _ in range(rounds):
        for name, run in runners.items():
            gc.collect()
            elapsed = await run(calls)
            out[name].append(elapsed / calls * 1e6)
    return out


async def profile(case: str, calls: int) -> None:
    run = await CASES[case][1]()
    await run(200)
    prof = cProfile.Profile()
    prof.enable()
    await run(calls)
    prof.disable()
    stats = pstats.Stats(prof)
    total = sum(v[1] for v in stats.stats.values())  # type: ignore[attr-defined]
    print(f"{case}: {total / calls:.1f} function calls per request")
    stats.sort_stats("tottime").print_stats(35)


_HERE = str(Path(__file__).resolve())


async def opcodes(case: str, calls: int) -> None:
    """The bytecodes one call of ``case`` executes, per function (``sys.settrace`` with
    opcode events: slow, but exact and independent of the machine's load)."""
    run = await CASES[case][1]()
    await run(50)
    counts: collections.Counter[tuple[str, str]] = collections.Counter()

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            counts[(code.co_name, code.co_filename.rpartition("/src/")[2])] += 1
        return tracer

    here = _HERE
    sys.settrace(tracer)
    try:
        await run(calls)
    finally:
        sys.settrace(None)
    # The harness's own frames (this file's receive, send and loop) are left out.
    own = {k: v for k, v in counts.items() if k[1] != here}
    print(f"{case}: {sum(own.values()) / calls:.0f} bytecodes per call")
    print(f"{'bytecodes':>9}  function")
    for (name, where), n in sorted(own.items(), key=lambda kv: -kv[1]):
        if n >= calls:  # at least one per call
            print(f"{n / calls:9.1f}  {name} ({where.rpartition('/')[2]})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--case", action="append", choices=list(CASES))
    parser.add_argument("--profile", choices=list(CASES))
    parser.add_argument(
        "--opcodes", choices=list(CASES), help="the bytecodes one call executes, per function"
    )
    parser.add_argument("--smoke", action="store_true", help="every case, a few calls")
    parser.add_argument("--turn", action="store_true", help="a loop turn after each HTTP call")
    parser.add_argument(
        "--loop", choices=["asyncio", "uvloop"], default="asyncio", help="the event loop"
    )
    args = parser.parse_args()
    if args.loop == "uvloop":  # the loop mcpkit serves on when uvloop is installed
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    _TURN[0] = args.turn
    if args.profile:
        asyncio.run(profile(args.profile, args.calls))
        return
    if args.opcodes:
        asyncio.run(opcodes(args.opcodes, min(args.calls, 200)))
        return
    cases = args.case or ["legacy", "modern"]
    if args.smoke:
        cases, args.calls, args.rounds = list(CASES), 64, 1
    out = asyncio.run(measure(args.calls, args.rounds, cases))
    print(f"{'case':24} {'best µs':>9} {'median µs':>10}")
    for name, values in out.items():
        print(f"{name:24} {min(values):9.1f} {statistics.median(values):10.1f}")
    if "legacy" in cases and "modern" in cases:
        legacy, modern = (min(out[CASES[c][0]]) for c in ("legacy", "modern"))
        print(f"modern / legacy (best): {modern / legacy:.2f}")
    for case in cases:
        if case.endswith("-sync") and case[:-5] in cases:
            sync_us, async_us = (min(out[CASES[c][0]]) for c in (case, case[:-5]))
            print(f"{CASES[case][0]} / async def (best): {sync_us / async_us:.2f}")


if __name__ == "__main__":
    main()
