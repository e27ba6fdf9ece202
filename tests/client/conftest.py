"""Fixtures: a Client connected to the feature server, in memory or over stdio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mcpkit.client import Client, StdioOptions
from mcpkit.transports import MemoryTransport
from tests.client import feature_server
from tests.conftest import ROOT, server_env
from tests.wire import WireChecker

SERVER_ARGV = [sys.executable, "-m", "tests.client.feature_server"]


class Opened:
    def __init__(self, client: Client, server: Any) -> None:
        self.client = client
        self.server = server  # FeatureServer (memory only)


@pytest.fixture
async def feature(wire: Callable[..., WireChecker], kind: str) -> AsyncIterator[Callable[..., Any]]:
    """``await feature(**client_kwargs)`` -> a connected Client (memory or stdio)."""
    opened: list[tuple[Client, Any]] = []

    async def make(**kwargs: Any) -> Client:
        kwargs.setdefault("tracer", wire())
        server = None
        if kind == "memory":
            a, b = MemoryTransport.pair()
            session, server = feature_server.make_session(b, tracer=wire(check_received=False))
            await session.start()
            client = Client(a, **kwargs)
        else:
            session = None
            client = Client(
                SERVER_ARGV, connection=StdioOptions(env=server_env(), cwd=str(ROOT)), **kwargs
            )
        await client.connect()
        client.feature = server  # type: ignore[attr-defined]
        opened.append((client, session))
        return client

    yield make
    for client, session in opened:
        await client.close()
        if session is not None:
            await session.close()
