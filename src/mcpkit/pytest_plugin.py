"""pytest fixtures for testing an mcpkit server, loaded by pytest on its own once mcpkit is
installed (the ``pytest11`` entry point; ``-p no:mcpkit`` turns it off).

Define a fixture named ``mcp_server`` that returns your :class:`~mcpkit.Server`, then ask
for what the test needs::

    @pytest.fixture
    def mcp_server():
        return app                      # the Server of your project

    async def test_add(mcp_client):
        result = await mcp_client.call_tool("add", {"a": 1, "b": 2})
        assert result.structured_content == {"result": 3}

- ``mcp_client``: a :class:`~mcpkit.Client` connected in memory to ``mcp_server`` (see
  :func:`mcpkit.testing.connected`), closed after the test.
- ``mcp_http_url``: ``mcp_server`` served over Streamable HTTP by uvicorn on a free port of
  127.0.0.1 for the test (the ``http`` extra), its endpoint URL.
- ``mcp_http_client``: a :class:`~mcpkit.Client` connected to ``mcp_http_url``.
- ``task_clock``: a :class:`FakeClock` to hand to a task store
  (``MemoryTaskStore(clock=task_clock)``): ``task_clock.advance(seconds)`` moves time on,
  so a task's ttl can run out without the test waiting.

The async fixtures need pytest-asyncio (any mode); they run in the test's event loop.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcpkit.client import Client
    from mcpkit.server import Server

_pytest_asyncio: ModuleType | None
try:
    import pytest_asyncio as _pytest_asyncio
except ModuleNotFoundError:  # the async fixtures say what is missing when used
    _pytest_asyncio = None

__all__ = ["FakeClock"]


class FakeClock:
    """A clock that stands still until :meth:`advance` moves it: call it for the time (in
    seconds, like :func:`time.time`, from which it starts)."""

    def __init__(self, start: float | None = None) -> None:
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds`` (not backwards)."""
        if seconds < 0:
            raise ValueError("a FakeClock does not go backwards")
        self.now += seconds


def _async_fixture(func: Any) -> Any:
    if _pytest_asyncio is not None:
        return _pytest_asyncio.fixture(func)

    @pytest.fixture(name=func.__name__)
    def missing() -> Any:
        pytest.fail(
            f"the {func.__name__} fixture of mcpkit is async: install pytest-asyncio",
            pytrace=False,
        )

    return missing


@pytest.fixture
def mcp_server() -> Server[Any]:
    """The server under test: define a fixture of this name returning your Server."""
    pytest.fail(
        "mcpkit's fixtures test the Server that a fixture named 'mcp_server' returns: define "
        "it in your conftest.py (@pytest.fixture def mcp_server(): return app)",
        pytrace=False,
    )


@pytest.fixture
def task_clock() -> FakeClock:
    """A :class:`FakeClock` for task stores (``MemoryTaskStore(clock=task_clock)``)."""
    return FakeClock()


@_async_fixture
async def mcp_client(mcp_server: Server[Any]) -> AsyncIterator[Client]:
    """A Client connected in memory to ``mcp_server``."""
    from mcpkit.testing import connected

    async with connected(mcp_server) as client:
        yield client


@_async_fixture
async def mcp_http_url(mcp_server: Server[Any]) -> AsyncIterator[str]:
    """``mcp_server`` over Streamable HTTP on 127.0.0.1 (a free port): its endpoint URL."""
    from mcpkit.transports.http import running

    asgi = mcp_server.http_app()
    try:
        async with running(asgi) as base:
            yield base + asgi.app.path
    finally:
        await asgi.aclose()


@_async_fixture
async def mcp_http_client(mcp_http_url: str) -> AsyncIterator[Client]:
    """A Client connected to ``mcp_server`` over Streamable HTTP."""
    from mcpkit.client import Client
    from mcpkit.testing import DEFAULT_TEST_TIMEOUT

    async with Client(mcp_http_url, timeout=DEFAULT_TEST_TIMEOUT) as client:
        yield client
