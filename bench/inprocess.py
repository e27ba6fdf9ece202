"""In-process cost of one stateless ``tools/call`` on the Streamable HTTP app, both eras.

Usage: python bench/inprocess.py [--calls N] [--rounds R] [--profile legacy|modern]

Drives the ASGI app directly (pre-built scope, receive and send; no sockets, no HTTP
parser) with the ``echo`` tool: the 2025-11-25 stateless JSON mode against the 2026-07-28
JSON answer on the same app, in interleaved rounds. Reports CPU µs per call of each era
(process time, steadier than wall time on a shared machine; the best round and the median)
and their ratio. ``--profile`` runs one era under cProfile and prints the top functions by
own time and the number of function calls per request.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import statistics
import time
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


def make_app() -> Any:
    server = Server("bench", version="1.0")

    @server.tool(name="echo")
    async def echo(text: str) -> str:
        """Echo the text."""
        return text

    return server.http_app(stateless=True, json_response=True)


async def run_calls(app: Any, scope: dict[str, Any], body: bytes, n: int) -> float:
    """Seconds for ``n`` sequential calls (each checked for a 200 with a result)."""
    message = {"type": "http.request", "body": body, "more_body": False}
    status: list[int] = []
    last: list[bytes] = []

    async def receive() -> dict[str, Any]:
        return message

    async def send(m: dict[str, Any]) -> None:
        if m["type"] == "http.response.start":
            status.append(m["status"])
        else:
            last.append(m.get("body", b""))

    start = time.process_time()
    for _ in range(n):
        await app(scope, receive, send)
    elapsed = time.process_time() - start
    if any(s != 200 for s in status) or b'"result"' not in last[-1]:
        raise SystemExit(f"unexpected answer: {status[-1]} {last[-1][:200]!r}")
    return elapsed


async def measure(calls: int, rounds: int) -> dict[str, list[float]]:
    app = make_app()
    cases = {"2025 stateless JSON": legacy_case(), "2026 JSON": modern_case()}
    out: dict[str, list[float]] = {k: [] for k in cases}
    for scope, body in cases.values():
        await run_calls(app, scope, body, 200)  # warm-up
    for _ in range(rounds):
        for name, (scope, body) in cases.items():
            gc.collect()
            elapsed = await run_calls(app, scope, body, calls)
            out[name].append(elapsed / calls * 1e6)
    return out


async def profile(era: str, calls: int) -> None:
    app = make_app()
    scope, body = legacy_case() if era == "legacy" else modern_case()
    await run_calls(app, scope, body, 200)
    prof = cProfile.Profile()
    prof.enable()
    await run_calls(app, scope, body, calls)
    prof.disable()
    stats = pstats.Stats(prof)
    total = sum(v[1] for v in stats.stats.values())  # type: ignore[attr-defined]
    print(f"{era}: {total / calls:.1f} function calls per request")
    stats.sort_stats("tottime").print_stats(35)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profile", choices=["legacy", "modern"])
    args = parser.parse_args()
    if args.profile:
        asyncio.run(profile(args.profile, args.calls))
        return
    out = asyncio.run(measure(args.calls, args.rounds))
    print(f"{'era':24} {'best µs':>9} {'median µs':>10}")
    for name, values in out.items():
        print(f"{name:24} {min(values):9.1f} {statistics.median(values):10.1f}")
    legacy, modern = (min(v) for v in out.values())
    print(f"modern / legacy (best): {modern / legacy:.2f}")


if __name__ == "__main__":
    main()
