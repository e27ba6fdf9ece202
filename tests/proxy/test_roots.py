"""Roots for a handshake-era upstream from 2026-07-28 clients. Such an upstream may fetch
the client's roots on its own (after ``initialize``, on ``roots/list_changed``) and keep
them; a 2026-07-28 client has roots only while a request of its is in flight. The rule:
once the upstream was seen fetching roots on its own, each call of a 2026-07-28 client
declaring roots tells the upstream connection it leases that the roots changed, and the
upstream's ``roots/list`` becomes an MRTR round of that call, answered before the call goes
upstream; asked between calls, the connection answers the roots of the client it served
last. So every call sees the roots of the client that made it."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mcpkit import Client
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from tests.proxy.conftest import fixture_command
from tests.wire import WireChecker


@contextlib.asynccontextmanager
async def proxy_url() -> AsyncIterator[str]:
    """A proxy of the roots-keeping handshake-era fixture (stdio), served over HTTP."""
    proxy = ProxyServer(fixture_command("legacy", "--keep-roots"))
    async with proxy.running(), running(proxy.http_app()) as base:
        yield base + "/mcp"


def roots(name: str) -> list[dict[str, str]]:
    return [{"uri": f"file:///{name}", "name": name}]


async def kept_roots(target: Any, era: str, name: str, checker: WireChecker) -> Any:
    async with Client(
        target,
        era=era,  # type: ignore[arg-type]
        roots=roots(name),
        tracer=checker,
        timeout=60,
    ) as client:
        result = await client.call_tool("kept_roots")
        if era == "legacy":
            # a handshake-era session's upstream fetches its roots after initialize, in
            # the background: wait until it has them (at most 20 s)
            for _ in range(200):
                if result.structured_content == {"result": [f"file:///{name}"]}:
                    break
                await asyncio.sleep(0.1)
                result = await client.call_tool("kept_roots")
        return result.structured_content


def input_requests(checker: WireChecker) -> list[str]:
    """The methods of the input requests the 2026-07-28 client was asked."""
    return [
        request["method"]
        for m in checker.received()
        if isinstance(m.get("result"), dict) and m["result"].get("resultType") == "input_required"
        for request in m["result"]["inputRequests"].values()
    ]


async def test_each_2026_client_sees_its_own_roots_over_http(
    wire: Callable[..., WireChecker],
) -> None:
    async with proxy_url() as url:
        for name in ("ada", "grace"):
            checker = wire("2026-07-28")
            assert await kept_roots(url, "2026-07-28", name, checker) == {
                "result": [f"file:///{name}"]
            }
            assert "roots/list" in input_requests(checker)
        # a handshake-era client's own upstream session fetched its roots at initialize
        legacy = wire("2025-11-25")
        assert await kept_roots(url, "legacy", "linus", legacy) == {"result": ["file:///linus"]}
        assert legacy.received("roots/list")


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_roots_through_mcpkit_proxy_over_stdio(
    era: str, wire: Callable[..., WireChecker]
) -> None:
    command = [sys.executable, "-m", "mcpkit", "proxy", fixture_command("legacy", "--keep-roots")]
    checker = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    assert await kept_roots(command, era, "stdio-root", checker) == {
        "result": ["file:///stdio-root"]
    }


async def test_a_client_without_roots_is_not_asked(wire: Callable[..., WireChecker]) -> None:
    async with proxy_url() as url:
        checker = wire("2026-07-28")
        async with Client(url, era="2026-07-28", tracer=checker, timeout=60) as client:
            await client.call_tool("kept_roots")
        assert input_requests(checker) == []
