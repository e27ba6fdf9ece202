"""Who an in-memory upstream sees: a proxied server is another server and sees the proxy
(as it would over HTTP), never the downstream caller's principal; a mounted server is part
of the same server and sees the caller."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mcpkit import Client, Context, Server
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from tests.security.tenants import Caller, resource_server

CALL = {"name": "whoami", "arguments": {}}


def upstream() -> Server:
    """A server whose ``whoami`` answers the principal it sees, its request and its owner."""
    server = Server("upstream", "1.0.0")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        token = ctx.auth
        who = "nobody" if token is None else str(token.subject)
        return f"{who} over {'http' if ctx.request is not None else 'no http'}"

    return server


async def whoami(front: Server, http_options: dict[str, Any]) -> list[str]:
    """What ``whoami`` answers alice through ``front``: 2026-07-28, a 2025 session, and
    (when ``http_options`` make it stateless) a stateless 2025 request."""
    async with (
        running(front.http_app(auth=resource_server(), **http_options)) as base,
        httpx.AsyncClient(timeout=30) as http,
    ):
        url, alice = base + "/mcp", Caller(http, "alice-token")
        replies = [await alice.modern(url, "tools/call", CALL)]
        if http_options.get("stateless"):
            replies.append(await alice.rpc(url, "tools/call", CALL))
        else:
            sid = await alice.initialize(url)
            replies.append(await alice.rpc(url, "tools/call", CALL, sid))
        return [r.result["content"][0]["text"] for r in replies]


@pytest.mark.parametrize("stateless", [False, True])
async def test_a_proxied_in_memory_upstream_does_not_see_the_callers_principal(
    stateless: bool,
) -> None:
    answers = await whoami(ProxyServer(upstream()), {"stateless": stateless})
    assert answers == ["nobody over no http"] * 2


async def test_a_mounted_server_sees_the_caller() -> None:
    front = Server("front", "1.0.0")
    front.mount(upstream())
    answers = await whoami(front, {})
    assert answers == ["alice over http"] * 2


async def test_a_server_reached_in_memory_from_a_handler_sees_no_principal() -> None:
    other = upstream()
    front = Server("front", "1.0.0")

    @front.tool()
    async def ask_other() -> str:
        async with Client(other) as client:
            return (await client.call_tool("whoami")).text

    async with (
        running(front.http_app(auth=resource_server())) as base,
        httpx.AsyncClient(timeout=30) as http,
    ):
        url, alice = base + "/mcp", Caller(http, "alice-token")
        r = await alice.modern(url, "tools/call", {"name": "ask_other", "arguments": {}})
        assert r.result["content"][0]["text"] == "nobody over no http"
