"""Large results and bursts of notifications arrive whole over Streamable HTTP (real uvicorn).

A connection's buffer bounds what waits for a *slow* reader: a fast reader gets a single
16 MB result or 30,000 notifications in a burst, the handler waiting (backpressure) while
the reader catches up. A reader that stops for longer than ``slow_reader_timeout`` is
dropped, and the client resumes with ``Last-Event-ID`` and misses nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Context, Server
from mcpkit.session import ClientSession
from mcpkit.transports.http import MemoryEventStore, StreamableHTTPClientTransport, running
from mcpkit.transports.http.sse import SSEDecoder

CLIENT_INFO = {"name": "large-output-test", "version": "1"}


def make_server() -> Server:
    app = Server("large-output")

    @app.tool()
    async def blob(size: int) -> str:
        return "x" * size

    @app.tool()
    async def burst(count: int, size: int, ctx: Context) -> str:
        pad = "y" * size
        for i in range(count):
            await ctx.info({"i": i, "pad": pad})
        return f"sent {count}"

    return app


@pytest.fixture
async def base_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    options: dict[str, Any] = getattr(request, "param", {})
    asgi = make_server().http_app(**options)
    async with running(asgi) as base:
        yield base + "/mcp"
    await asgi.aclose()


class Logs(list[int]):
    """The ``i`` of each log notification received; :attr:`complete` set at ``expected``."""

    def __init__(self, expected: int = 0) -> None:
        super().__init__()
        self.expected = expected
        self.complete = asyncio.Event()


async def open_client(url: str, logs: Logs) -> ClientSession:
    client = ClientSession(StreamableHTTPClientTransport(url, sse_read_timeout=30))

    def on_log(params: Any) -> None:
        logs.append(params["data"]["i"])
        if len(logs) >= logs.expected:
            logs.complete.set()

    client.set_notification_handler("notifications/message", on_log)
    await client.start()
    await client.initialize(CLIENT_INFO, {}, timeout=10)
    return client


@pytest.mark.parametrize(
    "base_url", [{}, {"json_response": True}], indirect=True, ids=["sse", "json"]
)
@pytest.mark.parametrize("size", [1024, 1024 * 1024, 4_200_000, 5 * 1024 * 1024, 16 * 1024 * 1024])
async def test_a_large_result_arrives_whole(base_url: str, size: int) -> None:
    client = await open_client(base_url, Logs())
    try:
        started = time.monotonic()
        result = await client.request(
            "tools/call", {"name": "blob", "arguments": {"size": size}}, timeout=60
        )
        assert result["content"][0]["text"] == "x" * size
        assert time.monotonic() - started < 30
    finally:
        await client.close()


@pytest.mark.parametrize(
    "base_url", [{}, {"json_response": True}], indirect=True, ids=["sse", "json"]
)
@pytest.mark.parametrize(
    ("count", "size"),
    [(5_000, 1024), (30_000, 1024), (1, 5 * 1024 * 1024), (20, 1024 * 1024)],
    ids=["5000x1KB", "30000x1KB", "1x5MB", "20x1MB"],
)
async def test_a_burst_of_notifications_arrives_whole(base_url: str, count: int, size: int) -> None:
    logs = Logs(count)
    client = await open_client(base_url, logs)
    try:
        started = time.monotonic()
        result = await client.request(
            "tools/call", {"name": "burst", "arguments": {"count": count, "size": size}}, timeout=60
        )
        assert result["content"][0]["text"] == f"sent {count}"
        # On JSON responses they travel on the GET stream, which may still be delivering.
        await asyncio.wait_for(logs.complete.wait(), 30)
        assert logs == list(range(count))
        assert time.monotonic() - started < 60
    finally:
        await client.close()


@pytest.mark.parametrize(
    "base_url",
    [
        {
            "slow_reader_timeout": 0.5,
            "event_store": MemoryEventStore(),
            "max_stream_buffer": 256 * 1024,
        }
    ],
    indirect=True,
)
async def test_a_reader_that_pauses_is_dropped_then_resumes_everything(base_url: str) -> None:
    """Raw HTTP: read a little of a 20,000-notification burst, stop reading past the slow
    reader timeout (the server drops the stream), then resume with Last-Event-ID."""
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx.AsyncClient(timeout=30) as http:
        init = await http.post(
            base_url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": CLIENT_INFO,
                },
            },
        )
        headers["mcp-session-id"] = init.headers["mcp-session-id"]
        headers["mcp-protocol-version"] = "2025-11-25"
        await http.post(
            base_url,
            headers=headers,
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        )
        count = 20_000
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "burst", "arguments": {"count": count, "size": 1024}},
        }
        decoder = SSEDecoder()
        seen: list[int] = []
        result: Any = None

        def take(chunk: bytes) -> None:
            nonlocal result
            for event in decoder.feed(chunk):
                if not event.data:
                    continue
                msg = orjson.loads(event.data)
                if msg.get("method") == "notifications/message":
                    seen.append(msg["params"]["data"]["i"])
                elif msg.get("id") == 2:
                    result = msg

        async with http.stream("POST", base_url, headers=headers, json=call) as response:
            chunks = response.aiter_raw()
            take(await chunks.__anext__())  # a little, then a pause past the timeout
            await asyncio.sleep(2.0)
            with pytest.raises(httpx.HTTPError):  # the server dropped the stream
                async for chunk in chunks:
                    take(chunk)
        assert result is None and len(seen) < count
        assert decoder.last_event_id is not None
        get_headers = {
            **headers,
            "accept": "text/event-stream",
            "last-event-id": decoder.last_event_id,
        }
        # A new stream, a new decoder: the cut stream may have ended inside an event (where
        # the server's last write was split), and that half must not join the replay's bytes.
        decoder = SSEDecoder()
        async with http.stream("GET", base_url, headers=get_headers) as response:
            assert response.status_code == 200
            async for chunk in response.aiter_raw():
                take(chunk)
                if result is not None:
                    break
    assert seen == list(range(count))
    assert result["result"]["content"][0]["text"] == f"sent {count}"


def test_the_sse_decoder_takes_a_long_line_in_small_chunks() -> None:
    data = b"z" * (3 * 1024 * 1024)
    frame = b"id: s-1\nevent: message\ndata: " + data + b"\n\n"
    decoder = SSEDecoder()
    events = []
    for i in range(0, len(frame), 65536):
        events += decoder.feed(frame[i : i + 65536])
    assert [(e.id, len(e.data)) for e in events] == [("s-1", len(data))]
    small = SSEDecoder(max_line=1024)
    with pytest.raises(ValueError, match="longer than 1024"):
        for i in range(0, len(frame), 512):
            small.feed(frame[i : i + 512])
