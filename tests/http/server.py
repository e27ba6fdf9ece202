"""The HTTP test server: the core test server's tools plus a few that exercise HTTP routing."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit.session import RequestContext, ServerSession
from mcpkit.transports.http import HttpSessionTransport
from tests.servers import core_server

#: Set by the "cut" and "poll" tools: when the server closed the connection early.
EVENTS: dict[str, Any] = {}


async def tools_call(params: dict[str, Any] | None, ctx: RequestContext) -> Any:
    assert params is not None
    name = params.get("name")
    args = params.get("arguments") or {}
    transport = ctx.session.transport
    if name == "announce":
        # Unrelated to the request: must travel on the standalone GET stream.
        await ctx.session.notify(
            "notifications/message", {"level": "info", "data": args.get("text", "hello")}
        )
        return {"content": [{"type": "text", "text": "announced"}]}
    if name == "cut":
        # Progress, then the server closes the connection early (SSE polling), more progress
        # and the result: the client must resume and lose nothing.
        steps = int(args.get("steps", 4))
        await ctx.progress(1, steps, "before the cut")
        assert isinstance(transport, HttpSessionTransport)
        EVENTS["closed"] = transport.close_sse_stream(ctx.request_id)
        EVENTS["closed_at"] = asyncio.get_running_loop().time()
        for i in range(2, steps + 1):
            await asyncio.sleep(0.01)
            await ctx.progress(i, steps, f"step {i}")
        return {"content": [{"type": "text", "text": f"survived {steps}"}]}
    if name == "wait":
        # Blocks until released from the test.
        gate: asyncio.Event = EVENTS.setdefault("gate", asyncio.Event())
        await ctx.progress(1, 2, "waiting")
        await gate.wait()
        await ctx.progress(2, 2, "released")
        return {"content": [{"type": "text", "text": "released"}]}
    return await core_server.tools_call(params, ctx)


def factory(tracer: Any = None, **kwargs: Any) -> Any:
    """A session factory for StreamableHTTPApp; every session gets ``tracer()`` if given."""

    def make(transport: Any) -> ServerSession:
        session = core_server.make_session(
            transport, tracer=tracer() if tracer is not None else None, **kwargs
        )
        session.set_request_handler("tools/call", tools_call)
        return session

    return make
