"""``Context.close_sse_stream()``: a tool ends the HTTP connection of its own SSE stream
mid-call (SSE polling); the client resumes with Last-Event-ID after the ``retry`` delay and
still gets every notification and the result. Off HTTP there is nothing to close."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit import Client, Context, Server
from mcpkit.transports.http import running

RETRY_MS = 200


def make_app(record: dict[str, Any]) -> Server:
    app = Server("polling", version="1.0.0")

    @app.tool()
    async def long_job(ctx: Context) -> str:
        """Reports progress, drops its connection, reports more, then answers."""
        await ctx.progress(1, 3, "before the cut")
        record["closed"] = ctx.close_sse_stream()
        record["closed_at"] = asyncio.get_running_loop().time()
        await asyncio.sleep(0.05)
        await ctx.progress(2, 3, "while disconnected")
        await ctx.progress(3, 3, "done")
        return "finished"

    return app


def request_log(app: Any, log: list[tuple[str, float, dict[bytes, bytes]]]) -> Any:
    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            log.append((scope["method"], asyncio.get_running_loop().time(), dict(scope["headers"])))
        await app(scope, receive, send)

    return asgi


async def test_tool_closes_its_stream_and_the_client_resumes(wire: Any) -> None:
    record: dict[str, Any] = {}
    log: list[tuple[str, float, dict[bytes, bytes]]] = []
    asgi = make_app(record).http_app(sse_retry_ms=RETRY_MS)
    progress: list[tuple[float, str | None]] = []
    async with running(request_log(asgi, log)) as base:
        async with Client(base + "/mcp", tracer=wire(), timeout=10, era="legacy") as client:
            result = await client.call_tool(
                "long_job", on_progress=lambda p, t, m: progress.append((p, m))
            )
    assert record["closed"] is True
    assert not result.is_error
    assert result.content[0].text == "finished"  # type: ignore[union-attr]
    assert progress == [(1, "before the cut"), (2, "while disconnected"), (3, "done")]
    resumes = [t for method, t, h in log if method == "GET" and b"last-event-id" in h]
    assert len(resumes) == 1
    assert resumes[0] - record["closed_at"] >= RETRY_MS / 1000


async def test_nothing_to_close_in_memory(wire: Any) -> None:
    record: dict[str, Any] = {}
    async with Client(make_app(record), tracer=wire()) as client:
        result = await client.call_tool("long_job")
    assert record["closed"] is False
    assert result.content[0].text == "finished"  # type: ignore[union-attr]
