"""Limits: per-client rate limiting, per-tool concurrency (with its queue), the server's
and an HTTP app's in-flight limit; each refusal is a clear error and the session goes on."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from mcpkit.errors import Overloaded, RateLimited
from mcpkit.server.middleware import (
    OVERLOADED,
    RATE_LIMITED,
    ConcurrencyLimiter,
    InFlightLimit,
    RateLimit,
)
from tests.server.middleware.helpers import IDS, WAYS, connect

BOUND = 10.0  # seconds any wait in these tests may take on a loaded machine


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def until(condition: Any) -> None:
    """Wait (bounded) until ``condition()``: it is checked on every turn of the loop."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND
    while not condition():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0)


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_rate_limit_refuses_with_retry_after_then_refills(transport: str, era: str) -> None:
    clock = Clock()
    app: Server[Any] = Server(
        "rl", middleware=[RateLimit(rate=2, burst=3, methods={"tools/call"}, clock=clock)]
    )

    @app.tool()
    def hello() -> str:
        return "hi"

    async with connect(app, transport, era) as client:
        for _ in range(3):
            await client.call_tool("hello", {})
        with pytest.raises(RateLimited) as refused:  # the client raises the typed error
            await client.call_tool("hello", {})
        assert refused.value.code == RATE_LIMITED == -31429
        assert refused.value.data["retryAfterMs"] == 500 and refused.value.retry_after == 0.5
        assert "Rate limit exceeded: at most 2 requests per second" in refused.value.message
        await client.list_tools(cache="bypass")  # other methods are not counted here
        clock.now += 0.5
        assert (await client.call_tool("hello", {})).content[0].text == "hi"  # type: ignore[union-attr]
        with pytest.raises(McpError):
            await client.call_tool("hello", {})


async def test_each_client_has_its_own_bucket_and_ping_is_exempt() -> None:
    clock = Clock()
    limit = RateLimit(rate=1, burst=3, clock=clock)
    app: Server[Any] = Server("rl", middleware=[limit])

    @app.tool()
    def hello() -> str:
        return "hi"

    call = {"name": "hello", "arguments": {}}
    async with Client(app, era="legacy", timeout=10) as first:
        for _ in range(2):  # initialize took the first token
            await first.request("tools/call", call)
        for _ in range(3):
            await first.ping()
        with pytest.raises(McpError) as refused:
            await first.request("tools/call", call)
        assert refused.value.code == RATE_LIMITED
        async with Client(app, era="legacy", timeout=10) as second:
            await second.request("tools/call", call)  # another connection, another bucket
    assert len(limit._buckets) == 2


async def test_rate_limit_by_a_custom_identity_and_bounded_buckets() -> None:
    clock = Clock()
    limit = RateLimit(rate=1, burst=1, identity=lambda ctx: "everyone", clock=clock, max_clients=1)
    app: Server[Any] = Server("rl", middleware=[limit])

    @app.tool()
    def hello() -> str:
        return "hi"

    async with Client(app, era="2026-07-28", timeout=10) as client:  # discover: the token
        with pytest.raises(McpError):
            await client.call_tool("hello", {})
    with pytest.raises(ValueError):
        RateLimit(rate=0)
    with pytest.raises(ValueError):
        RateLimit(rate=1, burst=0)


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_a_tool_runs_at_most_max_concurrency_then_queues_then_refuses(era: str) -> None:
    app: Server[Any] = Server("conc")
    gate = asyncio.Event()
    entered = 0

    @app.tool(max_concurrency=2, max_queued=1)
    async def slow(n: int) -> int:
        nonlocal entered
        entered += 1
        await gate.wait()
        return n

    @app.tool()
    def quick() -> str:
        return "quick"

    limiter = app.tools.tools["slow"].limiter
    assert isinstance(limiter, ConcurrencyLimiter)
    async with Client(app, era=era, timeout=10) as client:  # type: ignore[arg-type]
        calls = [asyncio.ensure_future(client.call_tool("slow", {"n": i})) for i in range(3)]
        await until(lambda: limiter.running == 2 and limiter.waiting == 1)
        assert entered == 2
        with pytest.raises(Overloaded) as refused:
            await client.call_tool("slow", {"n": 9})
        assert refused.value.code == OVERLOADED == -31503
        assert refused.value.message.startswith("Tool 'slow' is busy: 2 running and 1 waiting")
        assert (await client.call_tool("quick", {})).content[0].text == "quick"  # type: ignore[union-attr]
        gate.set()
        results = await asyncio.gather(*calls)
        assert sorted(r.structured_content["result"] for r in results) == [0, 1, 2]  # type: ignore[index]
    assert limiter.running == 0 and limiter.waiting == 0


async def test_a_cancelled_waiter_leaves_the_queue() -> None:
    app: Server[Any] = Server("conc")
    gate = asyncio.Event()

    @app.tool(max_concurrency=1)
    async def slow() -> str:
        await gate.wait()
        return "done"

    limiter = app.tools.tools["slow"].limiter
    assert limiter is not None and limiter.max_queued == 4  # 4 times the limit by default
    async with Client(app, era="legacy", timeout=10) as client:
        running = asyncio.ensure_future(client.call_tool("slow", {}))
        await until(lambda: limiter.running == 1)
        waiting = asyncio.ensure_future(client.call_tool("slow", {}))
        await until(lambda: limiter.waiting == 1)
        waiting.cancel()  # the client sends notifications/cancelled
        await until(lambda: limiter.waiting == 0)
        gate.set()
        assert (await running).content[0].text == "done"  # type: ignore[union-attr]
        assert (await client.call_tool("slow", {})).content[0].text == "done"  # type: ignore[union-attr]
    assert limiter.running == 0


