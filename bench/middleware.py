"""What middleware costs: the echo workload with 0, 1 and 3 no-op middleware.

Usage: python bench/middleware.py [--calls N] [--rounds R] [--smoke]

One process, the session engine over the in-memory transport (no sockets, no HTTP): a
client keeps 32 ``tools/call`` of an ``async def echo`` in flight against a server with
no middleware (the bare server), with one no-op middleware function, and with three; in
both eras (a 2025-11-25 session, 2026-07-28 requests with the ``_meta`` envelope).
Variants run side by side in interleaved rounds; the table shows the CPU time per call
(process time: client and server together, so the ratios understate the server's share),
the best round and the median, and the ratio to the bare server of its era (of the best
rounds, and the median of each round's ratio: both resist a loaded machine).
``--smoke``: one tiny round that checks every answer (and that the bare server serves the
features' own handlers); exits non-zero on a wrong one.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from collections.abc import Callable
from typing import Any

from echo_driver import IN_FLIGHT, sample

from mcpkit import Server
from mcpkit.server.middleware import CallNext, MiddlewareContext


async def noop(ctx: MiddlewareContext, call_next: CallNext) -> Any:
    """A middleware that does nothing."""
    return await call_next(ctx)


def make_server(middleware: int) -> Server[Any]:
    app: Server[Any] = Server("bench", middleware=[noop] * middleware)

    @app.tool()
    async def echo(text: str) -> str:
        """Echo the text."""
        return text

    return app


async def run(calls: int, rounds: int, smoke: bool) -> dict[tuple[str, int], list[float]]:
    variants = [(era, n) for era in ("legacy", "modern") for n in (0, 1, 3)]
    servers: dict[int, Server[Any]] = {n: make_server(n) for n in (0, 1, 3)}
    bare = servers[0]
    if bare.handler_table()["tools/call"] != bare.tools.call_tool:
        raise SystemExit("the bare server does not serve the features' own handlers")
    return await sample(servers, variants, calls, rounds, smoke)


def table(samples: dict[tuple[str, int], list[float]]) -> str:
    lines = [
        "| era | middleware | CPU µs/call (best) | CPU µs/call (median) "
        "| ratio to bare (best) | ratio to bare (median of rounds) |",
        "|---|---|---|---|---|---|",
    ]
    for (era, n), values in samples.items():
        bare = samples[(era, 0)]
        per_round = statistics.median(v / b for v, b in zip(values, bare, strict=True))
        label = {0: "none (bare)", 1: "1 no-op", 3: "3 no-op"}[n]
        lines.append(
            f"| {era} | {label} | {min(values):.1f} | {statistics.median(values):.1f} "
            f"| {min(values) / min(bare):.2f}x | {per_round:.2f}x |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None, out: Callable[[str], Any] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
