"""Features registered while clients are connected: declared-but-empty lists filled later,
and a tool registered between a session's start and its initialize."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit import Server
from tests.server.helpers import call, connected, text


async def test_declared_features_can_be_filled_while_connected(wire: Any) -> None:
    app = Server("dynamic", declare=("tools", "resources", "prompts"))
    async with connected(app, wire) as (client, _):
        caps = client.server_capabilities
        assert caps["tools"] == {"listChanged": True}
        assert caps["resources"] == {"subscribe": True, "listChanged": True}
        assert caps["prompts"] == {"listChanged": True} and caps["completions"] == {}
        assert (await client.request("tools/list")) == {"tools": []}
        assert (await client.request("resources/list")) == {"resources": []}
        assert (await client.request("prompts/list")) == {"prompts": []}
        changed = asyncio.Event()
        client.set_notification_handler("notifications/tools/list_changed", lambda p: changed.set())

        @app.tool()
        def late(x: int) -> int:
            return x + 1

        await asyncio.wait_for(changed.wait(), 5)
        assert [t["name"] for t in (await client.request("tools/list"))["tools"]] == ["late"]
        assert (await call(client, "late", {"x": 1}))["structuredContent"] == {"result": 2}
    with pytest.raises(ValueError, match="unknown feature"):
        Server("bad", declare=("tool",))  # type: ignore[arg-type]


async def test_a_tool_registered_before_initialize_is_served(wire: Any) -> None:
    # The session exists (and is started) before the server has any tool; the client
    # initializes after the first registration: it is declared and served.
    from mcpkit.session import ClientSession
    from mcpkit.transports import MemoryTransport
    from tests.server.helpers import CLIENT_INFO

    app = Server("late-start")
    a, b = MemoryTransport.pair()
    server = app.session(b, tracer=wire())
    client = ClientSession(a, tracer=wire())
    async with app.running():
        await server.start()
        await client.start()
        try:

            @app.tool()
            def hello() -> str:
                return "hi"

            init = await client.initialize(CLIENT_INFO, {})
            assert init["capabilities"]["tools"] == {"listChanged": True}
            assert text(await call(client, "hello")) == "hi"
        finally:
            await client.close()
            await server.close()


def test_the_handler_table_follows_every_change_it_is_made_of() -> None:
    # The table is kept between requests (found once, not per request): each change of what
    # it is made of makes the next request find it again.
    app = Server("table")

    @app.tool()
    def echo(text: str) -> str:
        return text

    first = app.handler_table()
    assert app.handler_table() is first
    assert "tools/call" in first and "completion/complete" not in first
    assert "prompts/list" not in first

    # A completion registered (no prompt needs to exist for the handler to be served).
    app.completion(prompt="greet", argument="name")(lambda value: ["ada"])
    second = app.handler_table()
    assert second is not first and "completion/complete" in second

    # A feature declared after the server was made.
    app.declared = app.declared | {"prompts"}
    third = app.handler_table()
    assert "prompts/list" in third and "prompts/list" not in second

    # A raw handler, and middleware, replace the table too.
    @app.request_handler("x/custom")
    async def custom(params: Any, ctx: Any) -> dict[str, Any]:
        return {}

    fourth = app.handler_table()
    assert "x/custom" in fourth and "x/custom" not in third
    app.add_middleware(lambda ctx, call_next: call_next(ctx))
    assert app.handler_table() is not fourth

    # A tool removed: the table is found again (tools/call stays while a tool is declared).
    before = app.handler_table()
    app.tools.remove("echo")
    assert app.handler_table() is not before
