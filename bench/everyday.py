"""What the everyday options cost per call: dependencies, a timeout, a tag filter.

Usage: python bench/everyday.py [--calls N] [--rounds R] [--smoke]

One process, the session engine over the in-memory transport (no sockets, no HTTP): a
client keeps 32 ``tools/call`` in flight, in both eras (a 2025-11-25 session, 2026-07-28
requests with the ``_meta`` envelope), against these variants of an ``async def echo``:

- ``plain``: the bare tool on a bare server (the reference);
- ``two deps``: the same tool with two async ``Depends`` parameters (target: at most 1.3x);
- ``timeout``: the same tool with ``timeout=30`` (a timer around each call);
- ``tag filter``: the plain tool on a server with ``exclude_tags`` hiding another tool, and
  one tool disabled (target: 1.00x, hidden components are kept out of the registry).

Variants run side by side in interleaved rounds; the table shows the CPU time per call
(process time: client and server together, so the ratios understate the server's share),
the best round and the median, and the ratio to ``plain`` of its era (of the best rounds,
and the median of each round's ratio). ``--smoke``: one tiny round that checks every answer
and that the plain and filtered servers serve the registry's own ``tools/call``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from collections.abc import Callable
from typing import Any

from echo_driver import IN_FLIGHT, sample

from mcpkit import Depends, Server

VARIANTS = ("plain", "two deps", "timeout", "tag filter")


async def prefix() -> str:
    return ""


async def suffix() -> str:
    return ""


def make_server(variant: str) -> Server[Any]:
    app: Server[Any] = Server("bench", exclude_tags={"admin"} if variant == "tag filter" else None)
    if variant == "two deps":

        @app.tool()
        async def echo(text: str, a: str = Depends(prefix), b: str = Depends(suffix)) -> str:
            """Echo the text."""
            return a + text + b

    elif variant == "timeout":

        @app.tool(timeout=30)
        async def echo(text: str) -> str:
            """Echo the text."""
            return text

    else:

        @app.tool()
        async def echo(text: str) -> str:
            """Echo the text."""
            return text

    if variant == "tag filter":

        @app.tool(tags={"admin"})
        async def drop(name: str) -> str:
            return name

        @app.tool()
        async def other() -> str:
            return "other"

        app.disable_tool("other")
    return app


async def run(calls: int, rounds: int, smoke: bool) -> dict[tuple[str, str], list[float]]:
    servers = {v: make_server(v) for v in VARIANTS}
    for name in ("plain", "tag filter"):
        app = servers[name]
        if app.handler_table()["tools/call"] != app.tools.call_tool:
            raise SystemExit(f"the {name} server does not serve the registry's tools/call")
    variants = [(era, v) for era in ("legacy", "modern") for v in VARIANTS]
    return await sample(servers, variants, calls, rounds, smoke)


def table(samples: dict[tuple[str, str], list[float]]) -> str:
    lines = [
        "| era | variant | CPU µs/call (best) | CPU µs/call (median) "
        "| ratio to plain (best) | ratio to plain (median of rounds) |",
        "|---|---|---|---|---|---|",
    ]
    for (era, v), values in samples.items():
        plain = samples[(era, "plain")]
        per_round = statistics.median(x / p for x, p in zip(values, plain, strict=True))
        lines.append(
            f"| {era} | {v} | {min(values):.1f} | {statistics.median(values):.1f} "
            f"| {min(values) / min(plain):.2f}x | {per_round:.2f}x |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per variant and round")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds")
    parser.add_argument("--smoke", action="store_true", help="one tiny round, answers checked")
    args = parser.parse_args(argv)
    calls, rounds = (64, 1) if args.smoke else (args.calls, args.rounds)
    samples = asyncio.run(run(calls, rounds, args.smoke))
    out(f"echo tools/call, {IN_FLIGHT} in flight, {calls} calls x {rounds} rounds per variant")
    out(table(samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