async def test_the_servers_default_tool_concurrency_and_a_tools_own() -> None:
    app: Server[Any] = Server("conc", max_tool_concurrency=1, max_tool_queued=0)
    gate = asyncio.Event()

    @app.tool()
    async def one() -> str:
        await gate.wait()
        return "one"

    @app.tool(max_concurrency=3)
    async def three() -> str:
        await gate.wait()
        return "three"

    assert app.tools.tools["one"].limiter.limit == 1  # type: ignore[union-attr]
    assert app.tools.tools["three"].limiter.limit == 3  # type: ignore[union-attr]
    async with Client(app, era="2026-07-28", timeout=10) as client:
        first = asyncio.ensure_future(client.call_tool("one", {}))
        await until(lambda: app.tools.tools["one"].limiter.running == 1)  # type: ignore[union-attr]
        with pytest.raises(McpError) as refused:
            await client.call_tool("one", {})
        assert refused.value.code == OVERLOADED
        gate.set()
        assert (await first).content[0].text == "one"  # type: ignore[union-attr]
    plain: Server[Any] = Server("plain")
    with pytest.raises(ValueError, match="max_queued needs max_concurrency"):
        plain.tool("bad", max_queued=3)(lambda: None)
    with pytest.raises(ValueError, match="at least 1"):
        plain.tool("zero", max_concurrency=0)(lambda: None)
    assert not plain.tools.tools  # refused registrations leave nothing behind


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_http_app_max_in_flight_limits_that_apps_requests(era: str) -> None:
    app: Server[Any] = Server("inflight")
    gate = asyncio.Event()
    entered = asyncio.Event()

    @app.tool()
    async def slow() -> str:
        entered.set()
        await gate.wait()
        return "slow"

    @app.tool()
    def quick() -> str:
        return "quick"

    options = {"http_options": {"max_in_flight": 1, "max_queued": 0}}
    async with connect(app, "http", era, **options) as client:
        first = asyncio.ensure_future(client.call_tool("slow", {}))
        await asyncio.wait_for(entered.wait(), BOUND)
        with pytest.raises(McpError) as refused:
            await client.call_tool("quick", {})
        assert refused.value.code == OVERLOADED
        assert refused.value.message.startswith("The server is busy: 1 running and 0 waiting")
        async with Client(app, era=era, timeout=10) as local:  # type: ignore[arg-type]
            # the limit is the HTTP app's: an in-memory client of the same server is not held
            assert (await local.call_tool("quick", {})).content[0].text == "quick"  # type: ignore[union-attr]
        gate.set()
        assert (await first).content[0].text == "slow"  # type: ignore[union-attr]
        assert (await client.call_tool("quick", {})).content[0].text == "quick"  # type: ignore[union-attr]


async def test_in_flight_limit_middleware_counts_every_session() -> None:
    gate = asyncio.Event()
    limit = InFlightLimit(1, max_queued=1)
    app: Server[Any] = Server("inflight", middleware=[limit])

    @app.tool()
    async def slow() -> str:
        await gate.wait()
        return "slow"

    async with (
        Client(app, era="legacy", timeout=10) as a,
        Client(app, era="legacy", timeout=10) as b,
        Client(app, era="2026-07-28", timeout=10) as c,
    ):
        first = asyncio.ensure_future(a.call_tool("slow", {}))
        await until(lambda: limit.limiter.running == 1)
        second = asyncio.ensure_future(b.call_tool("slow", {}))
        await until(lambda: limit.limiter.waiting == 1)
        with pytest.raises(McpError) as refused:
            await c.call_tool("slow", {})
        assert refused.value.code == OVERLOADED
        gate.set()
        assert [r.content[0].text for r in await asyncio.gather(first, second)] == ["slow"] * 2  # type: ignore[union-attr]


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_tools_run_as_tasks_keep_their_concurrency_limit(era: str) -> None:
    app: Server[Any] = Server("conc")
    gate = asyncio.Event()

    @app.tool(task_support="optional", max_concurrency=1)
    async def report(n: int) -> int:
        await gate.wait()
        return n

    limiter = app.tools.tools["report"].limiter
    assert limiter is not None
    async with Client(app, era=era, timeout=10) as client:  # type: ignore[arg-type]
        first = await client.start_tool_task("report", {"n": 1})
        second = await client.start_tool_task("report", {"n": 2})
        await until(lambda: limiter.running == 1 and limiter.waiting == 1)
        gate.set()
        results = [await first.result(), await second.result()]
        assert [r.structured_content["result"] for r in results] == [1, 2]  # type: ignore[index]
    assert limiter.running == 0


async def test_a_listen_stream_does_not_hold_an_in_flight_slot() -> None:
    app: Server[Any] = Server("listen")

    @app.tool()
    def quick() -> str:
        return "quick"

    options = {"http_options": {"max_in_flight": 1, "max_queued": 0}}
    async with connect(app, "http", "2026-07-28", **options) as client:
        async with client.listen(tools=True):
            for _ in range(3):
                assert (await client.call_tool("quick", {})).content[0].text == "quick"  # type: ignore[union-attr]
