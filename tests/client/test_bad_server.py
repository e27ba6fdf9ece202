"""A broken server, case by case: the client reports a clear error for the affected call,
keeps the session where the spec allows, and never hangs.

Two fakes: a :class:`FakePeer` on an in-memory transport that the test drives message by
message, and ``scripted_server.py``, a real subprocess answering from a script (stdio).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import orjson
import pytest

from mcpkit.client import (
    Client,
    ClientHooks,
    InvalidServerResponse,
    ProtocolOptions,
    StdioOptions,
    URLElicitationRequired,
)
from mcpkit.errors import ConnectionClosed, McpError, ProcessExited, RequestTimeout
from mcpkit.transports import MemoryTransport
from tests.conftest import ROOT, server_env

INIT_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}, "logging": {}},
    "serverInfo": {"name": "fake", "version": "0"},
}


class FakePeer:
    """The server end of a memory pair, driven by the test."""

    def __init__(self, init_result: Any = INIT_RESULT) -> None:
        self.client_end, self.end = MemoryTransport.pair()
        self.init_result = init_result
        self.inbox: asyncio.Queue[Any] = asyncio.Queue()
        self.lost = asyncio.Event()

    async def start(self) -> None:
        await self.end.start(self)

    # MessageSink
    def receive_bytes(self, data: bytes) -> None:
        self.receive(orjson.loads(data))

    def receive(self, msg: Any) -> None:
        if isinstance(msg, dict) and msg.get("method") == "initialize" and self.init_result:
            self.reply(msg["id"], self.init_result)
            return
        if isinstance(msg, dict) and msg.get("method") == "notifications/initialized":
            return
        self.inbox.put_nowait(msg)

    def connection_lost(self, exc: BaseException | None) -> None:
        self.lost.set()

    # driving
    async def next(self, method: str | None = None) -> Any:
        while True:
            msg = await asyncio.wait_for(self.inbox.get(), 5)
            if method is None or msg.get("method") == method:
                return msg

    def send(self, msg: Any) -> None:
        self.end.write(msg)

    def raw(self, data: bytes) -> None:
        self.end.write_bytes(data)

    def reply(self, rid: Any, result: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})


@pytest.fixture
async def fake(wire: Any) -> Any:
    peers: list[tuple[FakePeer, Client]] = []

    async def make(peer: FakePeer | None = None, **kwargs: Any) -> tuple[FakePeer, Client]:
        peer = peer or FakePeer()
        await peer.start()
        kwargs.setdefault("tracer", wire(check_received=False))
        kwargs.setdefault("era", "legacy")  # the fake peer scripts the handshake
        client = Client(peer.client_end, **kwargs)
        await client.connect()
        peers.append((peer, client))
        return peer, client

    yield make
    for _, client in peers:
        await client.close()


async def answer(peer: FakePeer, method: str, result: Any) -> None:
    msg = await peer.next(method)
    peer.reply(msg["id"], result)


async def test_result_not_matching_the_request(fake: Any) -> None:
    peer, c = await fake()
    call = asyncio.ensure_future(c.list_tools())
    await answer(peer, "tools/list", {"tools": [{"name": 1}]})
    with pytest.raises(InvalidServerResponse, match="tools/list") as info:
        await call
    assert isinstance(info.value, McpError) and info.value.errors
    call2 = asyncio.ensure_future(c.call_tool("x"))
    await answer(peer, "tools/call", {"content": "not a list"})
    with pytest.raises(InvalidServerResponse, match="tools/call"):
        await call2
    # the session is intact
    ping = asyncio.ensure_future(c.ping())
    await answer(peer, "ping", {})
    await ping


async def test_wrong_shape_results_for_each_call(fake: Any) -> None:
    peer, c = await fake(protocol=ProtocolOptions(validate_output=False))
    cases: list[tuple[Any, str, Any]] = [
        (c.call_tool("t"), "tools/call", {"content": [{"type": "nope"}]}),
        (c.list_tools_page(), "tools/list", {"tools": "x"}),
        (c.call_tool("t"), "tools/call", []),
        (c.call_tool("t"), "tools/call", "just a string"),
        (c.ping(), "ping", "pong"),
        (c.set_logging_level("info"), "logging/setLevel", 3),
    ]
    for coro, method, bad in cases:
        task = asyncio.ensure_future(coro)
        await answer(peer, method, bad)
        with pytest.raises(InvalidServerResponse):
            await task


async def test_malformed_json_and_unknown_ids_never_hang(fake: Any) -> None:
    peer, c = await fake(timeout=0.3)
    call = asyncio.ensure_future(c.call_tool("t"))
    msg = await peer.next("tools/call")
    peer.raw(b'{"jsonrpc": "2.0", "id": ' + str(msg["id"]).encode() + b', "result": {')
    peer.reply(12345, {"content": []})  # unknown id: dropped
    peer.send({"jsonrpc": "2.0", "id": "zzz", "error": {"code": -1, "message": "?"}})
    with pytest.raises(RequestTimeout):
        await call
    parse_error = await peer.next()
    assert parse_error["error"]["code"] == -32700 and parse_error["id"] is None
    # the timed-out call was cancelled at the server, and the session still works
    cancelled = await peer.next("notifications/cancelled")
    assert cancelled["params"]["requestId"] == msg["id"]
    call = asyncio.ensure_future(c.call_tool("t"))
    await answer(peer, "tools/call", {"content": [{"type": "text", "text": "ok"}]})
    await answer(peer, "tools/list", {"tools": []})  # the client learns the output schemas
    assert (await call).content[0].text == "ok"  # type: ignore[union-attr]


async def test_malformed_error_object(fake: Any) -> None:
    peer, c = await fake()
    call = asyncio.ensure_future(c.ping())
    msg = await peer.next("ping")
    peer.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": "x", "message": 5}})
    with pytest.raises(McpError) as info:
        await call
    assert info.value.code == -32603 and "Malformed" in info.value.message


async def test_bad_notifications_are_dropped(fake: Any) -> None:
    logs: list[Any] = []
    updated: list[str] = []
    everything: list[str] = []
    peer, c = await fake(
        on_log=logs.append,
        hooks=ClientHooks(on_resource_updated=updated.append),
        on_notification=lambda m, p: everything.append(m),
    )
    peer.send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud"}})
    peer.send({"jsonrpc": "2.0", "method": "notifications/message", "params": "x"})
    peer.send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {}})
    peer.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": "a"}})
    peer.send({"jsonrpc": "2.0", "method": "notifications/elicitation/complete"})
    peer.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": []}})
    peer.send({"jsonrpc": "2.0", "method": "x/unknown", "params": {"a": 1}})
    peer.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": 1},
        }
    )
    call = asyncio.ensure_future(c.ping())
    await answer(peer, "ping", {})
    await call
    assert [log.data for log in logs] == [1]
    assert updated == []
    assert "x/unknown" in everything and len(everything) == 7  # params "x": not a notification


async def test_server_requests_for_undeclared_or_bad_params(fake: Any) -> None:
    def elicit(params: Any, ctx: Any) -> str:
        return "decline"

    peer, _ = await fake(elicitation_handler=elicit)
    nested = {"type": "object", "properties": {"o": {"type": "object"}}}
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": "e1",
            "method": "elicitation/create",
            "params": {"message": "x", "requestedSchema": nested},
        }
    )
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": "e2",
            "method": "elicitation/create",
            "params": {"mode": "url", "message": "x", "url": "https://a", "elicitationId": "i"},
        }
    )
    peer.send({"jsonrpc": "2.0", "id": "e3", "method": "elicitation/create", "params": {}})
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": "s1",
            "method": "sampling/createMessage",
            "params": {"messages": [], "maxTokens": 1},
        }
    )
    peer.send({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
    replies = {}
    for _ in range(5):
        msg = await peer.next()
        replies[msg["id"]] = msg
    assert replies["e1"]["error"]["code"] == -32602
    assert replies["e2"]["error"]["code"] == -32602  # URL mode not declared
    assert replies["e3"]["error"]["code"] == -32602
    assert replies["s1"]["error"]["code"] == -32601  # no sampling handler
    assert replies["r1"]["error"]["code"] == -32601  # no roots


async def test_sampling_bad_params_and_bad_handler_result(fake: Any) -> None:
    def sample(params: Any, ctx: Any) -> Any:
        return {"role": "robot"}  # not a CreateMessageResult

    peer, _ = await fake(sampling_handler=sample)
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {}})
    msg = await peer.next()
    assert msg["id"] == 1 and msg["error"]["code"] == -32602
    good = {
        "messages": [{"role": "user", "content": {"type": "text", "text": "q"}}],
        "maxTokens": 1,
    }
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "sampling/createMessage", "params": good})
    msg = await peer.next()
    assert msg["id"] == 2 and msg["error"]["code"] == -32603


async def test_pagination_loop_is_an_error(fake: Any) -> None:
    peer, c = await fake()
    call = asyncio.ensure_future(c.list_tools())
    await answer(peer, "tools/list", {"tools": [], "nextCursor": "a"})
    await answer(peer, "tools/list", {"tools": [], "nextCursor": "b"})
    await answer(peer, "tools/list", {"tools": [], "nextCursor": "a"})
    with pytest.raises(InvalidServerResponse, match="pagination loop"):
        await call


async def test_url_elicitation_error_with_malformed_data(fake: Any) -> None:
    peer, c = await fake(protocol=ProtocolOptions(validate_output=False))
    call = asyncio.ensure_future(c.call_tool("t"))
    msg = await peer.next("tools/call")
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": msg["id"],
            "error": {"code": -32042, "message": "need", "data": {"elicitations": [{"x": 1}]}},
        }
    )
    with pytest.raises(URLElicitationRequired) as info:
        await call
    assert info.value.elicitations == []


async def test_invalid_server_info_is_tolerated(fake: Any) -> None:
    init = {**INIT_RESULT, "serverInfo": {"name": 5}, "capabilities": {"tools": "yes"}}
    peer, c = await fake(FakePeer(init))
    assert c.protocol_version == "2025-11-25"
    call = asyncio.ensure_future(c.ping())
    await answer(peer, "ping", {})
    await call


@pytest.mark.parametrize(
    "init",
    [
        {**INIT_RESULT, "protocolVersion": "1999-01-01"},
        {**INIT_RESULT, "protocolVersion": None},
        "not an object",
    ],
)
async def test_bad_initialize_result_fails_connect(wire: Any, init: Any) -> None:
    peer = FakePeer(init)
    await peer.start()
    c = Client(peer.client_end, tracer=wire(check_received=False), era="legacy")
    with pytest.raises(McpError) as info:
        await c.connect()
    assert "protocol version" in info.value.message or "malformed" in info.value.message
    assert not c.connected
    await asyncio.wait_for(peer.lost.wait(), 5)


# -- the scripted stdio server ----------------------------------------------------------------


def scripted(script: dict[str, Any], **kwargs: Any) -> Client:
    return Client(
        [sys.executable, "-m", "tests.client.scripted_server"],
        connection=StdioOptions(env=server_env(SCRIPT=json.dumps(script)), cwd=str(ROOT)),
        **kwargs,
    )


async def test_stdio_malformed_and_mismatched_results(wire: Any) -> None:
    script = {
        "tools/list": [
            {"raw": "this is not json"},
            {"result": {"tools": [{"name": "x"}]}},
            {"result": {"tools": [{"name": "x", "inputSchema": {"type": "object"}}]}},
        ],
        "tools/call": [
            {
                "notify": {"jsonrpc": "2.0", "method": "notifications/message", "params": 3},
                "raw": '{"jsonrpc": "2.0", "id": 999, "result": {}}',
            },
            {"result": {"content": [{"type": "text", "text": "fine"}]}},
        ],
    }
    async with scripted(script, tracer=wire(check_received=False), timeout=0.5) as c:
        with pytest.raises(RequestTimeout):
            await c.list_tools()  # the answer was garbage: the call times out, nothing hangs
        with pytest.raises(InvalidServerResponse):
            await c.list_tools()  # inputSchema missing
        assert [t.name for t in await c.list_tools()] == ["x"]
        with pytest.raises(RequestTimeout):
            await c.call_tool("x")  # answered with a wrong id
        assert (await c.call_tool("x")).content[0].text == "fine"  # type: ignore[union-attr]


async def test_stdio_wrong_protocol_version(wire: Any) -> None:
    init = {"protocolVersion": "2099-01-01", "capabilities": {}, "serverInfo": {"name": "s"}}
    c = scripted({"initialize": [{"result": init}]}, tracer=wire(check_received=False))
    with pytest.raises(McpError, match="2099-01-01"):
        async with c:
            pass
    assert not c.connected


async def test_stdio_server_exits_mid_call(wire: Any) -> None:
    script = {"tools/call": [{"exit": 7, "stderr": "boom: out of memory\n"}]}
    async with scripted(
        script,
        tracer=wire(check_received=False),
        protocol=ProtocolOptions(validate_output=False),
    ) as c:
        with pytest.raises(ProcessExited) as info:
            await c.call_tool("x")
        assert info.value.returncode == 7 and "out of memory" in info.value.stderr_tail
        assert isinstance(info.value, ConnectionClosed)
        with pytest.raises(ConnectionClosed):
            await c.ping()


async def test_stdio_server_dies_during_initialize(wire: Any) -> None:
    c = scripted({"initialize": [{"exit": 2, "stderr": "bad config\n"}]}, tracer=wire())
    with pytest.raises(ProcessExited, match="bad config"):
        await c.connect()


async def test_command_not_found(wire: Any) -> None:
    c = Client("/nonexistent/mcp-server --flag", tracer=wire())
    with pytest.raises(ConnectionClosed, match="Could not start"):
        await c.connect()
    assert not c.connected
