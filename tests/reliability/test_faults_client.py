"""Faults on the server's side, seen by mcpkit's Client: scripted fake servers that die
mid-call, write garbage, answer with wrong ids, close their output, cut streams, answer
4xx/5xx or never answer. Every call ends within its bound with an error from mcpkit's
error tree (McpkitError), and a call that can still succeed does."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client
from mcpkit.errors import ConnectionClosed, McpError, McpkitError, ProcessExited, RequestTimeout
from mcpkit.transports.http import running
from tests.reliability import fake_http
from tests.reliability.clients import open_session

FAKE_STDIO = str(Path(__file__).with_name("fake_stdio.py"))
BOUND = 1.0  # the call timeout the tests give; every call ends within BOUND + 1.5 s


async def call_stdio(mode: str, **kwargs: object) -> tuple[object, float]:
    started = time.monotonic()
    try:
        async with Client([sys.executable, FAKE_STDIO, mode], timeout=BOUND) as client:
            result: object = (await client.call_tool("t", {})).text
            # Whatever happened, the connection still answers (unless it is gone).
            await client.ping()
    except Exception as exc:
        result = exc
    return result, time.monotonic() - started


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("die", ProcessExited),
        ("garbage", "ok"),
        ("garbage-only", RequestTimeout),
        ("wrong-id", RequestTimeout),
        ("close-stdout", ConnectionClosed),
        ("silent", RequestTimeout),
        ("error", McpError),
        ("huge-line", McpError),
    ],
)
async def test_stdio_server_faults_end_each_call_in_bound_with_a_clear_error(
    mode: str, expected: object
) -> None:
    result, elapsed = await call_stdio(mode)
    assert elapsed < BOUND + 1.5, (mode, elapsed)
    if isinstance(expected, str):
        assert result == expected
        return
    assert isinstance(result, McpkitError), (mode, repr(result))
    assert isinstance(result, expected), (mode, repr(result))  # type: ignore[arg-type]
    assert str(result)
    if mode == "die":
        assert "exited with code 3" in str(result)
    if mode == "huge-line":
        assert result.code == -32600 and "size limit" in str(result)  # type: ignore[attr-defined]
    if mode == "error":
        assert "the server broke" in str(result)


@pytest.fixture
async def fake_server() -> AsyncIterator[str]:
    async with running(fake_http.app) as base:
        yield base + "/mcp"


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("status-500", ["500"]),
        ("status-400", ["400"]),
        ("status-502-html", ["502"]),
        ("garbage-json", []),
        ("wrong-id", []),
        ("wrong-type", ["content type"]),
        ("cut-sse", ["ended before the response"]),
        ("cut-sse-resumable", []),
        ("silent", []),
        ("silent-sse", []),
    ],
)
async def test_http_server_faults_end_each_call_in_bound_with_a_clear_error(
    fake_server: str, mode: str, words: list[str]
) -> None:
    started = time.monotonic()
    async with Client(fake_server, timeout=BOUND) as client:
        with pytest.raises(McpkitError) as caught:
            await client.call_tool(mode, {})
        elapsed = time.monotonic() - started
        assert elapsed < BOUND + 1.5, (mode, elapsed)
        text = str(caught.value)
        assert text and all(w in text for w in words), (mode, text)
        # The client is still usable: a good call on the same connection succeeds.
        assert (await client.call_tool("ok", {})).text == "ok"


async def test_http_a_call_cancelled_by_its_timeout_is_not_waited_for_or_resumed() -> None:
    from mcpkit import Server

    server = Server("cancel")

    @server.tool()
    async def hang() -> str:
        await asyncio.sleep(3600)
        return "never"

    @server.tool()
    async def echo(text: str) -> str:
        return text

    resumes: list[str] = []
    inner = server.http_app()

    async def counting(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            if any(k == b"last-event-id" for k, _ in scope["headers"]):
                resumes.append(scope["path"])
        await inner(scope, receive, send)

    async with running(counting) as base:
        # A 2025-11-25 session (initialize): there a cancelled request keeps its stream.
        client, _ = await open_session(base + "/mcp")
        try:
            for _ in range(5):
                with pytest.raises(RequestTimeout):
                    await client.request(
                        "tools/call", {"name": "hang", "arguments": {}}, timeout=0.2
                    )
            # The server ends each cancelled call's stream without a response: the client
            # must not take that for a cut stream and resume it (it did, five times each).
            await asyncio.sleep(1.5)
            assert resumes == []
            result = await client.request(
                "tools/call", {"name": "echo", "arguments": {"text": "still"}}, timeout=5
            )
            assert result["content"][0]["text"] == "still"
        finally:
            await client.close()
    await inner.aclose()
