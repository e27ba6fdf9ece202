"""Connecting a ClientSession to a :class:`mcpkit.Server` in memory, schema-checked."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcpkit import Server
from mcpkit.session import ClientSession
from mcpkit.transports import MemoryTransport

CLIENT_INFO = {"name": "test-client", "version": "0.0.1"}


@asynccontextmanager
async def connected(
    app: Server,
    wire: Any,
    *,
    capabilities: dict[str, Any] | None = None,
    version: str = "2025-11-25",
    check_server_received: bool = True,
    initialize: bool = True,
    **client_kwargs: Any,
) -> AsyncIterator[tuple[ClientSession, Any]]:
    """A started (and by default initialized) client connected to ``app`` in memory."""
    a, b = MemoryTransport.pair()
    server = app.session(b, tracer=wire(version, check_received=check_server_received))
    client = ClientSession(a, tracer=wire(version), **client_kwargs)
    async with app.running():
        await server.start()
        await client.start()
        try:
            if initialize:
                await client.initialize(CLIENT_INFO, capabilities or {}, protocol_version=version)
                await client.ping()  # the server has now seen `initialized` too
            yield client, server
        finally:
            await client.close()
            await server.close()


async def call(client: ClientSession, name: str, arguments: Any = None, **kw: Any) -> Any:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return await client.request("tools/call", params, timeout=10, **kw)


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def unchecked(client: ClientSession, method: str, params: Any) -> Any:
    """Send a deliberately invalid request: its own schema check is skipped, the reply is
    still checked (connect with ``check_server_received=False``)."""
    checker = client._tracer
    assert checker is not None
    client._tracer = lambda direction, msg: checker._track(direction, msg)  # type: ignore[attr-defined]
    try:
        fut = asyncio.ensure_future(client.request(method, params, timeout=10))
        await asyncio.sleep(0)
    finally:
        client._tracer = checker
    return await fut
