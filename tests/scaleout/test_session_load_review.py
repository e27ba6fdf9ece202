"""Loading a 2025 session's view on a replica that has not seen it, from several requests
at once (they share one load): a request cancelled meanwhile (its client went away)
cancels only itself; the others get the view. Two replicas in this process on a
redis-server of its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpkit import Server
from mcpkit.redis import RedisBackend
from tests.scaleout.broadcasts import HEADERS, VERSION
from tests.scaleout.cluster import Redis, free_port
from tests.scaleout.inprocess import replicas_in_process

GUARD = 20.0


def make(backend: RedisBackend) -> Server[Any]:
    app: Server[Any] = Server("load", store=backend)

    @app.tool()
    def echo(text: str) -> str:
        """Echo."""
        return text

    return app


@pytest.fixture
async def pair(server: Redis) -> AsyncIterator[tuple[str, RedisBackend]]:
    async with replicas_in_process(server.url, f"load{free_port()}", make) as (urls, backends):
        yield urls[0], backends[1]


async def test_a_cancelled_load_does_not_cancel_the_requests_sharing_it(
    pair: tuple[str, RedisBackend],
) -> None:
    a, b = pair
    async with httpx.AsyncClient(timeout=30) as http:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": VERSION,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
        first = await http.post(a, json=init, headers=HEADERS)
        sid = first.headers["mcp-session-id"]
    table = b.session_table
    assert table is not None and table.views.get(sid) is None  # B has not seen it
    loads = [asyncio.ensure_future(table.load(sid)) for _ in range(3)]
    await asyncio.sleep(0)  # the first is loading, the others wait for it
    loads[0].cancel()
    outcomes = await asyncio.wait_for(asyncio.gather(*loads[1:], return_exceptions=True), GUARD)
    assert not any(isinstance(o, BaseException) for o in outcomes), outcomes
    assert outcomes[0] is not None and outcomes[0] is outcomes[1]
    assert table.views.get(sid) is outcomes[0]
