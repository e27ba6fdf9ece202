"""Where a stateless HTTP ``tools/call`` spends the server's CPU: the floors under mcpkit.

Usage: python bench/modern_floor.py [--rounds R] [--calls N] [--smoke]

These servers answer the same echo ``tools/call`` from the one benchmark client
(``client.py``: 32 keep-alive connections, every answer checked), interleaved round by
round:

- ``raw asyncio``: ``servers/raw_http.py``, the floor of ``run.py`` (asyncio streams, orjson,
  no HTTP library; 2025 stateless JSON only: it knows no ``resultType``);
- ``bare ASGI``: an ASGI app of a dozen lines that parses the body with orjson and answers
  the echo (with ``resultType`` and ``_meta`` serverInfo on the 2026-07-28 wire), served by
  uvicorn exactly as mcpkit is (``mcpkit.transports.http.serve.run``: uvloop, httptools):
  what the HTTP server costs before any MCP work;
- ``bare granian``: the same app under granian's embedded server as mcpkit runs it with
  ``server="granian"`` (only when the ``granian`` extra is installed): the other ASGI server
  measured;
- ``mcpkit``: ``servers/mcpkit_server.py`` in its stateless JSON mode.

A third wire, 2025-11-25 sessions + SSE, runs the raw loop, the bare app and mcpkit in
their session modes: 32 sessions, each answer one SSE event (the bare app hands out a
session id on ``initialize`` and frames the answer as an event, nothing more).

For each wire it prints calls/s, as a share of the raw loop's (on the 2026-07-28 wire,
which the raw loop does not speak, of its 2025 stateless JSON) and of the bare app's on the
same wire (the targets: 0.75x on the JSON wires, 0.5x on sessions + SSE), server and
client CPU per call (medians over rounds) and mcpkit's own share (mcpkit minus bare
ASGI).
On two cores the client and the server share the machine, so calls/s is bounded by their
CPU together. ``--smoke`` runs one tiny round (its table only shows that every row ran;
exit 1 on any wrong answer or failure). Loopback only; every measurement bounded in calls and time.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import client  # noqa: E402  (the benchmark client, next to this file)

SERVERS = HERE / "servers"


async def _bare_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await _bare(scope, receive, send, sse=False)


async def _bare_sse_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await _bare(scope, receive, send, sse=True)


async def _bare(scope: dict[str, Any], receive: Any, send: Any, *, sse: bool) -> None:
    """The echo with no MCP machinery: JSON answers, or (``sse``) a session id handed out
    by ``initialize`` and every answer as one SSE event, as a 2025 session server sends."""
    import orjson

    if scope["type"] != "http":
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
        return
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    msg = orjson.loads(body)
    if "id" not in msg:  # a notification (the client's notifications/initialized)
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    params = msg.get("params") or {}
    result: dict[str, Any]
    headers: list[tuple[bytes, bytes]] = []
    if msg["method"] == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bare", "version": "1"},
        }
        if sse:
            headers.append((b"mcp-session-id", os.urandom(16).hex().encode()))
    else:
        result = {"content": [{"type": "text", "text": params["arguments"]["text"]}]}
    if "_meta" in params:
        result["resultType"] = "complete"
        result["_meta"] = {"io.modelcontextprotocol/serverInfo": {"name": "bare", "version": "1"}}
    data = orjson.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    if sse:
        data = b"event: message\ndata: " + data + b"\n\n"
        headers.append((b"content-type", b"text/event-stream"))
        headers.append((b"cache-control", b"no-cache"))
    else:
        headers.append((b"content-type", b"application/json"))
    headers.append((b"content-length", b"%d" % len(data)))
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def serve_bare(port: int, server: str = "uvicorn", sse: bool = False) -> None:
    """Run the bare ASGI app as mcpkit runs its own (uvloop; uvicorn with httptools, or
    granian; loopback)."""
    from mcpkit.transports.http.serve import run

    app = _bare_sse_app if sse else _bare_app
    run(app, host="127.0.0.1", port=port, log_level="warning", server=server)


def _argv(name: str, port: int, sessions: bool = False) -> list[str]:
    py = sys.executable
    mode = [] if sessions else ["--stateless", "--json-response"]
    if name == "raw asyncio":
        return [py, str(SERVERS / "raw_http.py"), "--port", str(port), *mode]
    if name.startswith("bare"):
        argv = [py, str(Path(__file__).resolve()), "--serve-bare", str(port)]
        return argv + ["--granian"] * (name == "bare granian") + ["--sse"] * sessions
    return [py, str(SERVERS / "mcpkit_server.py"), "http", "--port", str(port), *mode]


SESSIONS = "2025-11-25 sessions + SSE"
WIRES = {"2025-11-25 stateless JSON": False, "2026-07-28 JSON": True, SESSIONS: False}
#: The share of the bare app's calls/s mcpkit aims for on each wire.
TARGETS = {"2025-11-25 stateless JSON": 0.75, "2026-07-28 JSON": 0.75, SESSIONS: 0.5}
_GRANIAN = ["bare granian"] if importlib.util.find_spec("granian") is not None else []
SERVED = {
    "2025-11-25 stateless JSON": ["raw asyncio", "bare ASGI", *_GRANIAN, "mcpkit"],
    "2026-07-28 JSON": ["bare ASGI", *_GRANIAN, "mcpkit"],
    SESSIONS: ["raw asyncio", "bare ASGI", *_GRANIAN, "mcpkit"],
}


async def _measure(name: str, wire: str, calls: int, seconds: float) -> client.Measure:
    port = client.free_port()
    env = dict(os.environ)
    sessions = wire == SESSIONS
    argv = _argv(name, port, sessions)
    proc = await client.spawn(argv, env, asyncio.subprocess.DEVNULL, stdio=False)
    try:
        await client.wait_for_port(port, proc, 30)
        stateless, modern = not sessions, WIRES[wire]
        return await asyncio.wait_for(
            client.http_calls(port, proc.pid, 32, calls, stateless, seconds, 2, modern=modern),
            timeout=seconds + 60,
        )
    finally:
        await client.stop(proc)


async def main(rounds: int, calls: int, seconds: float, smoke: bool) -> int:
    results: dict[tuple[str, str], list[client.Measure]] = {}
    failed = False
    for r in range(rounds):
        for wire in WIRES:
            names = SERVED[wire]
            names = names[r % len(names) :] + names[: r % len(names)]
            for name in names:
                try:
                    m = await _measure(name, wire, calls, seconds)
                except Exception as exc:
                    print(f"{name} / {wire}: failed: {exc}", file=sys.stderr)
                    failed = True
                    continue
                if m.errors:
                    print(
                        f"{name} / {wire}: {m.errors} wrong answers: {m.first_error}",
                        file=sys.stderr,
                    )
                    failed = True
                results.setdefault((wire, name), []).append(m)
    if smoke:
        print(
            "smoke round (tiny counts: the timings say nothing; every answer checked)"
            + (" FAILURES" if failed else "")
        )
    print(
        "| wire | server | calls/s | / raw asyncio | / bare ASGI | server CPU/call µs "
        "| client CPU/call µs |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    rates = {k: statistics.median(m.rate for m in ms) for k, ms in results.items()}
    servers = {k: statistics.median(m.server_us for m in ms) for k, ms in results.items()}
    fallback = rates.get(("2025-11-25 stateless JSON", "raw asyncio"))
    for (wire, name), ms in results.items():
        rate = rates[(wire, name)]
        clnt = statistics.median(m.client_us for m in ms)
        raw = rates.get((wire, "raw asyncio"), fallback)
        bare = rates.get((wire, "bare ASGI"))
        to_raw = f"{rate / raw:.2f}x" if raw else "-"
        to_bare = f"{rate / bare:.2f}x" if bare else "-"
        print(
            f"| {wire} | {name} | {rate:,.0f} | {to_raw} | {to_bare} | "
            f"{servers[(wire, name)]:.1f} | {clnt:.1f} |"
        )
    print()
    for wire in WIRES:
        own, bare_us = servers.get((wire, "mcpkit")), servers.get((wire, "bare ASGI"))
        mine, bare = rates.get((wire, "mcpkit")), rates.get((wire, "bare ASGI"))
        if own is None or bare_us is None or mine is None or not bare:
            continue
        target = TARGETS[wire]
        print(
            f"{wire}: mcpkit at {mine / bare:.2f}x the bare app's calls/s (target {target}x); "
            f"its own server CPU per call (mcpkit - bare ASGI): {own - bare_us:.1f} µs of "
            f"{own:.1f}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--serve-bare", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--granian", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--sse", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bare:
        serve_bare(args.serve_bare, "granian" if args.granian else "uvicorn", args.sse)
        sys.exit(0)
    if args.smoke:
        args.rounds, args.calls, args.seconds = 1, 200, 1.0
    sys.exit(asyncio.run(main(args.rounds, args.calls, args.seconds, args.smoke)))
