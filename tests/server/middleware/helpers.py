"""Connecting a Client to a Server in memory or over real HTTP (uvicorn on 127.0.0.1), in
either era, for the middleware tests."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcpkit import Client, Server
from mcpkit.transports.http import running

#: (transport, era) pairs every chain test runs on.
WAYS = [
    ("memory", "legacy"),
    ("memory", "2026-07-28"),
    ("http", "legacy"),
    ("http", "2026-07-28"),
]
IDS = [f"{t}-{e}" for t, e in WAYS]


@contextlib.asynccontextmanager
async def connect(
    app: Server[Any], transport: str, era: str, **options: Any
) -> AsyncIterator[Client]:
    """A connected Client of ``app`` over ``transport`` ("memory" or "http") in ``era``;
    ``http_options`` go to :meth:`Server.http_app`."""
    http_options = options.pop("http_options", {})
    if transport == "memory":
        async with Client(app, era=era, timeout=10, **options) as client:  # type: ignore[arg-type]
            yield client
        return
    asgi = app.http_app(**http_options)
    async with running(asgi) as base:
        async with Client(base + "/mcp", era=era, timeout=10, **options) as client:  # type: ignore[arg-type]
            yield client
    await asgi.aclose()
