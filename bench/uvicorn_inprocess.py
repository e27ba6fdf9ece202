"""One ``tools/call`` through uvicorn's HTTP protocol, in process: mcpkit or the bare app.

Usage: python bench/uvicorn_inprocess.py [--app mcpkit|bare] [--case legacy|modern|sse]
                                         [--calls N] [--rounds R] [--split]

``bench/inprocess.py`` drives the ASGI app alone; ``modern_floor.py`` measures the real
server over sockets, where the load of the machine moves every figure. This drives the
HTTP server mcpkit runs (uvicorn's httptools protocol as ``mcpkit.transports.http.serve``
configures it, on uvloop) on an in-memory transport: each call is the raw bytes of a
keep-alive POST fed to the protocol, answered in full (every answer checked) before the
next. Under callgrind the instructions per call are those of uvicorn and the app together,
independent of the machine's load:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        python bench/uvicorn_inprocess.py --app bare --case legacy --calls 200 --rounds 1
    # then --calls 700: (total(700) - total(200)) / 500 is one call

With ``--app bare`` (``modern_floor.py``'s bare ASGI app) and ``--app mcpkit`` on the same
case, the ratio of the two is what ``modern_floor.py``'s "/ bare ASGI" column would read if
the server's CPU alone set the pace; ``inprocess.py``'s ``bare-*`` cases give the bare
app's own share, the rest is uvicorn's (with this file's in-memory transport).
``legacy``: 2025-11-25 stateless JSON; ``modern``: 2026-07-28 JSON; ``sse``: an
initialized 2025-11-25 session, each call answered over SSE.

Instructions are not time: the process's CPU per call printed here gives a lower ratio
than the instructions do, and ``--split`` shows where. It times the app's own code apart
from its sends and receives and from the rest of uvicorn (the timing wrapper itself adds
a few microseconds to the app's part): each app's own code costs several times here what
it costs called back to back (``bench/inprocess.py``), since between two requests uvicorn's
work evicts it from the processor's caches, so an app's extra instructions weigh more in
the server than in a tight loop.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inprocess  # (next to this file)
import modern_floor


class MemoryTransport(asyncio.Transport):
    """The connection as the protocol sees it: collects what it writes and wakes the
    caller once a whole response is there (by its Content-Length, or a chunked end)."""

    def __init__(self) -> None:
        super().__init__()
        self.buf = bytearray()
        self.waiter: asyncio.Future[bytes] | None = None
        self.closing = False

    def write(self, data: Any) -> None:
        self.buf += data
        self._check()

    def writelines(self, items: Any) -> None:
        for data in items:
            self.buf += data
        self._check()

    def _check(self) -> None:
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buf[:end]).lower()
        body = len(self.buf) - end - 4
        at = head.find(b"content-length: ")
        if at >= 0:
            done = body >= int(head[at + 16 :].split(b"\r\n", 1)[0])
        else:
            done = self.buf.endswith(b"0\r\n\r\n")
        waiter = self.waiter
        if done and waiter is not None and not waiter.done():
            waiter.set_result(bytes(self.buf))
            self.buf.clear()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(
            name, default
        )

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0


def _raw(headers: list[tuple[bytes, bytes]], body: bytes) -> bytes:
    lines = [b"POST /mcp HTTP/1.1", *(k + b": " + v for k, v in headers)]
    lines.append(b"content-length: %d" % len(body))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


#: ``--split``: nanoseconds spent in the app, and in its sends and receives (uvicorn's).
Split = list[int]


def _timed(app: Any, split: Split) -> Any:
    """``app``, its own time (less its sends and receives) added to ``split[0]`` and the
    time of those to ``split[1]`` (wall time: nothing here waits, and a clock read costs
    no system call)."""
    clock = time.perf_counter_ns

    async def timed(scope: Any, receive: Any, send: Any) -> None:
        async def timed_send(message: Any) -> None:
            t = clock()
            await send(message)
            split[1] += clock() - t

        async def timed_receive() -> Any:
            t = clock()
            message = await receive()
            split[1] += clock() - t
            return message

        t = clock()
        await app(scope, timed_receive, timed_send)
        split[0] += clock() - t

    return timed


async def prepare(app_name: str, case: str, split: Split | None = None) -> Any:
    """A function making one call (awaitable: the whole response, checked); with
    ``split``, the app's time and its sends' and receives' are added up there."""
    import uvicorn
    from uvicorn.server import ServerState

    serve = importlib.import_module("mcpkit.transports.http.serve")
    loop = asyncio.get_running_loop()
    app: Any
    if app_name == "bare":
        app = modern_floor._bare_sse_app if case == "sse" else modern_floor._bare_app
    elif case == "sse":
        app = inprocess.make_server().http_app()
    else:
        app = inprocess.make_app()
    if split is not None:
        app = _timed(app, split)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=8000,
        log_level="warning",
        lifespan="off",
        access_log=False,
        http=serve._http_protocol(10.0),
    )
    config.load()
    protocol = config.http_protocol_class(  # type: ignore[call-arg]
        config=config, server_state=ServerState(), app_state={}, _loop=loop
    )
    transport = MemoryTransport()
    protocol.connection_made(transport)

    async def exchange(request: bytes) -> bytes:
        transport.waiter = loop.create_future()
        protocol.data_received(request)
        return await transport.waiter

    if case == "sse":
        scope, _ = inprocess.legacy_case()
        headers = [h for h in scope["headers"] if h[0] != b"mcp-protocol-version"]
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
        answer = await exchange(_raw(headers, init))
        sid = next(
            line.split(b": ", 1)[1]
            for line in answer.split(b"\r\n")
            if line.lower().startswith(b"mcp-session-id:")
        )
        scope, body = inprocess.legacy_case()
        headers = [*scope["headers"], (b"mcp-session-id", sid)]
        await exchange(_raw(headers, b'{"jsonrpc":"2.0","method":"notifications/initialized"}'))
        request = _raw(headers, body)
    else:
        scope, body = inprocess.legacy_case() if case == "legacy" else inprocess.modern_case()
        request = _raw(scope["headers"], body)

    async def call() -> None:
        answer = await exchange(request)
        if not answer.startswith(b"HTTP/1.1 200") or b'"text":"hello"' not in answer:
            raise SystemExit(f"unexpected answer: {answer[:300]!r}")

    return call


