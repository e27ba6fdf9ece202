"""Per-request modern sessions copied from a prototype (mcpkit.server.request_sessions): each
copy is what ``server.session(transport, era="modern")`` makes, shares nothing mutable with
the prototype or another copy, and follows every change to the server."""

from __future__ import annotations

import asyncio
import functools
import types
from collections import deque
from typing import Any

import orjson

from mcpkit import Context, Server
from mcpkit.server.request_sessions import modern_request_session
from mcpkit.server.session import AppSession
from mcpkit.transports.base import Transport
from mcpkit.transports.http.modern_server import ModernRequestTransport
from tests.modern.asgi import post, post_scope

_CONTAINERS = (dict, set, list, deque)
SHARED_ATTRIBUTES = AppSession.clone_shares


def _server() -> Server:
    server = Server("protos", version="1")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    return server


def _normalised(value: Any) -> Any:
    # Handlers bound to a session compare by their function (each copy has its own binding).
    if isinstance(value, types.MethodType):
        return ("method", value.__func__)
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items()}
    return value


def _bound_to(handler: Any, session: Any) -> bool:
    return (isinstance(handler, types.MethodType) and handler.__self__ is session) or (
        isinstance(handler, functools.partial) and session in handler.args
    )


async def test_a_copy_equals_an_ordinary_modern_session() -> None:
    server = _server()
    copy = modern_request_session(server, ModernRequestTransport(1))
    plain = server.session(ModernRequestTransport(1), era="modern")
    assert type(copy) is type(plain)
    assert vars(copy).keys() == vars(plain).keys()
    for name, value in vars(plain).items():
        if name in ("lifecycle", "transport", "_handlers", "_notification_handlers"):
            continue
        assert _normalised(vars(copy)[name]) == _normalised(value), name
    # The handler tables are the same but for the handlers bound to a session: those of the
    # handshake era (initialize, its notifications), which a modern request never reaches
    # (see test_copies_share_one_handler_table_without_the_handshakes).
    for attr in ("_handlers", "_notification_handlers"):
        own = {k: v for k, v in vars(plain)[attr].items() if not _bound_to(v, plain)}
        assert _normalised(vars(copy)[attr]) == _normalised(own), attr
    for slot in type(plain.lifecycle).__slots__:
        assert getattr(copy.lifecycle, slot) == getattr(plain.lifecycle, slot), slot
    for slot in AppSession.__slots__:  # the session's own attributes, out of its dict
        assert getattr(copy, slot) == getattr(plain, slot), slot
    assert copy.era == "modern" and copy.protocol_version is plain.protocol_version


async def test_copies_share_no_mutable_state() -> None:
    server = _server()
    first = modern_request_session(server, ModernRequestTransport(1))
    second = modern_request_session(server, ModernRequestTransport(2))
    proto = server.session_prototypes["modern"].session
    for name, value in vars(first).items():
        if type(value) in _CONTAINERS and name not in SHARED_ATTRIBUTES:
            assert value is not vars(second)[name], name
            assert value is not vars(proto)[name], name
    assert first.lifecycle is not second.lifecycle
    assert first.lifecycle.peer_capabilities is not second.lifecycle.peer_capabilities
    # Nothing of the tables is bound to a session (see the test of the shared tables).
    for session in (first, second):
        assert "initialize" not in session._handlers
        assert "notifications/initialized" not in session._notification_handlers
    assert first.transport is not second.transport


async def test_legacy_copies_bind_their_handshake_to_themselves() -> None:
    from mcpkit.server.request_sessions import legacy_request_session
    from mcpkit.versions import LATEST_LEGACY

    server = _server()
    first = legacy_request_session(server, Transport(), LATEST_LEGACY)
    second = legacy_request_session(server, Transport(), LATEST_LEGACY)
    assert first._handlers is not second._handlers
    for session in (first, second):
        assert session._handlers["initialize"].__self__ is session
        assert session._notification_handlers["notifications/initialized"].__self__ is session
        roots = session._notification_handlers["notifications/roots/list_changed"]
        assert roots.args == (session,)


async def test_only_a_servers_own_factory_is_recognised() -> None:
    server = _server()
    served = server.served_app()
    assert served.made_by(server.session)
    assert not served.made_by(_server().session)
    assert not served.made_by(lambda t: server.session(t))
    assert not served.made_by(Transport)


def _call(name: str, rid: int = 1) -> tuple[dict[str, Any], bytes]:
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {
                "name": name,
                "arguments": {"text": "hi"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        }
    )
    scope = post_scope(
        (b"mcp-protocol-version", b"2026-07-28"),
        (b"mcp-method", b"tools/call"),
        (b"mcp-name", name.encode()),
    )
    return scope, body


