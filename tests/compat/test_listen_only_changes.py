"""``ctx.notify_prompts_changed()`` of a 2.x ``MCPServer`` reaches a 2026-07-28 client's
``subscriptions/listen`` stream, as in mcp 2.x (that it does not reach a 2025-era client
is compared with the SDK in ``test_docs_src_b.py``, ``prompts/tutorial006.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit.compat.mcp.server import MCPServer
from mcpkit.compat.mcp.server.mcpserver import Context
from mcpkit.transports import MemoryTransport
from tests.modern.listen_peer import ACK, PROMPTS_CHANGED, Peer, V
from tests.wire import WireChecker


async def test_notify_prompts_changed_reaches_a_listen_stream(
    wire: Callable[..., WireChecker],
) -> None:
    mcp = MCPServer("changes")

    @mcp.tool()
    async def announce(ctx: Context) -> str:
        await ctx.notify_prompts_changed()
        return "announced"

    app: Any = mcp.native
    client_end, server_end = MemoryTransport.pair()
    async with app.running():
        session = app.session(server_end, tracer=wire(V, check_received=False))
        await session.start()
        peer = Peer(client_end, wire(V))
        await peer.start()
        try:
            await peer.listen("watch", promptsListChanged=True)
            result = await peer.call(1, "announce")
            assert result["content"][0]["text"] == "announced"
            await peer.frame("watch", PROMPTS_CHANGED)
            assert [m["method"] for m in peer.frames("watch")] == [ACK, PROMPTS_CHANGED]
        finally:
            await session.close()
