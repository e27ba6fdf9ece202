"""The in-process echo driver of the per-call benchmarks (bench/middleware.py,
bench/everyday.py): a server's ``echo`` tool called ``IN_FLIGHT`` at a time over the memory
transport in either era, timed in process CPU seconds, every answer checked."""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from mcpkit import Server, versions
from mcpkit.session import ClientSession
from mcpkit.transports import MemoryTransport

IN_FLIGHT = 32
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}


async def drive(app: Server[Any], era: str, calls: int) -> tuple[float, list[Any]]:
    """CPU seconds for ``calls`` echo calls (``IN_FLIGHT`` at a time), and the results."""
    a, b = MemoryTransport.pair()
    server = app.session(b)
    client = ClientSession(a)
    await server.start()
    await client.start()
    params: dict[str, Any] = {"name": "echo", "arguments": {"text": "hello"}}
    if era == "legacy":
        await client.initialize({"name": "bench", "version": "1"})
    else:  # no handshake on the modern wire
        client.lifecycle.assume(versions.V2026_07_28, {})
        params["_meta"] = MODERN_META
    results: list[Any] = []
    gc.collect()
    gc.disable()
    started = time.process_time()
    left = calls
    while left > 0:
        batch = min(IN_FLIGHT, left)
        results.extend(
            await asyncio.gather(*(client.request("tools/call", params) for _ in range(batch)))
        )
        left -= batch
    spent = time.process_time() - started
    gc.enable()
    await client.close()
    await server.close()
    return spent, results


def check(results: list[Any], calls: int) -> None:
    if len(results) != calls:
        raise SystemExit(f"expected {calls} results, got {len(results)}")
    for result in results:
        if result["content"][0]["text"] != "hello" or result.get("isError"):
            raise SystemExit(f"wrong answer: {result!r}")


async def sample(
    servers: dict[Any, Server[Any]],
    variants: list[tuple[str, Any]],
    calls: int,
    rounds: int,
    smoke: bool,
) -> dict[tuple[str, Any], list[float]]:
    """CPU µs per call of each ``(era, variant)`` over ``rounds`` interleaved rounds, every
    variant warmed up (and checked) once first; a smoke run checks every round's answers."""
    for era, v in variants:
        _, results = await drive(servers[v], era, min(calls, 64))
        check(results, min(calls, 64))
    samples: dict[tuple[str, Any], list[float]] = {key: [] for key in variants}
    for _ in range(rounds):
        for era, v in variants:
            spent, results = await drive(servers[v], era, calls)
            if smoke:
                check(results, calls)
            samples[(era, v)].append(spent / calls * 1e6)
    return samples
