"""Floods and sizes: results and notifications from 1 KB to 16 MB and bursts of tens of
thousands of messages over stdio, SSE and JSON responses all arrive, in order, within a
bound; a message over a limit gets its error at once and the session goes on."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest

from mcpkit.errors import McpError
from mcpkit.jsonrpc import INVALID_REQUEST
from tests.reliability.clients import call, open_session
from tests.reliability.procs import SyncHttpServer

MB = 1024 * 1024


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, str]]:
    sse, json = SyncHttpServer(), SyncHttpServer("--json")
    try:
        yield {"stdio": "stdio", "sse": sse.url, "json": json.url}
    finally:
        sse.close()
        json.close()


TRANSPORTS = ["stdio", "sse", "json"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_results_from_1kb_to_16mb_arrive_whole(
    servers: dict[str, str], transport: str
) -> None:
    client, _ = await open_session(servers[transport], max_message_size=32 * MB)
    try:
        for size in (1024, 64 * 1024, MB, 5 * MB, 16 * MB):
            started = time.monotonic()
            result = await call(client, "blob", size=size)
            text = result["content"][0]["text"]
            assert len(text) == size and text == "x" * size
            assert time.monotonic() - started < 30, size
    finally:
        await client.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("count", "size"),
    [(20_000, 100), (2_000, 1024), (20, MB), (1, 5 * MB)],
    ids=["20000x100B", "2000x1KB", "20x1MB", "1x5MB"],
)
async def test_a_burst_of_notifications_arrives_whole_and_in_order(
    servers: dict[str, str], transport: str, count: int, size: int
) -> None:
    client, logs = await open_session(servers[transport], max_message_size=32 * MB)
    try:
        logs.expect(count)
        started = time.monotonic()
        result = await call(client, "burst", count=count, size=size)
        assert result["content"][0]["text"] == f"sent {count}"
        # With JSON responses the notifications travel on the GET stream, maybe still going.
        await asyncio.wait_for(logs.complete.wait(), 30)
        assert logs == list(range(count))
        assert time.monotonic() - started < 45
    finally:
        await client.close()


async def test_many_calls_in_flight_at_once_all_answer(servers: dict[str, str]) -> None:
    for transport in TRANSPORTS:
        client, _ = await open_session(servers[transport])
        try:
            n = 1_000 if transport == "stdio" else 150
            results = await asyncio.gather(*(call(client, "echo", text=f"m{i}") for i in range(n)))
            assert [r["content"][0]["text"] for r in results] == [f"m{i}" for i in range(n)]
        finally:
            await client.close()


async def test_stdio_a_request_over_the_limit_gets_its_error_and_the_session_goes_on() -> None:
    client, _ = await open_session("stdio", max_message_size=32 * MB)
    try:
        started = time.monotonic()
        with pytest.raises(McpError) as caught:
            await call(client, "echo", timeout=20, text="a" * (5 * MB))
        assert caught.value.code == INVALID_REQUEST and "size limit" in str(caught.value)
        assert time.monotonic() - started < 10
        assert (await call(client, "echo", text="after"))["content"][0]["text"] == "after"
    finally:
        await client.close()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_response_over_the_clients_limit_fails_its_call_at_once(
    servers: dict[str, str], transport: str
) -> None:
    client, _ = await open_session(servers[transport], max_message_size=MB)
    try:
        started = time.monotonic()
        with pytest.raises(McpError) as caught:
            await call(client, "blob", timeout=20, size=2 * MB)
        assert time.monotonic() - started < 10
        assert caught.value.code == INVALID_REQUEST, caught.value
        assert (await call(client, "echo", text="after"))["content"][0]["text"] == "after"
    finally:
        await client.close()


async def test_http_a_body_over_the_limit_gets_413_with_a_jsonrpc_error(
    servers: dict[str, str],
) -> None:
    client, _ = await open_session(servers["sse"])
    try:
        with pytest.raises(McpError) as caught:
            await call(client, "echo", timeout=20, text="a" * (5 * MB))
        assert "413" in str(caught.value) and "too large" in str(caught.value)
        assert (await call(client, "echo", text="after"))["content"][0]["text"] == "after"
    finally:
        await client.close()
    async with httpx.AsyncClient(timeout=20) as http:
        r = await http.post(
            servers["sse"],
            content=b"[" + b"1," * (3 * MB) + b"1]",
            headers={
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
            },
        )
        assert r.status_code == 413
        assert r.json()["error"]["code"] == INVALID_REQUEST
