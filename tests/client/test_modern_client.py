"""The Client on the stateless 2026-07-28 wire, against a scripted modern server: the era
choice, the envelope, the MRTR loop, the response cache, listen and the typed errors."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from mcpkit.client import Client, ClientHooks, ProtocolOptions
from mcpkit.client.cache import MemoryResponseCache
from mcpkit.client.mrtr import InputRoundsExceeded
from mcpkit.errors import MissingClientCapability, UnsupportedProtocolVersion
from mcpkit.transports import MemoryTransport

V = "2026-07-28"
META = "io.modelcontextprotocol/"
DISCOVER = {
    "resultType": "complete",
    "supportedVersions": [V],
    "capabilities": {"tools": {"listChanged": True}, "resources": {}},
    "instructions": "Be brief.",
    "ttlMs": 0,
    "cacheScope": "public",
    "_meta": {f"{META}serverInfo": {"name": "scripted", "version": "2"}},
}
Handler = Callable[[dict[str, Any]], Any]


class ModernPeer:
    """The server end of a memory pair answering each request with ``handlers[method]``
    (a result dict, or ``("error", code, message, data)``); records what it received."""

    def __init__(self, **handlers: Handler) -> None:
        self.client_end, self.end = MemoryTransport.pair()
        self.handlers: dict[str, Handler] = {"server/discover": lambda m: DISCOVER}
        self.handlers.update({k.replace("__", "/"): v for k, v in handlers.items()})
        self.received: list[dict[str, Any]] = []

    async def start(self) -> None:
        await self.end.start(self)

    def receive_bytes(self, data: bytes) -> None:
        self.receive(orjson.loads(data))

    def receive(self, msg: Any) -> None:
        self.received.append(msg)
        if "id" not in msg or "method" not in msg:
            return
        handler = self.handlers.get(msg["method"])
        if handler is None:
            self.send(
                {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}
            )
            return
        answer = handler(msg)
        if answer is None:
            return  # answered later (or never) by the test
        if isinstance(answer, tuple):
            _, code, message, data = answer
            error = {"code": code, "message": message, "data": data}
            self.send({"jsonrpc": "2.0", "id": msg["id"], "error": error})
            return
        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": answer})

    def send(self, msg: Any) -> None:
        self.end.write(msg)

    def connection_lost(self, exc: BaseException | None) -> None:
        return None

    def sent(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.received if m.get("method") == method]


async def connect(peer: ModernPeer, wire: Any, **kwargs: Any) -> Client:
    await peer.start()
    kwargs.setdefault("tracer", wire(V, check_received=False))
    client = Client(peer.client_end, era=kwargs.pop("era", V), **kwargs)
    await client.connect()
    return client


def tools_page(ttl: int = 60_000, scope: str = "public", name: str = "t") -> Handler:
    def answer(msg: dict[str, Any]) -> Any:
        return {
            "resultType": "complete",
            "tools": [{"name": name, "inputSchema": {"type": "object"}}],
            "ttlMs": ttl,
            "cacheScope": scope,
        }

    return answer


def done(text: str) -> dict[str, Any]:
    return {"resultType": "complete", "content": [{"type": "text", "text": text}]}


async def test_discover_fills_the_connection_facts_and_every_request_has_the_envelope(
    wire: Any,
) -> None:
    peer = ModernPeer(tools__list=tools_page())
    c = await connect(peer, wire, roots=["file:///tmp"], client_info={"name": "me", "version": "1"})
    try:
        assert c.modern and c.protocol_version == V
        assert c.server_info.name == "scripted" and c.instructions == "Be brief."
        assert c.supports("tools", "listChanged")
        await c.set_logging_level("warning")  # no logging/setLevel: a per-request field
        await c.list_tools()
        await c.ping()  # no ping on the modern wire: server/discover
        assert not peer.sent("initialize") and not peer.sent("ping")
        assert not peer.sent("logging/setLevel")
        for msg in peer.received:
            meta = msg["params"]["_meta"]
            assert meta[f"{META}protocolVersion"] == V
            assert meta[f"{META}clientCapabilities"] == {"roots": {"listChanged": True}}
            assert meta[f"{META}clientInfo"] == {"name": "me", "version": "1"}
        assert f"{META}logLevel" not in peer.sent("server/discover")[0]["params"]["_meta"]
        assert peer.sent("tools/list")[0]["params"]["_meta"][f"{META}logLevel"] == "warning"
        assert len(peer.sent("server/discover")) == 2
    finally:
        await c.close()


async def test_auto_falls_back_to_initialize_on_a_legacy_answer(wire: Any) -> None:
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "old", "version": "1"},
    }
    peer = ModernPeer(
        server__discover=lambda m: ("error", -32600, "Session not initialized", None),
        initialize=lambda m: init,
    )
    peer.handlers["notifications/initialized"] = lambda m: None
    c = await connect(peer, wire, era="auto", tracer=wire(check_received=False))
    try:
        assert not c.modern and c.protocol_version == "2025-11-25"
        assert c.server_info.name == "old"
        assert len(peer.sent("initialize")) == 1
    finally:
        await c.close()


async def test_pinned_modern_refuses_a_legacy_server(wire: Any) -> None:
    peer = ModernPeer(server__discover=lambda m: ("error", -32601, "Method not found", None))
    with pytest.raises(UnsupportedProtocolVersion, match="does not speak 2026-07-28"):
        await connect(peer, wire)


async def test_an_unsupported_version_is_retried_once_then_typed(wire: Any) -> None:
    refusal = ("error", -32022, "Unsupported protocol version", {"supported": [V], "requested": V})
    peer = ModernPeer(server__discover=lambda m: refusal)
    with pytest.raises(UnsupportedProtocolVersion) as info:
        await connect(peer, wire)
    assert info.value.supported == [V]
    assert len(peer.sent("server/discover")) == 2  # the one retry


def elicit_then_finish(state: str | None) -> Handler:
    """tools/call: input_required until the retry carries the answer (and the state)."""

    def answer(msg: dict[str, Any]) -> Any:
        params = msg["params"]
        if "inputResponses" not in params:
            result: dict[str, Any] = {
                "resultType": "input_required",
                "inputRequests": {
                    "who": {
                        "method": "elicitation/create",
                        "params": {
                            "mode": "form",
                            "message": f"name for {params['name']}?",
                            "requestedSchema": {
                                "type": "object",
                                "properties": {"name": {"type": "string"}},
                            },
                        },
                    }
                },
            }
            if state is not None:
                result["requestState"] = state + params["name"]
            return result
        return done(params["inputResponses"]["who"]["content"]["name"])

    return answer


@pytest.mark.parametrize("state", ["opaque-", None])
async def test_mrtr_answers_with_the_handlers_and_keeps_parallel_calls_apart(
    wire: Any, state: str | None
) -> None:
    peer = ModernPeer(tools__call=elicit_then_finish(state))

    async def handler(params: Any, ctx: Any) -> dict[str, Any]:
        await asyncio.sleep(0.01 if "a?" in params.message else 0)
        return {"action": "accept", "content": {"name": params.message.split()[-1]}}

    c = await connect(peer, wire, elicitation_handler=handler)
    try:
        a, b = await asyncio.gather(c.call_tool("a"), c.call_tool("b"))
        assert a.content[0].text == "a?" and b.content[0].text == "b?"  # type: ignore[union-attr]
        calls = peer.sent("tools/call")
        assert len(calls) == 4 and len({m["id"] for m in calls}) == 4
        for retry in (m for m in calls if "inputResponses" in m["params"]):
            name = retry["params"]["name"]
            if state is None:
                assert "requestState" not in retry["params"]
            else:
                assert retry["params"]["requestState"] == state + name
    finally:
        await c.close()


async def test_mrtr_rounds_are_bounded_and_the_raw_result_can_be_had(wire: Any) -> None:
    endless = {"resultType": "input_required", "requestState": "again"}
    peer = ModernPeer(tools__call=lambda m: endless)
    c = await connect(peer, wire, protocol=ProtocolOptions(max_input_rounds=2))
    try:
        with pytest.raises(InputRoundsExceeded):
            await c.call_tool("x")
        assert len(peer.sent("tools/call")) == 3
        raw = await c.request("tools/call", {"name": "x"}, mrtr=False)
        assert raw == endless
    finally:
        await c.close()


async def test_missing_capability_is_typed(wire: Any) -> None:
    required = {"requiredCapabilities": {"sampling": {}}}
    peer = ModernPeer(tools__call=lambda m: ("error", -32021, "Missing capability", required))
    c = await connect(peer, wire)
    try:
        with pytest.raises(MissingClientCapability) as info:
            await c.call_tool("x")
        assert info.value.required == {"sampling": {}}
    finally:
        await c.close()


async def test_cache_policies_and_eviction(wire: Any) -> None:
    peer = ModernPeer(tools__list=tools_page())
    c = await connect(peer, wire)
    try:
        await c.list_tools()
        await c.list_tools()
        assert len(peer.sent("tools/list")) == 1  # fresh: served from the cache
        await c.list_tools(cache="refresh")
        await c.list_tools(cache="bypass")
        assert len(peer.sent("tools/list")) == 3
        await c.list_tools()
        assert len(peer.sent("tools/list")) == 3
        peer.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        await asyncio.sleep(0.05)
        await c.list_tools()
        assert len(peer.sent("tools/list")) == 4  # the notification made it stale
    finally:
        await c.close()


async def test_zero_ttl_and_input_required_results_are_not_cached(wire: Any) -> None:
    rounds = itertools.count()

    def read(msg: dict[str, Any]) -> Any:
        if "requestState" not in msg["params"] and next(rounds) % 2 == 0:
            return {"resultType": "input_required", "requestState": "s"}
        contents = [{"uri": msg["params"]["uri"], "text": "x"}]
        return {"resultType": "complete", "contents": contents, "ttlMs": 60_000}

    peer = ModernPeer(tools__list=tools_page(ttl=0), resources__read=read)
    c = await connect(peer, wire)
    try:
        await c.list_tools()
        await c.list_tools()
        assert len(peer.sent("tools/list")) == 2
        await c.read_resource("file:///a")  # needed a round: not stored
        await c.read_resource("file:///a")
        assert len(peer.sent("resources/read")) == 3
    finally:
        await c.close()


async def test_private_entries_are_not_shared_public_ones_are(wire: Any) -> None:
    store = MemoryResponseCache()
    counts: dict[str, int] = {}
    for scope in ("private", "public"):
        for _ in range(2):
            peer = ModernPeer(tools__list=tools_page(scope=scope, name=scope))
            c = await connect(peer, wire, cache=store)
            c.target = "one-server"  # the same target for both clients
            try:
                await c.list_tools()
            finally:
                await c.close()
            counts[scope] = counts.get(scope, 0) + len(peer.sent("tools/list"))
    assert counts == {"private": 2, "public": 1}


async def test_listen_waits_for_the_acknowledgment_and_demultiplexes(wire: Any) -> None:
    peer = ModernPeer(tools__list=tools_page())
    opened: list[Any] = []

    def listen(msg: dict[str, Any]) -> None:
        opened.append(msg)
        ack = {
            "_meta": {f"{META}subscriptionId": msg["id"]},
            "notifications": msg["params"]["notifications"],
        }
        peer.send(
            {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": ack}
        )

    peer.handlers["subscriptions/listen"] = listen
    changed: list[str] = []
    c = await connect(peer, wire, hooks=ClientHooks(on_list_changed=changed.append))
    try:
        await c.list_tools()
        async with c.listen(tools=True) as tools, c.listen(resources=["file:///a"]) as files:
            assert tools.acknowledged == {"toolsListChanged": True}
            assert files.acknowledged == {"resourceSubscriptions": ["file:///a"]}
            assert tools.subscription_id != files.subscription_id
            for sid, method, extra in (
                (files.subscription_id, "notifications/resources/updated", {"uri": "file:///a"}),
                (tools.subscription_id, "notifications/tools/list_changed", {}),
            ):
                params = {"_meta": {f"{META}subscriptionId": sid}, **extra}
                peer.send({"jsonrpc": "2.0", "method": method, "params": params})
            got_tools = await asyncio.wait_for(tools.__anext__(), 5)
            got_file = await asyncio.wait_for(files.__anext__(), 5)
            assert got_tools.method == "notifications/tools/list_changed"
            assert got_file.uri == "file:///a"
        assert changed == ["tools"]  # the hooks see listen events too
        await c.list_tools()
        assert len(peer.sent("tools/list")) == 2  # ... and the cache was evicted
        # the two streams were ended; the one the on_list_changed hook needs stays open
        assert opened[0]["params"]["notifications"] == {"toolsListChanged": True}
        cancelled = {m["params"]["requestId"] for m in peer.sent("notifications/cancelled")}
        assert cancelled == {tools.subscription_id, files.subscription_id}
    finally:
        await c.close()


async def test_listen_on_a_legacy_server_maps_to_the_session(wire: Any) -> None:
    from mcpkit import Server

    app = Server("legacy-listen")

    @app.tool()
    async def extra() -> str:
        return "extra"

    @app.tool()
    async def change() -> str:
        app.remove_tool("extra")
        return "ok"

    async with Client(app, era="legacy", tracer=wire()) as c:
        async with c.listen(tools=True) as events:
            await c.call_tool("change")
            event = await asyncio.wait_for(events.__anext__(), 5)
            assert event.method == "notifications/tools/list_changed"
