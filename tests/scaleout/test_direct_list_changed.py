"""A list change told to one 2025 session alone (a tool's ``ctx.disable``) reaches that
session's GET stream whichever replica handled the tool call, once.

Such a notification does not go through the bus (no other session hears it): it is sent
by the view of the replica that handled the POST. When that replica is not the one holding
the GET stream, it must go to the stream through the session's log, as any other message
for the GET stream does, so that the holder delivers it. Two replicas in this process on a
redis-server of their own; the GET stream is held on replica a."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpkit import Context, Server
from mcpkit.redis import RedisBackend
from tests.scaleout.broadcasts import RawSession, notification_name, sse_events
from tests.scaleout.cluster import Redis, free_port
from tests.scaleout.inprocess import announcing_server, replicas_in_process


def hiding_server(backend: RedisBackend) -> Server[Any]:
    """The announcing server, with per-session visibility and a ``hide`` tool that hides
    ``changed`` from its caller (a tools list change told to the caller only)."""
    app = announcing_server(backend)
    app.session_visibility = True

    @app.tool()
    async def hide(ctx: Context) -> str:
        """Hide the ``changed`` tool from this session."""
        await ctx.disable("changed", kinds=["tools"])
        return "hidden"

    return app


@pytest.fixture
async def pair(server: Redis) -> AsyncIterator[tuple[list[str], list[RedisBackend]]]:
    async with replicas_in_process(server.url, f"dl{free_port()}", hiding_server) as both:
        yield both


@pytest.mark.parametrize("handler", ["other", "holder"])
async def test_a_list_change_for_one_session_reaches_its_get_stream_once(
    pair: tuple[list[str], list[RedisBackend]], handler: str
) -> None:
    """The GET stream is open on replica a; ``hide`` is called on replica b (other) or on
    a itself (holder): the stream gets one tools list change, before the marker's update
    published after the call."""
    (a, b), _ = pair
    async with httpx.AsyncClient(timeout=20) as http:
        session = RawSession(http, a)
        await session.open()
        for uri in ("note://ready", "note://marker"):
            await session.request("resources/subscribe", {"uri": uri})
        headers = {**session.headers, "accept": "text/event-stream"}
        headers.pop("content-type")
        seen: list[str] = []
        async with asyncio.timeout(20):
            async with http.stream("GET", a, headers=headers) as response:
                assert response.status_code == 200, await response.aread()
                events = sse_events(response)
                # The stream is followed (and caught up) on a once an update reaches it.
                await session.call("touch", uri="note://ready")
                async for _, message in events:
                    if "method" in message and notification_name(message) == "note://ready":
                        break
                result = await session.call("hide", b if handler == "other" else a)
                assert result["content"][0]["text"] == "hidden", result
                await session.call("touch", uri="note://marker")
                async for _, message in events:
                    if "method" in message:
                        seen.append(notification_name(message))
                        if seen[-1] == "note://marker":
                            break
    assert seen == ["tools", "note://marker"], seen
