"""One scenario over both eras and both in-process transports: :func:`connect`, a
schema-checked :class:`~mcpkit.Client` of a server in memory or over Streamable HTTP on
127.0.0.1, in the era and over the transport a test's ``era`` and ``transport`` fixtures
(tests/conftest.py) give it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcpkit import Client, Server

ERAS = ("legacy", "2026-07-28")
TRANSPORTS = ("memory", "http")


@contextlib.asynccontextmanager
async def connect(app: Server, era: str, transport: str, wire: Any) -> AsyncIterator[Client]:
    """A Client of ``app`` in ``era`` over ``transport``, every message schema-checked."""
    if transport == "memory":
        async with Client(app, era=era, tracer=wire()) as client:  # type: ignore[arg-type]
            yield client
        return
    from mcpkit.transports.http import running

    async with running(app.http_app()) as base:
        async with Client(f"{base}/mcp", era=era, tracer=wire()) as client:  # type: ignore[arg-type]
            yield client
