"""Client calls and handlers: call meta on the wire,
the typed sampling request (model preferences, includeContext), the ``on_cancelled`` hook
with the handler really cancelled, and elicitation schemas read by their ``$schema``
dialect (draft-07 supported, an unknown dialect refused, never skipped)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.client import Client, ClientHooks
from mcpkit.transports import MemoryTransport
from mcpkit.types import CancelledNotificationParams, CreateMessageRequestParams


@asynccontextmanager
async def connect(app: Server, wire: Any, **kwargs: Any) -> AsyncIterator[Client]:
    a, b = MemoryTransport.pair()
    async with app.running():
        server = app.session(b, tracer=wire())
        await server.start()
        try:
            async with Client(a, tracer=wire(), **kwargs) as c:
                yield c
        finally:
            await server.close()


async def test_call_meta_is_sent_beside_the_progress_token(feature: Any) -> None:
    c = await feature()
    await c.call_tool("echo", {"text": "x"}, meta={"trace": "t-1"}, on_progress=print)
    params = c.session._tracer.sent("tools/call")[-1]["params"]  # type: ignore[attr-defined]
    assert params["_meta"]["trace"] == "t-1"
    assert params["_meta"]["progressToken"] is not None


async def test_typed_sampling_request_and_cancellation_hook(wire: Any) -> None:
    app = Server("cancel-test")

    @app.tool()
    async def ask(ctx: Context) -> str:
        """Samples, but gives up quickly."""
        try:
            await ctx.sample(
                "hi",
                max_tokens=5,
                model_preferences={"hints": [{"name": "claude"}], "speedPriority": 0.9},
                include_context="thisServer",
                timeout=0.05,
            )
        except TimeoutError:
            return "gave up"
        return "answered"

    seen: list[CreateMessageRequestParams] = []
    handler_cancelled = asyncio.Event()
    cancels: list[CancelledNotificationParams] = []

    async def sample(params: CreateMessageRequestParams, ctx: Any) -> Any:
        seen.append(params)
        try:
            await asyncio.Event().wait()  # the user never answers
        except asyncio.CancelledError:
            handler_cancelled.set()
            raise

    sample.supports_context = True  # type: ignore[attr-defined]
    # a server cancelling its own request to the client: the handshake era's
    async with connect(
        app,
        wire,
        sampling_handler=sample,
        hooks=ClientHooks(on_cancelled=cancels.append),
        era="legacy",
    ) as c:
        init = c.session._tracer.sent("initialize")[0]  # type: ignore[attr-defined]
        assert init["params"]["capabilities"] == {"sampling": {"context": {}}}
        result = await c.call_tool("ask")
        assert result.content[0].text == "gave up"  # type: ignore[union-attr]
        await c.ping()  # the server's cancellation was queued before this round trip
        await handler_cancelled.wait()
        request = c.session._tracer.received("sampling/createMessage")[0]  # type: ignore[attr-defined]
        assert [x.request_id for x in cancels] == [request["id"]]
        typed = seen[0]
        assert typed.include_context == "thisServer" and typed.max_tokens == 5
        assert typed.model_preferences is not None
        assert typed.model_preferences.speed_priority == 0.9
        assert typed.model_preferences.hints is not None
        assert typed.model_preferences.hints[0].name == "claude"
        # the cancelled request got no answer
        sent = c.session._tracer.sent()  # type: ignore[attr-defined]
        assert [m for m in sent if "method" not in m and m.get("id") == request["id"]] == []


DRAFT7 = "http://json-schema.org/draft-07/schema#"


async def test_elicitation_schema_dialects(feature: Any) -> None:
    replies: list[Any] = []

    def elicit(params: Any, ctx: Any) -> Any:
        return replies.pop(0)

    c = await feature(elicitation_handler=elicit)
    schema = {
        "$schema": DRAFT7,
        "type": "object",
        "properties": {"n": {"type": "integer", "default": 3}},
    }
    request = {"message": "n?", "requestedSchema": schema}
    replies.append({"action": "accept", "content": {}})
    ok = await c.call_tool("elicit", {"request": request})
    assert ok.structured_content == {"action": "accept", "content": {"n": 3}}
    replies.append({"action": "accept", "content": {"n": "three"}})
    with pytest.raises(McpError) as err:
        await c.call_tool("elicit", {"request": request})
    assert err.value.code == -32603 and "does not match" in err.value.message
    # an unknown dialect is refused before the user is asked, not validated loosely
    unknown = {**schema, "$schema": "https://example.com/my-dialect"}
    replies.append({"action": "accept", "content": {"n": 1}})
    with pytest.raises(McpError) as err:
        await c.call_tool("elicit", {"request": {"message": "n?", "requestedSchema": unknown}})
    assert err.value.code == -32602 and "requestedSchema" in err.value.message
    assert len(replies) == 1  # the handler was not called
