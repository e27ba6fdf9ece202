"""mcpkit's Client driving the official Python SDK's dual-era server (``peers/py_server.py``)
over stdio and Streamable HTTP, in ``auto``, pinned ``2026-07-28`` and ``legacy`` mode.

On the stateless wire the server's elicitation and sampling arrive as MRTR input requests
answered by the client's handlers, ``tools/list`` is served from the response cache within
its ``ttlMs`` (the requests on the wire are counted), and ``listen`` sees a list change.
Every message the client sends is checked against the schema of its revision: over stdio
from the recording of ``peers/tee.py``, over HTTP by the client's tracer.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client
from mcpkit.client.era import http_target
from mcpkit.types import CreateMessageResult, TextContent
from tests.interop.conftest import PEER_SCRIPTS, PythonPeer, check_recorded, read_recording
from tests.wire import WireChecker


async def elicit(params: Any, ctx: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


async def sample(params: Any, ctx: Any) -> CreateMessageResult:
    return CreateMessageResult(
        role="assistant", content=TextContent(type="text", text="an old pond"), model="test"
    )


def text(result: Any) -> str:
    return str(result.content[0].text)


def sent(messages: list[tuple[str, Any]], method: str) -> int:
    """How many requests of ``method`` the client sent."""
    return sum(
        1
        for d, m in messages
        if d in ("c2s", "send") and isinstance(m, dict) and m.get("method") == method
    )


async def exercise_modern(client: Client, count: Any) -> None:
    """MRTR elicitation and sampling, the cached tool list, a listen that sees a change."""
    assert client.modern and client.protocol_version == "2026-07-28"
    assert client.server_info.name == "official-python-peer"
    assert client.supports("tools")
    assert text(await client.call_tool("hello")) == "Hello, Ada!"
    assert text(await client.call_tool("haiku", {"topic": "frogs"})) == "an old pond"
    names = {tool.name for tool in await client.list_tools()}
    assert {"hello", "haiku", "touch_tools", "add"} <= names
    before = count("tools/list")
    assert {tool.name for tool in await client.list_tools()} == names  # within the TTL
    assert count("tools/list") == before  # nothing was sent
    async with client.listen(tools=True) as events:
        assert events.acknowledged == {"toolsListChanged": True}
        assert text(await client.call_tool("touch_tools")) == "announced"
        event = await asyncio.wait_for(events.__anext__(), 10)
        assert event.method == "notifications/tools/list_changed"
    await client.list_tools()  # the change made the cached list stale: fetched again
    assert count("tools/list") == before + 1


@pytest.mark.parametrize("era", ["auto", "2026-07-28"])
async def test_modern_over_stdio(py_peer: PythonPeer, tmp_path: Path, era: Any) -> None:
    log = tmp_path / "wire.jsonl"
    command = [
        sys.executable,
        str(PEER_SCRIPTS / "tee.py"),
        str(log),
        "--",
        *py_peer.server_command(),
    ]
    async with Client(
        command, era=era, elicitation_handler=elicit, sampling_handler=sample
    ) as client:
        await exercise_modern(client, lambda method: sent(read_recording(log), method))
    recording = read_recording(log)
    assert sent(recording, "initialize") == 0
    assert sent(recording, "ping") == 0
    # the retries of MRTR carry the answers; every message is valid per the 2026 schema
    calls = [m for d, m in recording if d == "c2s" and m.get("method") == "tools/call"]
    assert any("inputResponses" in m["params"] for m in calls)
    assert len({m["id"] for m in calls}) == len(calls)
    checker = check_recorded(log, version="2026-07-28")
    assert not checker.errors, checker.errors


async def test_legacy_over_stdio(py_peer: PythonPeer, tmp_path: Path) -> None:
    log = tmp_path / "wire.jsonl"
    command = [
        sys.executable,
        str(PEER_SCRIPTS / "tee.py"),
        str(log),
        "--",
        *py_peer.server_command(),
    ]
    async with Client(
        command, era="legacy", elicitation_handler=elicit, sampling_handler=sample
    ) as client:
        assert not client.modern and client.protocol_version == "2025-11-25"
        assert text(await client.call_tool("add", {"a": 2, "b": 3})) == "5"
        assert text(await client.call_tool("hello")) == "Hello, Ada!"  # elicitation/create
        assert text(await client.call_tool("haiku", {"topic": "frogs"})) == "an old pond"
        before = sent(read_recording(log), "tools/list")
        await client.list_tools()
        await client.list_tools()
        assert sent(read_recording(log), "tools/list") == before + 2  # no caching hints
    recording = read_recording(log)
    assert sent(recording, "initialize") == 1 and sent(recording, "server/discover") == 0
    assert not check_recorded(log).errors


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def peer_url(py_peer: PythonPeer) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [*py_peer.server_command(), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the official server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("era", ["auto", "2026-07-28"])
async def test_modern_over_http(peer_url: str, era: Any) -> None:
    checker = WireChecker("2026-07-28", check_received=False)
    async with Client(
        peer_url, era=era, tracer=checker, elicitation_handler=elicit, sampling_handler=sample
    ) as client:
        await exercise_modern(client, lambda method: sent(checker.messages, method))
    assert sent(checker.messages, "initialize") == 0
    assert not checker.errors, checker.errors


async def test_auto_remembers_the_era_of_an_http_server(peer_url: str) -> None:
    from mcpkit.client.client import ERA_MEMO

    ERA_MEMO.forget(http_target(peer_url))
    async with Client(peer_url) as client:
        assert client.modern
    assert ERA_MEMO.get(http_target(peer_url)) == ("modern", "2026-07-28")


async def test_legacy_over_http(peer_url: str) -> None:
    checker = WireChecker("2025-11-25", check_received=False)
    async with Client(
        peer_url, era="legacy", tracer=checker, elicitation_handler=elicit, sampling_handler=sample
    ) as client:
        assert not client.modern and client.protocol_version == "2025-11-25"
        assert text(await client.call_tool("add", {"a": 2, "b": 3})) == "5"
        assert text(await client.call_tool("hello")) == "Hello, Ada!"
    assert sent(checker.messages, "initialize") == 1
    assert not checker.errors, checker.errors
