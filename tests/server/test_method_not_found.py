"""A method nobody serves: -32601 naming it in mcpkit's words, or the error the server's
``method_not_found(method)`` makes (the compat layer answers as the other SDK does), on
both eras."""

from __future__ import annotations

import pytest

from mcpkit import Client, Server
from mcpkit.errors import McpError


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
async def test_unknown_method_default_and_server_rule(era: str) -> None:
    app: Server[None] = Server("x")

    @app.tool()
    def noop() -> str:
        return "ok"

    async with Client(app, era=era) as client:
        with pytest.raises(McpError) as default:
            await client.request("acme/nothing", {})
    assert (default.value.code, default.value.message) == (-32601, "Method not found: acme/nothing")

    app.method_not_found = lambda method: McpError(-32601, "Method not found", method)  # type: ignore[attr-defined]
    async with Client(app, era=era) as client:
        with pytest.raises(McpError) as ruled:
            await client.request("acme/nothing", {})
        assert await client.call_tool("noop") is not None  # served methods are untouched
    assert (ruled.value.code, ruled.value.message, ruled.value.data) == (
        -32601,
        "Method not found",
        "acme/nothing",
    )
