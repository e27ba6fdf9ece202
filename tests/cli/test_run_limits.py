"""``mcpkit run -t http --max-in-flight N [--max-queued M]``: the HTTP app's limit on
requests served at once, from the command line."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mcpkit import Client
from mcpkit.errors import Overloaded

SLOW = """
import asyncio

from mcpkit import Server

app = Server("slow")


@app.tool()
async def wait() -> str:
    await asyncio.sleep(30)
    return "waited"


@app.tool()
def quick() -> str:
    return "quick"
"""


def test_max_in_flight_refuses_beyond_the_queue(served: Any, tmp_path: Path) -> None:
    file = tmp_path / "slow.py"
    file.write_text(SLOW)
    server = served(f"{file}:app", "--port", "0", "--max-in-flight", "1", "--max-queued", "0")

    async def scenario() -> None:
        async with Client(server.url, timeout=20) as client:
            first = asyncio.ensure_future(client.call_tool("wait"))
            for _ in range(200):  # until the first call holds the one slot
                if first.done():
                    # The quick call reached the server first and took the slot,
                    # so the slow one was the refused one: send it again.
                    assert isinstance(first.exception(), Overloaded)
                    first = asyncio.ensure_future(client.call_tool("wait"))
                    await asyncio.sleep(0.05)
                try:
                    await client.call_tool("quick")
                except Overloaded as refused:
                    assert refused.code == -31503
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("a second request was never refused")
            first.cancel()

    asyncio.run(scenario())


def test_max_queued_needs_max_in_flight(served: Any, tmp_path: Path) -> None:
    file = tmp_path / "slow.py"
    file.write_text(SLOW)
    with pytest.raises(AssertionError, match="--max-queued needs --max-in-flight"):
        served(f"{file}:app", "--port", "0", "--max-queued", "2")