async def measure(
    app_name: str, case: str, calls: int, rounds: int, split: Split | None = None
) -> list[float]:
    call = await prepare(app_name, case, split)
    for _ in range(200):  # warm-up
        await call()
    out = []
    for _ in range(rounds):
        if split is not None:
            split[:] = [0, 0]
        start = time.process_time()
        for _ in range(calls):
            await call()
        out.append((time.process_time() - start) / calls * 1e6)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--app", choices=["mcpkit", "bare"], default="mcpkit")
    parser.add_argument("--case", choices=["legacy", "modern", "sse"], default="legacy")
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--split",
        action="store_true",
        help="also time the app apart from uvicorn (its own code, and its sends and receives)",
    )
    args = parser.parse_args()
    import uvloop

    split: Split | None = [0, 0] if args.split else None
    out = uvloop.run(measure(args.app, args.case, args.calls, args.rounds, split))
    print(
        f"{args.app} {args.case}: {min(out):.1f} µs best, {statistics.median(out):.1f} µs "
        "median of CPU per call (uvicorn + app)"
    )
    if split is not None:  # the last round's
        own, io = (v / args.calls / 1e3 for v in split)
        print(
            f"  last round: {out[-1]:.1f} µs per call = the app's own code {own:.1f} + its "
            f"sends and receives {io:.1f} + the rest of uvicorn {out[-1] - own - io:.1f} "
            "(the clock reads add about 0.1 µs to each part they time)"
        )


if __name__ == "__main__":
    main()
