"""``Client.wait_elicitation_complete`` whether the completion arrives before or after the
wait starts, against a real mcpkit ``Server`` in memory."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Context, McpError, Server
from mcpkit.client import Client, ClientHooks, URLElicitationRequired

URL = "https://example.com/connect"


def make_app(release: asyncio.Event) -> Server:
    app = Server("elicitation-order")

    @app.tool()
    async def connect_now(ctx: Context) -> str:
        """Completes the elicitation before returning (the usual order)."""
        answer = await ctx.elicit_url("Connect", URL, "el-now")
        await ctx.complete_elicitation("el-now")
        return answer.action

    @app.tool()
    async def connect_later(ctx: Context) -> str:
        """Completes only once the test says so."""
        answer = await ctx.elicit_url("Connect", URL, "el-later")
        await release.wait()
        await ctx.complete_elicitation("el-later")
        return answer.action

    @app.tool()
    async def needs(ctx: Context, ids: list[str]) -> str:
        elicitations = [
            {"mode": "url", "message": "go", "url": URL, "elicitationId": i} for i in ids
        ]
        raise McpError(-32042, "Authorize first", {"elicitations": elicitations})

    @app.tool()
    async def complete(ctx: Context, ids: list[str]) -> int:
        for i in ids:
            await ctx.complete_elicitation(i)
        return len(ids)

    return app


def open_url(seen: list[str], opened: asyncio.Event | None = None) -> Any:
    async def handler(params: Any, ctx: Any) -> str:
        seen.append(params.elicitation_id)
        if opened is not None:
            opened.set()
        return "accept"

    handler.supports_url = True  # type: ignore[attr-defined]
    return handler


async def test_completion_before_the_wait_returns_at_once(wire: Any) -> None:
    seen: list[str] = []
    hooked: list[str] = []
    app = make_app(asyncio.Event())
    async with Client(
        app,
        era="legacy",  # completion notifications arrive outside any request
        tracer=wire(),
        elicitation_handler=open_url(seen),
        hooks=ClientHooks(on_elicitation_complete=hooked.append),
    ) as c:
        result = await c.call_tool("connect_now")
        assert result.content[0].text == "accept"  # type: ignore[union-attr]
        assert seen == ["el-now"] and hooked == ["el-now"]
        # the notification came before the tool's result: timeout=0 only passes if the wait
        # does not need to wait at all
        await c.wait_elicitation_complete("el-now", timeout=0)
        await c.wait_elicitation_complete("el-now", timeout=0)  # again: still remembered
        # a repeated notification does not call the hook again
        await c.call_tool("complete", {"ids": ["el-now"]})
        assert hooked == ["el-now"]


async def test_wait_started_before_the_completion(wire: Any) -> None:
    seen: list[str] = []
    hooked: list[str] = []
    release = asyncio.Event()
    opened = asyncio.Event()
    async with Client(
        make_app(release),
        era="legacy",
        tracer=wire(),
        elicitation_handler=open_url(seen, opened),
        hooks=ClientHooks(on_elicitation_complete=hooked.append),
    ) as c:
        call = asyncio.ensure_future(c.call_tool("connect_later"))
        waiter = asyncio.ensure_future(c.wait_elicitation_complete("el-later", timeout=10))
        await opened.wait()  # the client has seen the elicitation; not completed yet
        assert not waiter.done() and hooked == []
        release.set()
        await waiter
        assert (await call).content[0].text == "accept"  # type: ignore[union-attr]
        assert hooked == ["el-later"]


async def test_url_elicitation_required_then_completed(wire: Any) -> None:
    hooked: list[str] = []
    async with Client(
        make_app(asyncio.Event()),
        tracer=wire(),
        hooks=ClientHooks(on_elicitation_complete=hooked.append),
        era="legacy",
    ) as c:
        with pytest.raises(URLElicitationRequired):
            await c.call_tool("needs", {"ids": ["el-2"]})
        await c.call_tool("complete", {"ids": ["el-2", "never-seen"]})
        assert hooked == ["el-2"]
        await c.wait_elicitation_complete("el-2", timeout=0)
        # only ids the client has seen are remembered
        with pytest.raises(TimeoutError):
            await c.wait_elicitation_complete("never-seen", timeout=0)


async def test_completed_ids_are_bounded(wire: Any) -> None:
    ids = [f"e-{i}" for i in range(1001)]
    async with Client(make_app(asyncio.Event()), tracer=wire(), era="legacy") as c:
        with pytest.raises(URLElicitationRequired) as info:
            await c.call_tool("needs", {"ids": ids})
        assert len(info.value.elicitations) == 1001
        await c.call_tool("complete", {"ids": ids})
        await c.wait_elicitation_complete("e-1000", timeout=0)
        await c.wait_elicitation_complete("e-1", timeout=0)
        with pytest.raises(TimeoutError):  # the oldest was forgotten
            await c.wait_elicitation_complete("e-0", timeout=0)