async def _post(app: Any, name: str) -> tuple[int, dict[str, Any]]:
    status, body, _ = await post(app, *_call(name))
    return status, orjson.loads(body)


async def test_the_prototype_follows_registrations_and_settings() -> None:
    server = _server()
    app = server.http_app(stateless=True, json_response=True)
    status, answer = await _post(app, "echo")
    assert status == 200 and answer["result"]["content"][0]["text"] == "hi"
    first = server.session_prototypes["modern"]

    @server.tool()
    async def shout(text: str) -> str:
        return text.upper()

    status, answer = await _post(app, "shout")
    assert status == 200 and answer["result"]["content"][0]["text"] == "HI"
    assert server.session_prototypes["modern"] is not first
    second = server.session_prototypes["modern"]
    server.debug = not server.debug
    await _post(app, "echo")
    assert server.session_prototypes["modern"] is not second
    assert not server.sessions  # every per-request session ended with its request


async def test_a_copy_is_one_of_the_servers_sessions_while_it_serves() -> None:
    server = _server()
    seen: list[bool] = []

    @server.tool()
    async def probe(text: str, ctx: Context) -> str:
        seen.append(ctx.session in ctx.server.sessions)
        seen.append(ctx.session.transport.sink is ctx.session)
        return text

    app = server.http_app(stateless=True, json_response=True)
    status, answer = await _post(app, "probe")
    assert status == 200 and answer["result"]["content"][0]["text"] == "hi"
    assert server.session_prototypes.get("modern") is not None
    assert seen == [True, True]
    assert not server.sessions


async def test_a_server_with_middleware_is_served_the_ordinary_way() -> None:
    server = _server()
    seen: list[str] = []

    async def record(ctx: Any, call_next: Any) -> Any:
        seen.append(ctx.method)
        return await call_next(ctx)

    server.add_middleware(record)
    app = server.http_app(stateless=True, json_response=True)
    status, answer = await _post(app, "echo")
    assert status == 200 and answer["result"]["content"][0]["text"] == "hi"
    assert seen == ["tools/call"]
    assert server.session_prototypes.get("modern") is None


async def test_a_client_that_goes_away_cancels_a_copied_sessions_request() -> None:
    server = _server()
    events: list[str] = []
    started = asyncio.Event()

    @server.tool()
    async def slow(text: str) -> str:
        events.append("started")
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            events.append("cancelled")
            raise
        return text

    app = server.http_app(stateless=True, json_response=True)
    scope, body = _call("slow")
    gone = asyncio.Event()
    calls = 0

    async def receive() -> dict[str, Any]:
        nonlocal calls
        calls += 1
        if calls == 1:
            return {"type": "http.request", "body": body, "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    serving = asyncio.create_task(app(scope, receive, send))
    await asyncio.wait_for(started.wait(), 10)
    assert server.session_prototypes.get("modern") is not None
    assert len(server.sessions) == 1
    await asyncio.sleep(0.1)  # past the quick-answer window: a watcher listens
    gone.set()
    await asyncio.wait_for(serving, 10)
    assert events == ["started", "cancelled"]
    assert sent == []  # nobody to answer
    assert not server.sessions


async def test_copies_share_one_handler_table_without_the_handshakes() -> None:
    server = _server()
    first = modern_request_session(server, ModernRequestTransport(1))
    second = modern_request_session(server, ModernRequestTransport(2))
    assert first._handlers is second._handlers
    assert first._notification_handlers is second._notification_handlers
    assert "tools/call" in first._handlers
    # Nothing in the shared tables is bound to a session (no copy would serve another's).
    assert "initialize" not in first._handlers
    for table in (first._handlers, first._notification_handlers):
        assert not [
            k
            for k, v in table.items()
            if isinstance(v, types.MethodType) and isinstance(v.__self__, AppSession)
        ]

    async def extra(params: Any, ctx: Any) -> dict[str, Any]:
        return {}

    # A copy that changes its tables gets its own first: the others keep the shared ones.
    first.set_request_handler("x/extra", extra)
    first.set_notification_handler("notifications/x", lambda params: None)
    assert "x/extra" in first._handlers and "x/extra" not in second._handlers
    assert "notifications/x" not in second._notification_handlers
    second.remove_request_handler("tools/call")
    assert "tools/call" in first._handlers
    assert "tools/call" not in second._handlers
    third = modern_request_session(server, ModernRequestTransport(3))
    assert "tools/call" in third._handlers and "x/extra" not in third._handlers
    # A closed copy leaves the shared tables as they are.
    third.connection_lost(None)
    fourth = modern_request_session(server, ModernRequestTransport(4))
    assert fourth._handlers is third._handlers and "tools/call" in fourth._handlers
