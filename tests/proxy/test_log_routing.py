"""Log messages of overlapping requests on one upstream connection: each reaches the
request it belongs to. A 2026-07-28 upstream over Streamable HTTP sends every request's
logs on that request's own response stream; the proxy's shared connection relates them to
the downstream request it forwards, and a client's per-call ``on_log`` gets its call's
own. Two calls whose logs interleave (a barrier in the tool makes them), through a proxy
served over HTTP to clients of both eras, every message checked against the schema."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mcpkit import Client, Context, Server, versions
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from tests.wire import WireChecker

ERAS = ["legacy", "2026-07-28"]


def chatty_server(era: str = "modern") -> Server[Any]:
    """A server (2026-07-28, or ``era="legacy"`` handshake era only) whose ``chat`` tool
    logs three messages, in step with another call of it (so the two calls' logs
    interleave)."""
    app: Server[Any] = Server(
        "chatty", modern_versions=versions.MODERN_SUPPORTED if era == "modern" else ()
    )
    barrier = asyncio.Barrier(2)

    @app.tool()
    async def chat(tag: str, ctx: Context) -> str:
        for i in range(3):
            await ctx.info(f"{tag}-{i}")
            async with asyncio.timeout(30):
                await barrier.wait()
        return f"done {tag}"

    return app


@contextlib.asynccontextmanager
async def served(app: Server[Any]) -> AsyncIterator[str]:
    async with app.running(), running(app.http_app()) as base:
        yield base + "/mcp"


class Logs:
    def __init__(self) -> None:
        self.data: list[Any] = []

    def __call__(self, params: Any) -> None:
        self.data.append(params.data)


async def two_overlapping_calls(client: Client) -> tuple[Logs, Logs]:
    first, second = Logs(), Logs()
    results = await asyncio.gather(
        client.call_tool("chat", {"tag": "a"}, on_log=first),
        client.call_tool("chat", {"tag": "b"}, on_log=second),
    )
    assert [r.content[0].text for r in results] == ["done a", "done b"]  # type: ignore[union-attr]
    return first, second


@pytest.mark.parametrize("era", ERAS)
async def test_each_call_gets_its_own_logs_through_the_proxy(
    era: str, wire: Callable[..., WireChecker]
) -> None:
    upstream_wire = wire("2026-07-28")
    downstream_wire = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    everything = Logs()
    async with served(chatty_server()) as upstream_url:
        proxy = ProxyServer(
            upstream_url, era="2026-07-28", client_options={"tracer": upstream_wire}
        )
        async with served(proxy) as url:
            assert proxy.upstream_modern
            async with Client(
                url,
                era=era,  # type: ignore[arg-type]
                on_log=everything,
                tracer=downstream_wire,
                timeout=60,
            ) as client:
                first, second = await two_overlapping_calls(client)
    assert first.data == ["a-0", "a-1", "a-2"]
    assert second.data == ["b-0", "b-1", "b-2"]
    assert everything.data == []  # every message had its call
    # the logs did interleave upstream, on the one shared connection
    logged = [m["params"]["data"] for m in upstream_wire.received("notifications/message")]
    assert sorted(logged) == sorted(first.data + second.data)
    assert logged != first.data + second.data and logged != second.data + first.data
    # downstream, each came on its own request's stream (a 2026-07-28 request asked for
    # them with its logLevel)
    calls = downstream_wire.sent("tools/call")
    assert len(calls) == 2
    if era != "legacy":
        assert all(
            c["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "debug" for c in calls
        )


@pytest.mark.parametrize("era", ERAS)
async def test_a_handshake_upstream_over_http_too(
    era: str, wire: Callable[..., WireChecker]
) -> None:
    """A handshake-era upstream: a handshake-era client's own upstream session carries
    its overlapping calls (each call's logs on its POST stream); a 2026-07-28 client's
    calls lease a connection each."""
    downstream_wire = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    everything = Logs()
    async with served(chatty_server("legacy")) as upstream_url:
        proxy = ProxyServer(upstream_url)
        async with served(proxy) as url:
            async with Client(
                url,
                era=era,  # type: ignore[arg-type]
                on_log=everything,
                tracer=downstream_wire,
                timeout=60,
            ) as client:
                assert not proxy.upstream_modern
                first, second = await two_overlapping_calls(client)
                if era == "legacy":
                    assert len(proxy.session_upstreams) == 1  # one upstream session for both
    assert first.data == ["a-0", "a-1", "a-2"]
    assert second.data == ["b-0", "b-1", "b-2"]
    assert everything.data == []


@pytest.mark.parametrize("era", ERAS)
async def test_a_clients_per_call_logs_over_http(
    era: str, wire: Callable[..., WireChecker]
) -> None:
    checker = wire("2026-07-28" if era != "legacy" else "2025-11-25")
    async with served(chatty_server()) as url:
        async with Client(url, era=era, tracer=checker, timeout=60) as client:  # type: ignore[arg-type]
            first, second = await two_overlapping_calls(client)
    assert first.data == ["a-0", "a-1", "a-2"]
    assert second.data == ["b-0", "b-1", "b-2"]


async def test_one_channel_for_all_logs_goes_to_the_clients_on_log() -> None:
    """In memory (and over stdio) nothing says which call a message belongs to: the
    client's ``on_log`` gets them all, the per-call hooks nothing."""
    everything = Logs()
    async with Client(chatty_server(), on_log=everything, timeout=60) as client:
        first, second = await two_overlapping_calls(client)
    assert first.data == [] and second.data == []
    assert sorted(everything.data) == ["a-0", "a-1", "a-2", "b-0", "b-1", "b-2"]
