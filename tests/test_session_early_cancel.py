"""A request cancelled before its handler began (the request and its cancellation in one
read): it is forgotten at once, and a batch it belongs to is still answered."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from mcpkit import Server
from mcpkit.session import ServerSession
from mcpkit.transports import StdioServerTransport

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(rid: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def cancel(rid: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}}


async def served() -> tuple[ServerSession, int, asyncio.StreamReader, asyncio.ReadTransport]:
    app: Server[Any] = Server("early-cancel")

    @app.tool()
    async def slow(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return "slept"

    @app.tool()
    async def quick() -> str:
        await asyncio.sleep(0)
        return "quick"

    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    transport = StdioServerTransport(
        os.fdopen(in_r, "rb", buffering=0), os.fdopen(out_w, "wb", buffering=0)
    )
    session = app.session(transport)
    await session.start()
    reader = asyncio.StreamReader()
    read_transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(out_r, "rb", buffering=0)
    )
    return session, in_w, reader, read_transport


async def answer(reader: asyncio.StreamReader) -> Any:
    return json.loads(await asyncio.wait_for(reader.readline(), 5))


async def test_a_request_cancelled_before_it_began_is_forgotten_and_its_batch_answered() -> None:
    session, to_server, reader, read_transport = await served()
    try:
        os.write(to_server, (json.dumps(INIT) + "\n" + json.dumps(INITIALIZED) + "\n").encode())
        assert (await answer(reader))["id"] == 0
        # One read: a request and its cancellation, so its handler never began.
        lines = [call(1, "slow", seconds=30), cancel(1)]
        os.write(to_server, "".join(json.dumps(m) + "\n" for m in lines).encode())
        # A batch whose first member is cancelled before it began: the rest is answered.
        lines = [[call(2, "slow", seconds=30), call(3, "quick")], cancel(2)]
        os.write(to_server, "".join(json.dumps(m) + "\n" for m in lines).encode())
        batch = await answer(reader)
        assert [m["id"] for m in batch] == [3]
        assert batch[0]["result"]["content"][0]["text"] == "quick"
        os.write(to_server, (json.dumps(call(4, "quick")) + "\n").encode())
        assert (await answer(reader))["id"] == 4
        assert session._in_flight == {}  # nothing left behind for 1 and 2
    finally:
        await session.close()
        read_transport.close()
        os.close(to_server)
