"""Copies of a never-started session (Session.cloner): the engine alone, no server."""

from __future__ import annotations

from typing import Any

from mcpkit.lifecycle import Phase
from mcpkit.session import ClientSession, ServerSession
from mcpkit.transports.base import Transport
from mcpkit.transports.memory import MemoryTransport

INFO = {"name": "engine", "version": "1"}


async def _echo(params: Any, ctx: Any) -> Any:
    return {"echo": params}


def _prototype() -> ServerSession:
    proto = ServerSession(Transport(), server_info=INFO, capabilities={"tools": {}})
    proto.set_request_handler("echo", _echo)
    return proto


async def test_a_clone_serves_on_its_own_transport_and_leaves_the_prototype_new() -> None:
    proto = _prototype()
    clone = proto.cloner()
    a, b = MemoryTransport.pair()
    server = clone(a)
    client = ClientSession(b)
    await server.start()
    await client.start()
    try:
        await client.initialize(client_info={"name": "c", "version": "1"})
        assert client.server_info == INFO
        assert await client.request("echo", {"x": 1}) == {"echo": {"x": 1}}
        assert server.lifecycle.phase is Phase.OPERATING
        # The handshake moved the clone: its initialize was bound to it, not the prototype.
        assert proto.lifecycle.phase is Phase.NEW
        assert proto.lifecycle.peer_info == {} and proto._in_flight == {}
        assert server._handlers["initialize"].__self__ is server
    finally:
        await client.close()
        await server.close()


async def test_clones_share_only_what_the_class_names() -> None:
    proto = _prototype()
    clone = proto.cloner()
    first, second = clone(Transport()), clone(Transport())
    assert type(first) is ServerSession and first.transport is not second.transport
    assert first.server_info is proto.server_info  # ServerSession.clone_shares
    assert first._handlers is not second._handlers is not proto._handlers
    assert first._handlers["echo"] is _echo
    assert first.lifecycle is not second.lifecycle
    assert first._pending is not second._pending


async def test_shared_tables_leave_out_what_is_bound_and_are_taken_before_a_change() -> None:
    proto = _prototype()
    proto.share_handlers()
    assert "initialize" not in proto._handlers
    assert "notifications/initialized" not in proto._notification_handlers
    clone = proto.cloner()
    first, second = clone(Transport()), clone(Transport())
    assert first._handlers is second._handlers is proto._handlers  # one shared table
    first.set_request_handler("other", _echo)
    assert "other" in first._handlers and "other" not in second._handlers
    assert "other" not in proto._handlers
