"""``app.http_app().lifespan``: a Server's HTTP app mounted inside Starlette, under uvicorn,
gets its lifespan entered and its sessions closed through the host application's lifespan."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from mcpkit import Context, Server
from mcpkit.session import ClientSession
from mcpkit.transports.http import StreamableHTTPClientTransport, running
from tests.http.conftest import CLIENT_INFO


async def test_mounted_app_runs_the_lifespan_and_closes_sessions(wire: Any) -> None:
    events: list[str] = []
    asgi: Any = None

    @contextlib.asynccontextmanager
    async def lifespan(app: Server) -> AsyncIterator[dict[str, str]]:
        events.append("enter")
        yield {"db": "connected"}
        # sessions end while the lifespan still runs
        events.append(f"exit with {len(asgi.sessions)} sessions")

    mcp = Server("mounted", lifespan=lifespan)

    @mcp.tool()
    def db(ctx: Context) -> str:
        return str(ctx.lifespan["db"])

    asgi = mcp.http_app(path="/mcp")
    server_sessions: list[Any] = []

    def factory(transport: Any) -> Any:
        session = mcp.session(transport, tracer=wire())
        server_sessions.append(session)
        return session

    asgi.app.session_factory = factory  # schema-check the server side too
    web = Starlette(routes=[Mount("/api", app=asgi)], lifespan=asgi.lifespan)
    clients: list[ClientSession] = []
    try:
        async with running(web) as base:
            assert events == ["enter"]
            for _ in range(2):
                # no GET stream and no DELETE on close: the sessions stay open until shutdown
                transport = StreamableHTTPClientTransport(
                    base + "/api/mcp", standalone_stream=False, terminate_on_close=False
                )
                client = ClientSession(transport, tracer=wire())
                clients.append(client)
                await client.start()
                await client.initialize(CLIENT_INFO, timeout=10)
                result = await client.request(
                    "tools/call", {"name": "db", "arguments": {}}, timeout=10
                )
                assert result["content"][0]["text"] == "connected"
            assert len(asgi.sessions) == 2
            assert not any(s.closed for s in server_sessions)
        assert events == ["enter", "exit with 0 sessions"]
        assert asgi.sessions == {}
        assert len(server_sessions) == 2 and all(s.closed for s in server_sessions)
    finally:
        for client in clients:
            await client.close()


async def test_lifespan_combines_with_the_hosts_own(wire: Any) -> None:
    mcp = Server("mounted", lifespan=lambda app: _state({"n": 1}))

    @mcp.tool()
    def n(ctx: Context) -> int:
        return int(ctx.lifespan["n"])

    asgi = mcp.http_app()
    order: list[str] = []

    @contextlib.asynccontextmanager
    async def host_lifespan(app: Starlette) -> AsyncIterator[None]:
        order.append("host up")
        async with asgi.lifespan(app):
            yield
        order.append("host down")

    web = Starlette(routes=[Mount("/x", app=asgi)], lifespan=host_lifespan)
    async with running(web) as base:
        transport = StreamableHTTPClientTransport(base + "/x/mcp")
        client = ClientSession(transport, tracer=wire())
        await client.start()
        try:
            await client.initialize(CLIENT_INFO, timeout=10)
            result = await client.request("tools/call", {"name": "n", "arguments": {}}, timeout=10)
            assert result["structuredContent"] == {"result": 1}
        finally:
            await client.close()
    assert order == ["host up", "host down"]
    with pytest.raises(RuntimeError, match="not running"):  # the server's lifespan was left
        mcp.lifespan_state


@contextlib.asynccontextmanager
async def _state(value: dict[str, int]) -> AsyncIterator[dict[str, int]]:
    yield value
