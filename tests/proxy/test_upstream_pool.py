"""``mcpkit proxy ... -t http`` in front of a handshake-era command: each client's upstream
process comes from a bounded pool. ``initialize`` beyond ``--max-upstreams`` answers
-31503 overloaded (no process started), and an idle client's upstream is reclaimed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx

from mcpkit import Client
from mcpkit.proxy import ProxyServer
from tests.proxy.conftest import start_proxy

UPSTREAM = """
import os
import sys

from mcpkit import Server

with open(sys.argv[1], "a") as started:
    started.write(f"{os.getpid()}\\n")
app = Server("counted", "1.0", modern_versions=())


@app.tool()
def ping() -> str:
    return "pong"


@app.tool()
async def nap(seconds: float) -> str:
    import asyncio

    await asyncio.sleep(seconds)
    return "rested"


app.run()
"""
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def initialize(rid: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": f"c{rid}", "version": "1"},
        },
    }


def upstream(tmp_path: Path) -> tuple[str, Path]:
    script = tmp_path / "upstream.py"
    script.write_text(UPSTREAM)
    started = tmp_path / "started.txt"
    started.write_text("")
    return f"{sys.executable} {script} {started}", started


def processes(started: Path) -> int:
    return len(started.read_text().split())


async def test_initializes_beyond_the_pool_are_refused_without_a_process(tmp_path: Path) -> None:
    command, started = upstream(tmp_path)
    pool, extra = 2, 3
    with start_proxy([command, "-t", "http", "--max-upstreams", str(pool)]) as url:
        async with httpx.AsyncClient(timeout=60) as http:
            answers = [
                await http.post(url, json=initialize(i), headers=HEADERS)
                for i in range(1, pool + extra + 1)
            ]
            bodies = [a.json() if "json" in a.headers["content-type"] else a.text for a in answers]
            opened = [a for a in answers if "mcp-session-id" in a.headers]
            refused = [b for b in bodies if isinstance(b, dict) and "error" in b]
            assert len(opened) == pool, bodies
            assert len(refused) == extra, bodies
            for body in refused:
                assert body["error"]["code"] == -31503
                assert "all 2 upstream connections" in body["error"]["message"]
                assert body["error"]["data"]["retryAfterMs"] > 0
            # The shared connection plus one per admitted client, at most; none for the rest.
            assert processes(started) <= pool + 1
            session = {**HEADERS, "mcp-session-id": opened[0].headers["mcp-session-id"]}
            session["mcp-protocol-version"] = "2025-11-25"
            await http.post(
                url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
            )
            call = {"jsonrpc": "2.0", "id": 99, "method": "tools/call"}
            call["params"] = {"name": "ping", "arguments": {}}
            served = await http.post(url, json=call, headers=session)
            assert "pong" in served.text  # admitted clients are served
            ended = await http.delete(url, headers=session)
            assert ended.status_code in (200, 204)
            again = await http.post(url, json=initialize(50), headers=HEADERS)
            assert "mcp-session-id" in again.headers, again.text  # its place is free again


async def test_an_idle_upstream_is_reclaimed(tmp_path: Path) -> None:
    command, _ = upstream(tmp_path)
    proxy = ProxyServer(command, max_upstreams=1, upstream_idle_timeout=0.2)
    async with proxy.running():
        first = Client(proxy, era="legacy")
        await first.connect()
        try:
            assert proxy.upstreams.own_count() <= 1
            # A call running longer than the idle timeout keeps its connection.
            napped = await first.call_tool("nap", {"seconds": 1.0})
            assert napped.content[0].text == "rested"  # type: ignore[union-attr]
            for _ in range(200):  # the reaper closes it once idle
                if first.session.closed or not proxy.upstreams.owned:
                    break
                await asyncio.sleep(0.05)
            assert not proxy.upstreams.owned
            async with Client(proxy, era="legacy") as second:
                assert (await second.call_tool("ping", {})).content[0].text == "pong"  # type: ignore[union-attr]
        finally:
            await first.close()
