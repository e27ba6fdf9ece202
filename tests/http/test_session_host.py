"""The session host of the Streamable HTTP app: the in-process table holds sessions by id,
forgets them when they end (giving back their client's count), lists a snapshot and reaps
the idle ones; the app's session table is that host."""

from __future__ import annotations

import time

import httpx

from mcpkit import Server
from mcpkit.transports.http import HttpSessionTransport, StreamableHTTPApp
from mcpkit.transports.http.host import MemorySessionHost, SessionHost
from mcpkit.transports.http.options import HttpServerOptions
from tests.http import raw


def _transport(sid: str, table: MemorySessionHost) -> HttpSessionTransport:
    return HttpSessionTransport(sid, on_close=table.forget)


async def test_the_table_holds_forgets_and_counts_clients() -> None:
    table = MemorySessionHost(idle_timeout=None, initialize_timeout=None)
    host: SessionHost = table
    a, b = _transport("a", table), _transport("b", table)
    table.take_client("alice")
    a.client_key = "alice"
    host.register(a)
    host.register(b)
    assert host.get("a") is a and host.get("nope") is None
    assert len(table) == 2 and "b" in table
    assert table.client_count("alice") == 1
    for transport in host.iterate():  # a snapshot: ending sessions while listing is safe
        await transport.close()
    assert table.sessions == {} and table.client_count("alice") == 0
    await table.aclose()


async def test_reap_ends_idle_sessions_only() -> None:
    table = MemorySessionHost(idle_timeout=60.0, initialize_timeout=5.0)
    idle, busy, fresh = (_transport(s, table) for s in ("idle", "busy", "fresh"))
    for transport in (idle, busy, fresh):
        transport.established = True
        table.register(transport)
    idle.last_active = time.monotonic() - 120
    busy.last_active = time.monotonic() - 120
    busy.connections = 1  # an open stream: never idle
    fresh.established = False  # nothing followed its initialize yet, but it is recent
    await table.reap()
    assert set(table.sessions) == {"busy", "fresh"} and idle.closed
    fresh.last_active = time.monotonic() - 10  # past initialize_timeout
    await table.reap()
    assert set(table.sessions) == {"busy"} and fresh.closed
    busy.connections = 0
    await table.aclose()
    assert table.sessions == {} and busy.closed


async def test_the_app_keeps_its_sessions_in_its_host() -> None:
    server = Server("host", version="1")
    app = StreamableHTTPApp(server.session, options=HttpServerOptions(session_idle_timeout=30.0))
    assert app.host is app.table
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
    ) as http:
        sid = await raw.open_session(http, "http://127.0.0.1/mcp")
        assert app.table.get(sid) is app.sessions[sid]
        assert app.session_idle_timeout == app.table.idle_timeout == 30.0
        assert await app.terminate_session(sid)
        assert sid not in app.table
    await app.aclose()
