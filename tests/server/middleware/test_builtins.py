"""The built-in middleware: request logging, timing, response-size limits and the result
cache for read-only tools and resources."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from mcpkit import Client, McpError, Server
from mcpkit.errors import ResponseTooLarge
from mcpkit.server.middleware import (
    RESPONSE_TOO_LARGE,
    RequestLogging,
    ResponseSizeLimit,
    ResultCache,
    Timing,
)
from tests.server.middleware.helpers import IDS, WAYS, connect


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def counting_server(**options: Any) -> tuple[Server[Any], dict[str, int]]:
    app: Server[Any] = Server("builtins", **options)
    counts = {"lookup": 0, "write": 0, "read": 0, "failing": 0}

    @app.tool(annotations={"readOnlyHint": True})
    def lookup(key: str) -> str:
        counts["lookup"] += 1
        return f"{key}={counts['lookup']}"

    @app.tool(annotations={"readOnlyHint": False})
    def write(key: str) -> str:
        counts["write"] += 1
        return f"wrote {key}"

    @app.tool(annotations={"readOnlyHint": True})
    def failing() -> str:
        counts["failing"] += 1
        raise ValueError("no")

    @app.resource("data://config")
    def config() -> str:
        counts["read"] += 1
        return f"config v{counts['read']}"

    @app.tool()
    def big(size: int) -> str:
        return "x" * size

    return app, counts


async def test_request_logging_logs_outcome_duration_and_client(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _ = counting_server(middleware=[RequestLogging(include_params=True)])
    with caplog.at_level(logging.DEBUG, logger="mcpkit.requests"):
        async with Client(app, era="legacy", timeout=10) as client:
            await client.call_tool("lookup", {"key": "a"})
            await client.call_tool("failing", {})
            with pytest.raises(McpError):
                await client.call_tool("nope", {})
    records = [r for r in caplog.records if r.name == "mcpkit.requests"]
    calls = [r for r in records if getattr(r, "mcp_method", None) == "tools/call"]
    assert [(r.levelno, r.mcp_name, r.mcp_outcome) for r in calls] == [  # type: ignore[attr-defined]
        (logging.INFO, "lookup", "ok"),
        (logging.INFO, "failing", "tool error"),
        (logging.WARNING, "nope", "error -32602 Unknown tool: nope"),
    ]
    first = calls[0]
    assert first.mcp_client.startswith("connection:") and first.mcp_era == "legacy"  # type: ignore[attr-defined]
    assert first.mcp_duration_ms >= 0  # type: ignore[attr-defined]
    assert "tools/call lookup: ok in " in first.getMessage()
    assert "params={'name': 'lookup', 'arguments': {'key': 'a'}" in first.getMessage()
    assert not any(getattr(r, "mcp_method", "").startswith("notifications/") for r in records)


async def test_request_logging_of_notifications_and_a_failing_handler(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _ = counting_server(middleware=[RequestLogging(notifications=True)])

    @app.request_handler("custom/fail")
    async def fail(params: Any, rctx: Any) -> Any:
        raise RuntimeError("boom")

    with caplog.at_level(logging.DEBUG, logger="mcpkit.requests"):
        async with Client(app, era="legacy", timeout=10) as client:
            with pytest.raises(McpError) as failed:
                await client.request("custom/fail", {})
            assert failed.value.code == -32603
    outcomes = {
        r.mcp_method: (r.levelno, r.mcp_outcome) for r in caplog.records if hasattr(r, "mcp_method")
    }  # type: ignore[attr-defined]
    assert outcomes["notifications/initialized"] == (logging.DEBUG, "notified")
    assert outcomes["custom/fail"] == (logging.ERROR, "failed (RuntimeError: boom)")


async def test_timing_keeps_per_method_stats_and_logs_slow_requests(
    caplog: pytest.LogCaptureFixture,
) -> None:
    timing = Timing(slow_ms=0)
    app, _ = counting_server(middleware=[timing])
    with caplog.at_level(logging.WARNING, logger="mcpkit.requests"):
        async with Client(app, era="2026-07-28", timeout=10) as client:
            for _ in range(3):
                await client.call_tool("lookup", {"key": "a"})
            await client.call_tool("failing", {})
    stats = timing.stats["tools/call lookup"]
    assert stats.count == 3 and stats.errors == 0
    assert stats.max_seconds >= stats.total_seconds / 3 > 0
    assert stats.mean_ms == pytest.approx(stats.total_seconds * 1000 / 3)
    assert timing.stats["tools/call failing"].errors == 1
    assert timing.stats["server/discover"].count >= 1
    assert any("Slow request: tools/call lookup took" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_response_size_limit(transport: str, era: str) -> None:
    app, _ = counting_server(middleware=[ResponseSizeLimit(2000)])

    @app.resource("data://large")
    def large() -> str:
        return "y" * 5000

    async with connect(app, transport, era) as client:
        small = await client.call_tool("big", {"size": 100})
        assert small.content[0].text == "x" * 100  # type: ignore[union-attr]
        over = await client.call_tool("big", {"size": 4000})
        assert over.is_error
        assert over.content[0].text.startswith("The result of tool 'big' is 3.9 KiB")  # type: ignore[union-attr]
        with pytest.raises(ResponseTooLarge) as refused:
            await client.read_resource("data://large", cache="bypass")
        assert refused.value.code == RESPONSE_TOO_LARGE == -31413
        assert refused.value.data["limit"] == 2000 and refused.value.data["size"] > 5000
        assert (await client.call_tool("big", {"size": 10})).content[0].text == "x" * 10  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        ResponseSizeLimit(0)


@pytest.mark.parametrize(("transport", "era"), WAYS, ids=IDS)
async def test_result_cache_serves_read_only_tools_and_resources(transport: str, era: str) -> None:
    clock = Clock()
    cache = ResultCache(ttl=5, clock=clock)
    app, counts = counting_server(middleware=[cache])
    async with connect(app, transport, era) as client:
        first = await client.call_tool("lookup", {"key": "a"})
        again = await client.call_tool("lookup", {"key": "a"})
        assert first.content[0].text == again.content[0].text == "a=1"  # type: ignore[union-attr]
        assert (await client.call_tool("lookup", {"key": "b"})).content[0].text == "b=2"  # type: ignore[union-attr]
        for _ in range(2):  # not read-only: always runs
            await client.call_tool("write", {"key": "a"})
        for _ in range(2):  # errors are not kept
            assert (await client.call_tool("failing", {})).is_error
        for _ in range(2):
            read = await client.read_resource("data://config", cache="bypass")
            assert read.contents[0].text == "config v1"  # type: ignore[union-attr]
        clock.now += 5  # expired
        assert (await client.call_tool("lookup", {"key": "a"})).content[0].text == "a=3"  # type: ignore[union-attr]
        cache.invalidate("data://config")
        read = await client.read_resource("data://config", cache="bypass")
        assert read.contents[0].text == "config v2"  # type: ignore[union-attr]
    assert counts == {"lookup": 3, "write": 2, "read": 2, "failing": 2}
    assert cache.hits == 2


async def test_result_cache_is_per_client_unless_shared() -> None:
    for shared, expected in ((False, ["k=1", "k=2"]), (True, ["k=1", "k=1"])):
        app, _ = counting_server(middleware=[ResultCache(ttl=60, shared=shared)])
        texts = []
        for _ in range(2):
            async with Client(app, era="legacy", timeout=10) as client:
                texts.append((await client.call_tool("lookup", {"key": "k"})).content[0].text)  # type: ignore[union-attr]
        assert texts == expected


async def test_result_cache_bounds_and_clear() -> None:
    cache = ResultCache(ttl=60, max_entries=2, max_entry_bytes=200)
    app, counts = counting_server(middleware=[cache])

    @app.tool(annotations={"readOnlyHint": True})
    def huge() -> str:
        counts["huge"] = counts.get("huge", 0) + 1
        return "z" * 500

    async with Client(app, era="legacy", timeout=10) as client:
        for key in ("a", "b", "c", "a"):  # "a" was evicted by "c"
            await client.call_tool("lookup", {"key": key})
        for _ in range(2):
            await client.call_tool("huge", {})
        cache.invalidate()
        await client.call_tool("lookup", {"key": "c"})
    assert counts["lookup"] == 5 and counts["huge"] == 2
    with pytest.raises(ValueError):
        ResultCache(ttl=0)
