"""What a proxy costs: the echo tool called directly and through one ``mcpkit proxy``.

Usage: python bench/proxy.py [--calls N] [--rounds R] [--in-flight K] [--smoke]

Four paths, each in both eras of the client (a 2025-11-25 session, 2026-07-28 requests):

- stdio direct: the client spawns the echo server (this file with ``--serve``);
- stdio proxied: the client spawns ``mcpkit proxy "<echo server>"``, which spawns it;
- HTTP direct: the echo server over Streamable HTTP;
- HTTP proxied: ``mcpkit proxy <its URL> --transport http`` in front of it.

Every path is connected once; then rounds interleave the paths (so a loaded machine slows
them alike), each round ``--calls`` ``tools/call`` with ``--in-flight`` at a time. The
table gives the median milliseconds per call (wall clock, ``--in-flight`` overlapping) and
the ratio proxied/direct per round (its median): the proxy's overhead for that transport
and era. ``--smoke``: one tiny round whose every answer is checked; exits non-zero on a
wrong one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shlex
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from mcpkit import Client, Server

HERE = Path(__file__).resolve()
ERAS = ("legacy", "2026-07-28")
#: (transport, era, "direct" or "proxied")
Key = tuple[str, str, str]


def serve(http_port: int | None) -> None:
    """The echo server (stdio, or HTTP on ``http_port``)."""
    app = Server("echo", version="1")

    @app.tool()
    async def echo(text: str) -> str:
        """Echo the text."""
        return text

    if http_port is None:
        app.run()
    else:
        app.run("http", port=http_port)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _echo_command(*extra: str) -> str:
    return shlex.join([sys.executable, str(HERE), "--serve", *extra])


def _proxy_command(target: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "mcpkit", "proxy", target, *extra]


@contextlib.contextmanager
def _http_process(argv: list[str], port: int) -> Iterator[str]:
    """Run an HTTP server process; its URL once it accepts connections."""
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{shlex.join(argv)} did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _round(client: Client, calls: int, in_flight: int, tag: str) -> float:
    """Seconds per call of ``calls`` echo calls, ``in_flight`` at a time; every answer
    checked."""
    queue = list(range(calls))

    async def worker() -> None:
        while queue:
            i = queue.pop()
            text = f"{tag}-{i}"
            result = await client.call_tool("echo", {"text": text})
            got = result.content[0].text if result.content else None  # type: ignore[union-attr]
            if got != text or result.is_error:
                raise SystemExit(f"wrong answer on {tag}: {got!r} for {text!r}")

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(in_flight)))
    return (time.perf_counter() - start) / calls


@contextlib.asynccontextmanager
async def _clients(
    http_url: str, proxy_url: str
) -> AsyncIterator[dict[tuple[str, str, str], Client]]:
    """Every (transport, era, path) connected."""
    async with contextlib.AsyncExitStack() as stack:
        out: dict[Key, Client] = {}
        for era in ERAS:
            targets = {
                ("stdio", "direct"): _echo_command(),
                ("stdio", "proxied"): shlex.join(_proxy_command(_echo_command())),
                ("http", "direct"): http_url,
                ("http", "proxied"): proxy_url,
            }
            for (transport, path), target in targets.items():
                out[(transport, era, path)] = Client(target, era=era, cache=False)  # type: ignore[arg-type]
        for client in out.values():
            stack.push_async_callback(client.close)
        # connected side by side (each spawns its processes); all closed at the end
        await asyncio.gather(*(c.connect() for c in out.values()))
        yield out


async def run(
    calls: int, rounds: int, in_flight: int
) -> list[tuple[str, str, float, float, float]]:
    http_port, proxy_port = _free_port(), _free_port()
    with (
        _http_process(
            [sys.executable, str(HERE), "--serve", "--http", str(http_port)], http_port
        ) as http_url,
        _http_process(
            _proxy_command(http_url, "--transport", "http", "--port", str(proxy_port)), proxy_port
        ) as proxy_url,
    ):
        async with _clients(http_url, proxy_url) as clients:
            times: dict[Key, list[float]] = {key: [] for key in clients}
            for client in clients.values():  # warm up: imports, caches, connections
                await _round(client, min(calls, 20), min(in_flight, 4), "warm")
            for n in range(rounds):
                for key, client in clients.items():
                    times[key].append(await _round(client, calls, in_flight, f"r{n}"))
    rows = []
    for transport in ("stdio", "http"):
        for era in ERAS:
            direct = times[(transport, era, "direct")]
            proxied = times[(transport, era, "proxied")]
            ratios = [p / d for p, d in zip(proxied, direct, strict=True)]
            rows.append(
                (
                    transport,
                    era,
                    statistics.median(direct) * 1000,
                    statistics.median(proxied) * 1000,
                    statistics.median(ratios),
                )
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--http", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.http)
        return
    if args.smoke:
        args.calls, args.rounds, args.in_flight = 10, 1, 2
    if args.calls < 1 or args.rounds < 1 or args.in_flight < 1:
        parser.error("--calls, --rounds and --in-flight must be positive")
    rows = asyncio.run(run(args.calls, args.rounds, args.in_flight))
    print(
        f"echo through one mcpkit proxy vs direct: {args.calls} calls x {args.rounds} rounds, "
        f"{args.in_flight} in flight (median ms per call; ratio: median of the rounds')\n"
    )
    print("| transport | era | direct ms/call | proxied ms/call | proxied/direct |")
    print("|---|---|---|---|---|")
    for transport, era, direct, proxied, ratio in rows:
        print(f"| {transport} | {era} | {direct:.3f} | {proxied:.3f} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
