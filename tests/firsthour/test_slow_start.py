"""A stdio server slow to start (importing, loading a model) is reached: the client's
``server/discover`` probe waits while the server has not read it, and a modern server
answers an ``initialize`` that arrives after it settled on 2026-07-28 with -32022, from
which clients switch to the version it names."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from mcpkit import Client, Server
from mcpkit.client import StdioOptions
from mcpkit.client.modern import PROBE_TIMEOUT, ServerNotStarted
from tests.firsthour.conftest import HERE, env_with

SLOW = str(HERE / "slow_server.py")


def slow_client(seconds: float, **stdio: Any) -> Client:
    env = env_with(SLOW_SECONDS=str(seconds))
    return Client([sys.executable, SLOW], connection=StdioOptions(env=env, **stdio))


async def test_a_server_slower_than_the_probe_timeout_is_reached() -> None:
    seconds = 2 * PROBE_TIMEOUT  # 20 s: twice what the probe once waited before giving up
    async with slow_client(seconds) as client:
        assert client.protocol_version == "2026-07-28"
        assert (await client.call_tool("ready")).text == "ready"


async def test_the_probe_timeout_counts_from_when_the_server_read_it() -> None:
    async with slow_client(2, probe_timeout=0.5) as client:
        assert client.protocol_version == "2026-07-28"
        assert (await client.call_tool("ready")).text == "ready"


async def test_a_server_that_never_starts_reading_is_reported() -> None:
    client = slow_client(600, start_timeout=1)
    with pytest.raises(ServerNotStarted, match="start_timeout"):
        await client.connect()
    assert not client.connected


def test_initialize_after_discover_is_answered_minus_32022() -> None:
    discover = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            }
        },
    }
    initialize = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    done = subprocess.run(
        [sys.executable, SLOW],
        input="".join(json.dumps(m) + "\n" for m in (discover, initialize)).encode(),
        capture_output=True,
        env=env_with(),
        timeout=60,
    )
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert "result" in replies[1], replies
    assert replies[2]["error"]["code"] == -32022
    assert replies[2]["error"]["data"] == {
        "supported": ["2026-07-28"],
        "requested": "2025-11-25",
    }


async def test_a_client_that_gave_up_on_its_probe_recovers_from_minus_32022() -> None:
    app = Server("late")

    @app.tool()
    def ready() -> str:
        return "ready"

    seen: list[tuple[str, object]] = []

    def trace(direction: str, message: object) -> None:
        if isinstance(message, dict):
            error = message.get("error")
            seen.append((direction, message.get("method") or (error or {}).get("code")))

    # It gives up on the probe at once, then sends initialize.
    async with Client(app, connection=StdioOptions(probe_timeout=0), tracer=trace) as client:
        assert client.protocol_version == "2026-07-28"
        assert (await client.call_tool("ready")).text == "ready"
    assert ("send", "initialize") in seen
    assert ("recv", -32022) in seen
