"""Helpers for testing an mcpkit :class:`~mcpkit.Server` in memory (pytest or anything else).

``async with connected(app) as client:`` gives a :class:`~mcpkit.Client` talking to ``app``
in this process (no subprocess, no port), with a short default timeout so a test that hangs
fails quickly; ``await call_tool(app, "add", {"a": 1, "b": 2})`` is one call on a
connection of its own::

    from mcpkit.testing import call_tool, connected

    async def test_add():
        assert (await call_tool(app, "add", {"a": 1, "b": 2})).structured_content == {
            "result": 3
        }

    async def test_forecast_logs():
        logs = []
        async with connected(app, on_log=logs.append) as client:
            await client.call_tool("forecast", {"city": "Oslo"})
        assert logs[0].data == "forecasting Oslo"
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.server import Server
    from mcpkit.types import CallToolResult

__all__ = ["DEFAULT_TEST_TIMEOUT", "call_tool", "connected"]

#: Seconds each request may take in a test before it fails (instead of the client's 60).
DEFAULT_TEST_TIMEOUT = 10.0


@contextlib.asynccontextmanager
async def connected(
    server: Server, *, timeout: float | None = DEFAULT_TEST_TIMEOUT, **options: Any
) -> AsyncIterator[Client]:
    """A :class:`~mcpkit.Client` connected in memory to ``server``, closed on exit.

    ``options`` are the Client's (``sampling_handler=``, ``elicitation_handler=``,
    ``roots=``, ``on_log=``, ``protocol_version=``, ...), so a test can answer what the
    server asks and record what it sends."""
    from mcpkit.client import Client

    async with Client(server, timeout=timeout, **options) as client:
        yield client


async def call_tool(
    server: Server,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    **options: Any,
) -> CallToolResult:
    """Connect to ``server`` in memory, call the tool ``name`` once, disconnect; the result
    (a tool error is a result with ``is_error``; a protocol error raises
    :class:`~mcpkit.McpError`). ``options`` as for :func:`connected`."""
    async with connected(server, **options) as client:
        return await client.call_tool(name, dict(arguments or {}))
