"""Idle 2025-era HTTP sessions hold little: what a session may never use (the standalone
stream, its backlog, held task messages, full connections, subscriptions, background
tasks) is made on first use; a new session is a copy of the server's prototype (equal to
``server.session(transport)``); ``initialize`` is answered without a loop turn."""

from __future__ import annotations

import asyncio
import sys
from collections import deque
from typing import Any

import httpx
import orjson

from mcpkit import Server
from mcpkit.server.request_sessions import new_session
from mcpkit.server.session import AppSession
from mcpkit.transports.http import HttpSessionTransport, StreamableHTTPApp, running
from tests.http import raw

_CONTAINERS = (dict, set, list, deque)
SHARED_ATTRIBUTES = AppSession.clone_shares


def _server() -> Server:
    server = Server("idle", version="1")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    @server.resource("memo://one")
    def one() -> str:
        return "one"

    return server


def _state(session: AppSession) -> dict[str, Any]:
    """A session's whole state: its instance dict and its AppSession slots."""
    state = dict(vars(session))
    for name in AppSession.__slots__:
        state[name] = getattr(session, name)
    return state


async def _open(app: StreamableHTTPApp) -> tuple[httpx.AsyncClient, str]:
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1")
    sid = await raw.open_session(http, "http://127.0.0.1/mcp")
    return http, sid


def _session_of(app: StreamableHTTPApp, sid: str) -> AppSession:
    sink = app.sessions[sid].sink
    assert isinstance(sink, AppSession)
    return sink


async def test_an_idle_session_holds_none_of_what_it_never_used() -> None:
    server = _server()
    app = server.http_app()
    http, sid = await _open(app)
    try:
        transport = app.sessions[sid]
        session = _session_of(app, sid)
        assert session.operating and session.transport is transport
        assert transport._standalone_stream is None and transport.request_stream_count() == 0
        assert transport._backlog is None and transport._held is None
        assert transport._full is None and transport._key_prefix is None
        assert transport._awaiting is None and transport._undelivered is None
        assert not transport._json and not transport._streams
        assert session._subscriptions is None and session._app_tasks is None
        assert session._background is None
        # What the handshake's request grew is let go: the maps are as small as new ones.
        empty = sys.getsizeof({})
        assert sys.getsizeof(transport._json) == sys.getsizeof(session._in_flight) == empty
        # The engine's attributes alone are in the instance dict: few enough for CPython to
        # share their keys between the instances of the class.
        assert len(vars(session)) < 30
        # The idle session still serves.
        r = await http.post(
            "/mcp", json=raw.tool_call(1, "echo", text="still"), headers=raw.headers(sid)
        )
        assert r.status_code == 200 and '"text":"still"' in r.text
    finally:
        await http.aclose()
        await app.aclose()


async def test_first_use_makes_each_lazy_structure() -> None:
    server = _server()
    app = server.http_app()
    http, sid = await _open(app)
    try:
        transport = app.sessions[sid]
        session = _session_of(app, sid)
        # A subscription makes the session's set, and an update reaches the subscriber.
        sub = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe"}
        sub["params"] = {"uri": "memo://one"}
        r = await http.post("/mcp", json=sub, headers=raw.headers(sid))
        assert r.status_code == 200 and '"result"' in r.text
        assert session._subscriptions == {"memo://one"}
        # A notification with no GET stream open goes to the standalone stream's backlog,
        # both made now; the GET that opens later receives it.
        transport.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        assert transport._standalone_stream is not None
        assert transport._backlog is not None and len(transport._backlog) == 1
        assert transport.request_stream_count() == 0
        # Background work of the session makes its task set, emptied as the task ends.
        done = asyncio.Event()

        async def work() -> None:
            done.set()

        session.spawn(work())
        assert session._app_tasks is not None and len(session._app_tasks) == 1
        await done.wait()
        await asyncio.sleep(0)
        assert not session._app_tasks
    finally:
        await http.aclose()
        await app.aclose()


