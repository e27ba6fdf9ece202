"""``subscriptions/listen`` on one connection (in memory and over stdio): the acknowledgment
first, changes caused by registration, by ``notify_list_changed`` and by
``notify_resource_updated``, the filter honoured, several listens at once, cancellation,
the graceful end, and the capabilities that decide what is honoured. Every message both
ways is checked against the 2026-07-28 schema."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Server
from mcpkit.envelope import SERVER_INFO_KEY, SUBSCRIPTION_ID_KEY
from mcpkit.transports import MemoryTransport, StdioClientTransport
from tests.conftest import server_env
from tests.modern.listen_app import make_app
from tests.modern.listen_peer import (
    ACK,
    PROMPTS_CHANGED,
    RESOURCES_CHANGED,
    TOOLS_CHANGED,
    UPDATED,
    Peer,
    V,
    listen_request,
    request,
)
from tests.wire import WireChecker

APP_SCRIPT = Path(__file__).with_name("listen_app.py")
Wire = Callable[..., WireChecker]


def server_checker(wire: Wire) -> WireChecker:
    """What the server sends, checked (what it receives the peer checked on sending, but for
    the deliberately invalid requests a test writes raw)."""
    return wire(V, check_received=False)


@pytest.fixture(params=["memory", "stdio"])
async def peer(request: pytest.FixtureRequest, wire: Wire) -> AsyncIterator[Peer]:
    """A modern client of :func:`make_app`, in this process or in a child over stdio."""
    if request.param == "memory":
        app = make_app()
        client_end, server_end = MemoryTransport.pair()
        async with app.running():
            session = app.session(server_end, tracer=server_checker(wire))
            await session.start()
            p = Peer(client_end, wire(V))
            await p.start()
            try:
                yield p
            finally:
                await session.close()
        return
    transport = StdioClientTransport(sys.executable, [str(APP_SCRIPT)], env=server_env())
    p = Peer(transport, wire(V))
    await p.start()
    try:
        yield p
    finally:
        await transport.close()


@pytest.fixture
async def local(wire: Wire) -> AsyncIterator[tuple[Server, Peer]]:
    """A modern client of :func:`make_app` in memory, with the app at hand."""
    app = make_app()
    client_end, server_end = MemoryTransport.pair()
    async with app.running():
        session = app.session(server_end, tracer=server_checker(wire))
        await session.start()
        p = Peer(client_end, wire(V))
        await p.start()
        try:
            yield app, p
        finally:
            await session.close()


def no_response(peer: Peer, rid: Any) -> bool:
    return not [m for m in peer.inbox if "method" not in m and m.get("id") == rid]


async def test_ack_first_then_a_registration(peer: Peer) -> None:
    ack = await peer.listen(1, toolsListChanged=True)
    assert peer.frames(1)[0] is ack
    assert ack["params"] == {
        "_meta": {SUBSCRIPTION_ID_KEY: 1},
        "notifications": {"toolsListChanged": True},
    }
    assert (await peer.call(2, "add_tool", name="fresh"))["content"][0]["text"] == "added fresh"
    note = await peer.frame(1, TOOLS_CHANGED)
    assert note["params"] == {"_meta": {SUBSCRIPTION_ID_KEY: 1}}
    peer.send(request(3, "tools/list"))
    listed = await peer.response(3)
    assert "fresh" in [t["name"] for t in listed["result"]["tools"]]
    assert no_response(peer, 1)  # the listen stays open
    assert [m["method"] for m in peer.frames(1)] == [ACK, TOOLS_CHANGED]
    assert peer.untagged() == []


async def test_announced_list_changes_and_resource_updates(peer: Peer) -> None:
    ack = await peer.listen(
        "watch",
        promptsListChanged=True,
        resourcesListChanged=True,
        resourceSubscriptions=["test://watched"],
    )
    assert ack["params"]["notifications"] == {
        "promptsListChanged": True,
        "resourcesListChanged": True,
        "resourceSubscriptions": ["test://watched"],
    }
    await peer.call(1, "announce", kind="prompts")
    await peer.frame("watch", PROMPTS_CHANGED)
    await peer.call(2, "touch", uri="test://elsewhere")
    await peer.call(3, "touch", uri="test://watched")
    updated = await peer.frame("watch", UPDATED)
    assert updated["params"] == {"_meta": {SUBSCRIPTION_ID_KEY: "watch"}, "uri": "test://watched"}
    await peer.call(4, "announce", kind="resources")
    await peer.call(5, "announce", kind="tools")  # not asked for
    await peer.frame("watch", RESOURCES_CHANGED)
    await peer.call(6, "add_prompt", name="late")
    # Every event reaches a stream in the order it was published: the fifth frame is the
    # prompt registered last, so the tools change and the other URI's update never came.
    frames = await peer.stream("watch", 5)
    methods = [m["method"] for m in frames]
    assert methods == [ACK, PROMPTS_CHANGED, UPDATED, RESOURCES_CHANGED, PROMPTS_CHANGED]
    await peer.call(7, "announce", kind="prompts")
    assert len(await peer.stream("watch", 6)) == 6
    assert [m for m in peer.inbox if m.get("params", {}).get("uri") == "test://elsewhere"] == []


async def test_filters_of_two_listens_at_once(peer: Peer) -> None:
    await peer.listen("prompts", promptsListChanged=True)
    await peer.listen("tools", toolsListChanged=True)
    await peer.call(1, "add_tool", name="t1")
    await peer.frame("tools", TOOLS_CHANGED)
    await peer.call(2, "add_prompt", name="p1")
    await peer.frame("prompts", PROMPTS_CHANGED)
    await peer.call(3, "announce", kind="tools")
    await peer.stream("tools", 3)
    await peer.call(4, "announce", kind="prompts")
    await peer.stream("prompts", 3)
    # A prompts-only listen never got a tools change (the tools changes were published
    # before the last prompts change, which it did get); and the other way round.
    assert [m["method"] for m in peer.frames("prompts")] == [ACK] + [PROMPTS_CHANGED] * 2
    assert [m["method"] for m in peer.frames("tools")] == [ACK] + [TOOLS_CHANGED] * 2
    assert peer.untagged() == []


async def test_cancelling_one_listen_leaves_the_other(peer: Peer) -> None:
    await peer.listen("a", toolsListChanged=True)
    await peer.listen("b", toolsListChanged=True)
    peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}})
    await peer.call(1, "add_tool", name="after_cancel")
    await peer.stream("b", 2)
    await peer.listen("c", toolsListChanged=True)
    await peer.call(2, "announce", kind="tools")
    await peer.stream("c", 2)
    assert [m["method"] for m in peer.frames("a")] == [ACK]
    assert no_response(peer, "a")  # a cancelled request gets no response
    assert len(peer.frames("b")) == 3


async def test_a_bad_filter_is_refused_and_the_connection_lives_on(peer: Peer) -> None:
    invalid = (
        request(1, "subscriptions/listen"),
        listen_request(2, toolsListChanged="yes"),
        listen_request(3, resourceSubscriptions="test://watched"),
    )
    for msg in invalid:
        peer.transport.write(msg)  # deliberately invalid: not schema-checked on the way out
        error = (await peer.response(msg["id"]))["error"]
        assert error["code"] == -32602 and "notifications" in error["message"]
    await peer.listen(4, toolsListChanged=True)
    await peer.call(5, "announce", kind="tools")
    await peer.frame(4, TOOLS_CHANGED)


async def test_the_server_ends_listens_gracefully(local: tuple[Server, Peer]) -> None:
    app, peer = local
    await peer.listen(7, toolsListChanged=True)
    await peer.listen("other", promptsListChanged=True)
    await app.end_listens()
    for sid in (7, "other"):
        result = (await peer.response(sid))["result"]
        assert result["resultType"] == "complete"
        assert result["_meta"][SUBSCRIPTION_ID_KEY] == sid
        assert result["_meta"][SERVER_INFO_KEY] == {"name": "listen-test", "version": "1.0.0"}
        assert set(result) == {"resultType", "_meta"}
    assert len(app.relay.local) == 0
    app.notify_list_changed("tools")
    await peer.listen(8, toolsListChanged=True)  # a new listen after the end is served
    app.notify_list_changed("tools")
    assert [m["method"] for m in await peer.stream(8, 2)] == [ACK, TOOLS_CHANGED]
    assert [m["method"] for m in peer.frames(7)] == [ACK]


async def test_only_declared_capabilities_are_honoured(wire: Wire) -> None:
    app = Server("tools-only")

    @app.tool()
    def one() -> str:
        return "1"

    client_end, server_end = MemoryTransport.pair()
    async with app.running():
        session = app.session(server_end, tracer=server_checker(wire))
        await session.start()
        peer = Peer(client_end, wire(V))
        await peer.start()
        peer.send(request(1, "server/discover"))
        caps = (await peer.response(1))["result"]["capabilities"]
        assert caps["tools"] == {"listChanged": True}
        assert "prompts" not in caps and "resources" not in caps
        ack = await peer.listen(
            2,
            toolsListChanged=True,
            promptsListChanged=True,
            resourcesListChanged=True,
            resourceSubscriptions=["test://x"],
        )
        assert ack["params"]["notifications"] == {"toolsListChanged": True}
        app.notify_list_changed("prompts")
        app.notify_resource_updated("test://x")
        app.notify_list_changed("resources")
        app.notify_list_changed("tools")
        await peer.frame(2, TOOLS_CHANGED)
        assert [m["method"] for m in peer.frames(2)] == [ACK, TOOLS_CHANGED]
        await session.close()


async def test_discover_declares_what_listen_serves(local: tuple[Server, Peer]) -> None:
    _, peer = local
    peer.send(request(1, "server/discover"))
    caps = (await peer.response(1))["result"]["capabilities"]
    assert caps["tools"] == {"listChanged": True}
    assert caps["prompts"] == {"listChanged": True}
    assert caps["resources"] == {"listChanged": True, "subscribe": True}


def test_notify_list_changed_names_a_list() -> None:
    with pytest.raises(ValueError, match="tools, prompts, resources"):
        make_app().notify_list_changed("resource_updated")  # type: ignore[arg-type]
