"""Small things a new user runs into: contradictory options refused, what is missing named."""

from __future__ import annotations

import pytest

from mcpkit import Client, Server
from mcpkit.errors import McpError


def test_a_version_that_contradicts_the_era_is_refused() -> None:
    app = Server("x")
    with pytest.raises(ValueError, match="contradicts era='legacy'"):
        Client(app, protocol_version="2026-07-28", era="legacy")
    with pytest.raises(ValueError, match="contradicts era='2026-07-28'"):
        Client(app, protocol_version="2025-11-25", era="2026-07-28")
    Client(app, protocol_version="2025-11-25", era="legacy")  # alike: fine
    Client(app, protocol_version="2026-07-28", era="2026-07-28")
    Client(app, protocol_version="2025-06-18")  # auto follows the version


@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_a_prompt_from_a_server_without_prompts_says_so(era: str) -> None:
    app = Server("tools-only")
    app.add_tool(lambda: "x", name="noop")
    async with Client(app, era=era) as client:  # type: ignore[arg-type]
        with pytest.raises(McpError, match="offers no prompts") as caught:
            await client.get_prompt("greeting")
    assert caught.value.code == -32601
