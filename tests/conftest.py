"""Shared fixtures: schema-checked sessions over in-memory and stdio transports."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mcpkit.session import ClientSession, ServerSession
from mcpkit.transports import MemoryTransport, StdioClientTransport
from tests.servers import core_server
from tests.ways import ERAS, TRANSPORTS

# A suite started with SIGINT ignored (a background job of a non-interactive shell) would hand
# that on to every process it starts (an ignored signal stays ignored across exec), and the
# tests that stop a server with Ctrl-C would wait for it in vain. A handler of our own is
# reset to the default in each child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
from tests.wire import WireChecker

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def wire() -> Any:
    """Factory of schema checkers; the test fails if any checked message was invalid."""
    made: list[WireChecker] = []

    def make(version: str = "2025-11-25", **kwargs: Any) -> WireChecker:
        checker = WireChecker(version, **kwargs)
        made.append(checker)
        return checker

    yield make
    errors = [e for c in made for e in c.errors]
    assert not errors, "messages not valid against the official schema:\n" + "\n".join(errors)


def server_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


class Pair:
    """A client session connected to a core test server (in memory or over stdio)."""

    def __init__(self, client: ClientSession, server: ServerSession | None, transport: Any) -> None:
        self.client = client
        self.server = server
        self.transport = transport


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> str:
    """Each era in turn: ``"legacy"`` (the handshake) and ``"2026-07-28"`` (see tests/ways.py)."""
    return str(request.param)


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """Each in-process transport in turn: ``"memory"`` and ``"http"`` (see tests/ways.py)."""
    return str(request.param)


@pytest.fixture(params=["memory", "stdio"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def connect(wire: Callable[..., WireChecker], kind: str) -> AsyncIterator[Any]:
    """``await connect(**client_kwargs)`` -> Pair, started but not initialized."""
    opened: list[Pair] = []

    async def make(
        *,
        server_env_extra: dict[str, str] | None = None,
        server_kwargs: dict[str, Any] | None = None,
        **client_kwargs: Any,
    ) -> Pair:
        client_kwargs.setdefault("tracer", wire())
        if kind == "memory":
            a, b = MemoryTransport.pair()
            server = core_server.make_session(
                b, tracer=wire(check_received=False), **(server_kwargs or {})
            )
            await server.start()
            client = ClientSession(a, **client_kwargs)
            await client.start()
            pair = Pair(client, server, a)
        else:
            transport = StdioClientTransport(
                sys.executable,
                ["-m", "tests.servers.core_server"],
                env=server_env(**(server_env_extra or {})),
                cwd=str(ROOT),
            )
            client = ClientSession(transport, **client_kwargs)
            await client.start()
            pair = Pair(client, None, transport)
        opened.append(pair)
        return pair

    yield make
    for pair in opened:
        await pair.client.close()
        if pair.server is not None:
            await pair.server.close()
