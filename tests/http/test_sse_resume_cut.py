"""A stream cut inside an event: the event-stream rules count an ``id`` only once its event
is complete, so the client resumes from the last whole event and the cut one is replayed;
and the cut stream's half-read bytes never join the new stream's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from mcpkit.errors import McpError
from mcpkit.session import ClientSession
from mcpkit.transports.http import StreamableHTTPClientTransport
from mcpkit.transports.http.sse import SSEDecoder, SSELineTooLong, encode_event

CLIENT_INFO = {"name": "cut-test", "version": "1"}
URL = "http://127.0.0.1:9/mcp"


def log(i: int) -> bytes:
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": {"i": i}},
        }
    )


def test_an_id_counts_once_its_event_is_complete() -> None:
    decoder = SSEDecoder()
    whole = encode_event(log(1), "s-1")
    cut = encode_event(log(2), "s-2")[:-10]  # the id line and half the data
    assert [e.id for e in decoder.feed(whole + cut)] == ["s-1"]
    assert decoder.last_event_id == "s-1"
    decoder.reconnected()
    events = decoder.feed(encode_event(log(2), "s-2"))
    assert [(e.id, orjson.loads(e.data)["params"]["data"]["i"]) for e in events] == [("s-2", 2)]
    assert decoder.last_event_id == "s-2"


def test_an_id_only_event_counts_at_its_blank_line() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"id: p-0\n") == [] and decoder.last_event_id is None
    assert [e.id for e in decoder.feed(b"\n")] == ["p-0"]
    assert decoder.last_event_id == "p-0"
    # An event without an id line keeps the last one (the id buffer persists).
    assert [e.id for e in decoder.feed(b"data: x\n\n")] == [None]
    assert decoder.last_event_id == "p-0"


def test_reconnected_keeps_the_id_and_retry_and_drops_the_half_line() -> None:
    decoder = SSEDecoder()
    decoder.feed(b'retry: 250\nid: s-1\ndata: a\n\nid: s-2\ndata: {"half')
    decoder.reconnected()
    assert (decoder.last_event_id, decoder.retry) == ("s-1", 250)
    assert [e.data for e in decoder.feed(b"data: b\n\n")] == ["b"]
    assert decoder.last_event_id == "s-1"


async def test_the_client_resumes_from_the_last_whole_event() -> None:
    """The server's POST stream is cut inside event s-2; the client must ask for what follows
    s-1 and get every message once, the response last."""
    resumed_with: list[str | None] = []

    async def cut_stream() -> AsyncIterator[bytes]:
        yield encode_event(None, "s-0", retry=10)
        yield encode_event(log(1), "s-1") + encode_event(log(2), "s-2")[:-12]
        raise httpx.ReadError("connection cut")

    async def replay(after: str | None) -> AsyncIterator[bytes]:
        response = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"ok": True}})
        if after == "s-1":
            yield encode_event(log(2), "s-2")
        yield encode_event(response, "s-3")

    def handler(request: httpx.Request) -> httpx.Response:
        sse = {"content-type": "text/event-stream", "mcp-session-id": "abc"}
        if request.method == "GET":
            after = request.headers.get("last-event-id")
            if after is None:
                return httpx.Response(405)
            resumed_with.append(after)
            return httpx.Response(200, headers=sse, content=replay(after))
        body = orjson.loads(request.content)
        if body.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"logging": {}, "tools": {}},
                "serverInfo": {"name": "cut", "version": "1"},
            }
            return httpx.Response(
                200,
                headers={"content-type": "application/json", "mcp-session-id": "abc"},
                json={"jsonrpc": "2.0", "id": body["id"], "result": result},
            )
        if "id" not in body:
            return httpx.Response(202)
        return httpx.Response(200, headers=sse, content=cut_stream())

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    transport = StreamableHTTPClientTransport(URL, httpx_client=http, default_retry_ms=10)
    client = ClientSession(transport)
    seen: list[int] = []
    client.set_notification_handler(
        "notifications/message", lambda params: seen.append(params["data"]["i"])
    )
    try:
        async with asyncio.timeout(10):
            await client.start()
            await client.initialize(CLIENT_INFO, {}, timeout=5)
            result: Any = await client.request("tools/call", {"name": "x"}, timeout=5)
    finally:
        await client.close()
        await http.aclose()
    assert result == {"ok": True}
    assert resumed_with == ["s-1"]
    assert seen == [1, 2]


@pytest.mark.parametrize("cut_at", range(1, 60, 7))
def test_any_cut_inside_an_event_resumes_before_it(cut_at: int) -> None:
    first, second = encode_event(log(1), "s-1"), encode_event(log(2), "s-2")
    cut_at = min(cut_at, len(second) - 1)  # never the whole second event
    decoder = SSEDecoder()
    decoder.feed(first + second[:cut_at])
    assert decoder.last_event_id == "s-1"


def test_a_too_long_line_carries_the_events_before_it() -> None:
    """A chunk completing an event, then starting a line over ``max_line``: the error
    carries the event (``last_event_id`` counts it, so a resumption would not send it
    again)."""
    decoder = SSEDecoder(max_line=1024)
    chunk = encode_event(log(1), "s-1") + b"id: s-2\nevent: message\ndata: " + b"z" * 2000
    with pytest.raises(SSELineTooLong, match="longer than 1024") as raised:
        decoder.feed(chunk)
    assert [orjson.loads(e.data)["params"]["data"]["i"] for e in raised.value.events] == [1]
    assert decoder.last_event_id == "s-1"


async def test_a_message_before_an_oversized_one_is_delivered() -> None:
    """The POST stream's chunk holds a log, then the start of a response over
    ``max_message_size``: the log reaches the client, the request fails as oversized."""

    async def stream() -> AsyncIterator[bytes]:
        response = orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"pad": "x" * 4000}})
        frame = encode_event(response, "s-2")
        yield encode_event(None, "s-0", retry=10) + encode_event(log(1), "s-1") + frame[:2000]
        yield frame[2000:]

    def handler(request: httpx.Request) -> httpx.Response:
        body = orjson.loads(request.content)
        if body.get("method") == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"logging": {}, "tools": {}},
                "serverInfo": {"name": "cut", "version": "1"},
            }
            return httpx.Response(
                200,
                headers={"content-type": "application/json", "mcp-session-id": "abc"},
                json={"jsonrpc": "2.0", "id": body["id"], "result": result},
            )
        if "id" not in body:
            return httpx.Response(202)
        sse = {"content-type": "text/event-stream", "mcp-session-id": "abc"}
        return httpx.Response(200, headers=sse, content=stream())

    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    transport = StreamableHTTPClientTransport(
        URL, httpx_client=http, default_retry_ms=10, max_message_size=1024
    )
    client = ClientSession(transport)
    seen: list[int] = []
    client.set_notification_handler(
        "notifications/message", lambda params: seen.append(params["data"]["i"])
    )
    try:
        async with asyncio.timeout(10):
            await client.start()
            await client.initialize(CLIENT_INFO, {}, timeout=5)
            with pytest.raises(McpError, match="message size limit"):
                await client.request("tools/call", {"name": "x"}, timeout=5)
    finally:
        await client.close()
        await http.aclose()
    assert seen == [1]
