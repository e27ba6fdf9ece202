"""A ``def`` tool that raises ``StopIteration`` (a ``next()`` on an exhausted iterator) is
answered as any other failing tool: asyncio futures refuse that exception, so the worker's
outcome must not be handed to one as it is."""

from __future__ import annotations

import asyncio
import threading

from mcpkit import Client, Server


def make() -> Server:
    app = Server("stops", "1.0")
    gate = threading.Event()

    @app.tool()
    def first_of(items: list[int]) -> int:
        """The first item (``next`` raises StopIteration on an empty list)."""
        return next(iter(items))

    @app.tool()
    def slow_first_of(items: list[int]) -> int:
        """The same, after outlasting the loop's wait in place (handed back to the loop)."""
        gate.wait(0.05)
        return next(iter(items))

    @app.tool()
    async def ok() -> str:
        """Still answered afterwards."""
        return "ok"

    return app


async def test_stop_iteration_in_a_def_tool_is_an_error_result() -> None:
    app = make()
    async with Client(app) as client:
        for name in ("first_of", "slow_first_of"):
            got = await client.call_tool(name, {"items": [7]})
            assert got.structured_content == {"result": 7}
            failed = await asyncio.wait_for(client.call_tool(name, {"items": []}), 10)
            assert failed.is_error, name
            assert failed.content[0].text.startswith(f"Error executing tool '{name}'")
        assert (await client.call_tool("ok", {})).content[0].text == "ok"
