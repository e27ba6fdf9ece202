"""A raw modern-era client for tests: writes JSON-RPC requests carrying the 2026-07-28
``_meta`` envelope to an mcpkit server session (in memory) and collects what comes back,
every message checked by a :class:`~tests.wire.WireChecker`."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from mcpkit.envelope import build_request_meta
from mcpkit.server import Server
from mcpkit.server.session import AppSession
from mcpkit.transports import MemoryTransport
from tests.wire import WireChecker

VERSION = "2026-07-28"
CLIENT_INFO = {"name": "modern-test-client", "version": "1.0"}
ALL_CAPABILITIES: dict[str, Any] = {
    "elicitation": {"form": {}, "url": {}},
    "sampling": {"tools": {}, "context": {}},
    "roots": {},
}


class ModernPeer:
    """One connection to ``server``: :meth:`request` sends and waits for the response."""

    def __init__(self, server: Server, checker: WireChecker | None = None, **kwargs: Any) -> None:
        self.server = server
        self.checker = checker
        self.kwargs = kwargs
        self.received: list[dict[str, Any]] = []
        self._waiting: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._next = 0
        self.session: AppSession

    async def __aenter__(self) -> ModernPeer:
        mine, theirs = MemoryTransport.pair()
        self.transport = mine
        self.session = self.server.session(theirs, **self.kwargs)
        await self.session.start()
        await mine.start(self)  # type: ignore[arg-type]
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.transport.close()
        await self.session.close()

    # -- the sink the transport delivers to --

    def receive_bytes(self, data: bytes) -> None:
        msg = orjson.loads(data)
        if self.checker is not None:
            self.checker("recv", msg)
        self.received.append(msg)
        future = self._waiting.pop(msg.get("id"), None) if "method" not in msg else None
        if future is not None and not future.done():
            future.set_result(msg)

    def receive(self, msg: Any) -> None:
        self.receive_bytes(orjson.dumps(msg))

    def connection_lost(self, exc: BaseException | None) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("closed"))

    # -- sending --

    def meta(
        self,
        capabilities: dict[str, Any] | None = None,
        *,
        version: str = VERSION,
        log_level: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        return build_request_meta(
            version,
            ALL_CAPABILITIES if capabilities is None else capabilities,
            CLIENT_INFO,
            log_level=log_level,
            extra=extra or None,
        )

    async def send(
        self, message: dict[str, Any], timeout: float = 5.0, *, check: bool = True
    ) -> dict[str, Any]:
        """Send a raw message (with an id) and return its response (``check=False``: a
        deliberately invalid request, not schema-checked itself; its response still is)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[message["id"]] = future
        if self.checker is not None:
            if check:
                self.checker("send", message)
            else:
                self.checker._track("send", message)
        self.transport.write(message)
        return await asyncio.wait_for(future, timeout)

    async def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        capabilities: dict[str, Any] | None = None,
        log_level: str | None = None,
        meta: dict[str, Any] | None = None,
        check: bool = True,
    ) -> dict[str, Any]:
        """Send ``method`` with the envelope (``meta`` replaces it) and return the response."""
        params = dict(params or {})
        params["_meta"] = meta if meta is not None else self.meta(capabilities, log_level=log_level)
        self._next += 1
        message = {"jsonrpc": "2.0", "id": self._next, "method": method, "params": params}
        return await self.send(message, check=check)

    async def error(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        """The ``error`` of ``method`` (AssertionError on a result)."""
        response = await self.request(method, params, **kw)
        assert "error" in response, response
        return response["error"]

    async def result(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        """The ``result`` of ``method`` (AssertionError on an error response)."""
        response = await self.request(method, params, **kw)
        assert "result" in response, response
        return response["result"]

    def notifications(self, method: str | None = None) -> list[dict[str, Any]]:
        return [
            m for m in self.received if "id" not in m and (method is None or m["method"] == method)
        ]
