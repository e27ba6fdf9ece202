"""A bare 2026-07-28 JSON-RPC client for the ``subscriptions/listen`` tests: it sends raw
requests with the ``_meta`` envelope over any transport (in memory, stdio), keeps every
message it receives, checks each against the schema (tests/wire.py), and waits for the
ones a test expects, demultiplexed by subscription id."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import orjson

from mcpkit.envelope import SUBSCRIPTION_ID_KEY
from mcpkit.transports.base import Transport
from tests.wire import WireChecker

V = "2026-07-28"
ACK = "notifications/subscriptions/acknowledged"
TOOLS_CHANGED = "notifications/tools/list_changed"
PROMPTS_CHANGED = "notifications/prompts/list_changed"
RESOURCES_CHANGED = "notifications/resources/list_changed"
UPDATED = "notifications/resources/updated"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientInfo": {"name": "listen-test-client", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def request(rid: Any, method: str, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}}


def listen_request(rid: Any, **notifications: Any) -> dict[str, Any]:
    return request(rid, "subscriptions/listen", notifications=notifications)


def subscription_of(msg: Any) -> Any:
    """The subscription id a notification or a listen's closing result is tagged with."""
    body = msg.get("params") if "method" in msg else msg.get("result")
    meta = body.get("_meta") if isinstance(body, dict) else None
    return meta.get(SUBSCRIPTION_ID_KEY) if isinstance(meta, dict) else None


class Peer:
    """The client end: ``send`` raw messages, ``wait_for`` what comes back."""

    def __init__(self, transport: Transport, checker: WireChecker) -> None:
        self.transport = transport
        self.checker = checker
        self.inbox: list[Any] = []
        self.lost = False
        self._arrived = asyncio.Event()

    async def start(self) -> None:
        await self.transport.start(self)

    # -- MessageSink ---------------------------------------------------------------------------

    def receive_bytes(self, data: bytes) -> None:
        self.receive(orjson.loads(data))

    def receive(self, message: Any) -> None:
        self.checker("recv", message)
        self.inbox.append(message)
        self._arrived.set()

    def connection_lost(self, exc: BaseException | None) -> None:
        self.lost = True
        self._arrived.set()

    # -- driving -------------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        self.checker("send", message)
        self.transport.write(message)

    async def wait_for(self, match: Callable[[Any], bool], timeout: float = 10) -> Any:
        """The first message received that ``match`` accepts (waiting up to ``timeout``)."""
        async with asyncio.timeout(timeout):
            while True:
                for msg in self.inbox:
                    if match(msg):
                        return msg
                if self.lost:
                    raise ConnectionError("the server went away")
                self._arrived.clear()
                await self._arrived.wait()

    async def response(self, rid: Any, timeout: float = 10) -> Any:
        return await self.wait_for(lambda m: "method" not in m and m.get("id") == rid, timeout)

    async def call(self, rid: Any, tool: str, **arguments: Any) -> Any:
        """``tools/call``; the result (the test fails on an error)."""
        self.send(request(rid, "tools/call", name=tool, arguments=arguments))
        answer = await self.response(rid)
        assert "result" in answer, answer
        return answer["result"]

    async def listen(self, rid: Any, **notifications: Any) -> Any:
        """Open a listen stream; its acknowledgment."""
        self.send(listen_request(rid, **notifications))
        return await self.frame(rid, ACK)

    async def frame(self, sid: Any, method: str, timeout: float = 10, **params: Any) -> Any:
        """The first ``method`` notification on stream ``sid`` (with these params)."""

        def match(m: Any) -> bool:
            return (
                m.get("method") == method
                and subscription_of(m) == sid
                and all(m["params"].get(k) == v for k, v in params.items())
            )

        return await self.wait_for(match, timeout)

    def frames(self, sid: Any) -> list[Any]:
        """Every notification received on stream ``sid``, in order."""
        return [m for m in self.inbox if "method" in m and subscription_of(m) == sid]

    async def stream(self, sid: Any, n: int, timeout: float = 10) -> list[Any]:
        """The first ``n`` notifications on stream ``sid``, once that many arrived."""
        await self.wait_for(lambda _m: len(self.frames(sid)) >= n, timeout)
        return self.frames(sid)[:n]

    def untagged(self) -> list[Any]:
        """Notifications that belong to no listen stream (a modern client gets none)."""
        return [m for m in self.inbox if "method" in m and subscription_of(m) is None]