async def test_the_backlog_is_delivered_on_the_first_get() -> None:
    server = _server()
    app = server.http_app()
    async with running(app) as base, httpx.AsyncClient(base_url=base, timeout=10) as http:
        url = base + "/mcp"
        sid = await raw.open_session(http, url)
        transport = app.sessions[sid]
        assert transport._standalone_stream is None
        transport.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        async with http.stream("GET", url, headers=raw.headers(sid)) as r:
            assert r.status_code == 200
            events = await raw.read_events(r, until=lambda e: e.data)
        got = [orjson.loads(e.data) for e in events if e.data]
        assert got == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
        assert transport._backlog is not None and not transport._backlog
        await app.aclose()


async def test_a_new_session_is_a_copy_equal_to_an_ordinary_one() -> None:
    server = _server()
    copy = new_session(server, HttpSessionTransport("a"))
    plain = server.session(HttpSessionTransport("b"))
    assert type(copy) is type(plain) is AppSession
    mine, theirs = _state(copy), _state(plain)
    assert mine.keys() == theirs.keys()
    for name, value in theirs.items():
        if name in ("lifecycle", "transport", "_handlers", "_notification_handlers"):
            continue
        assert mine[name] == value, name
    assert copy._handlers.keys() == plain._handlers.keys()
    assert copy._notification_handlers.keys() == plain._notification_handlers.keys()
    for slot in type(plain.lifecycle).__slots__:
        assert getattr(copy.lifecycle, slot) == getattr(plain.lifecycle, slot), slot
    assert copy.era is None and copy.lifecycle.version is None
    # Nothing mutable is shared with another copy or the prototype; what is bound to a
    # session is bound to its copy.
    other = new_session(server, HttpSessionTransport("c"))
    proto = server.session_prototypes["new"].session
    for name, value in _state(copy).items():
        if type(value) in _CONTAINERS and name not in SHARED_ATTRIBUTES:
            assert value is not _state(other)[name], name
            assert value is not _state(proto)[name], name
    for session in (copy, other):
        assert session._handlers["initialize"].__self__ is session
        assert session._notification_handlers["notifications/initialized"].__self__ is session
        assert session._notification_handlers["notifications/roots/list_changed"].args == (session,)
    assert copy.lifecycle.peer_info is not other.lifecycle.peer_info


async def test_the_app_opens_copies_that_follow_registrations() -> None:
    server = _server()
    app = server.http_app()
    http, first = await _open(app)
    try:
        assert _session_of(app, first).handler_table is server.handler_table()

        @server.prompt()
        def later() -> str:
            return "later"

        second = await raw.open_session(http, "http://127.0.0.1/mcp")
        session = _session_of(app, second)
        assert session.handler_table is server.handler_table()
        assert "prompts/get" in session._handlers
        assert session is not _session_of(app, first)
        r = await http.post(
            "/mcp",
            json={"jsonrpc": "2.0", "id": 3, "method": "prompts/list"},
            headers=raw.headers(second),
        )
        assert r.status_code == 200 and '"later"' in r.text
    finally:
        await http.aclose()
        await app.aclose()


async def test_initialize_is_answered_without_a_loop_turn() -> None:
    server = _server()
    transport = HttpSessionTransport("s")
    session = server.session(transport)
    await session.start()
    future = transport.expect_json([0])
    session.receive(raw.init_message())
    assert future.done(), "the session's own initialize answers at once"
    result = orjson.loads(future.result())["result"]
    assert result["protocolVersion"] == "2025-11-25" and result["serverInfo"]["name"] == "idle"
    assert not session._in_flight
    await session.close()


async def test_a_user_initialize_handler_still_runs_in_a_task() -> None:
    server = _server()
    seen: list[bool] = []

    @server.request_handler("initialize")
    async def initialize(params: Any, rctx: Any) -> dict[str, Any]:
        seen.append(asyncio.current_task() is not None)
        await asyncio.sleep(0)
        return await rctx.session._initialize(params, rctx)

    transport = HttpSessionTransport("s")
    session = server.session(transport)
    await session.start()
    future = transport.expect_json([0])
    session.receive(raw.init_message())
    assert not future.done()
    data = await asyncio.wait_for(future, 5)
    assert orjson.loads(data)["result"]["protocolVersion"] == "2025-11-25" and seen == [True]
    await session.close()
