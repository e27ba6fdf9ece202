"""Fixtures: the HTTP app under real uvicorn on 127.0.0.1, and schema-checked clients."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mcpkit.session import ClientSession
from mcpkit.transports.http import StreamableHTTPApp, StreamableHTTPClientTransport, running
from mcpkit.transports.http.options import FIELDS, HttpServerOptions
from tests.http import server as test_server
from tests.wire import WireChecker

CLIENT_INFO = {"name": "http-test-client", "version": "0.0.1"}


@pytest.fixture(autouse=True)
def _reset_events() -> None:
    test_server.EVENTS.clear()


class Served:
    def __init__(self, app: StreamableHTTPApp, base: str) -> None:
        self.app = app
        self.base = base
        self.url = base + app.path


@pytest.fixture
async def serve_app(wire: Callable[..., WireChecker]) -> AsyncIterator[Any]:
    """``await serve_app(check_received=True, **app_kwargs)`` -> Served (uvicorn, real port)."""
    async with contextlib.AsyncExitStack() as stack:

        async def make(*, check_received: bool = True, asgi: Any = None, **kwargs: Any) -> Served:
            settings = {k: kwargs.pop(k) for k in list(kwargs) if k in FIELDS}
            app = StreamableHTTPApp(
                test_server.factory(lambda: wire(check_received=check_received)),
                options=HttpServerOptions(**settings),
                **kwargs,
            )
            base = await stack.enter_async_context(running(asgi(app) if asgi else app))
            stack.push_async_callback(app.aclose)
            return Served(app, base)

        yield make


@pytest.fixture
async def connect(wire: Callable[..., WireChecker]) -> AsyncIterator[Any]:
    """``await connect(url, protocol_version=None, capabilities=None, **transport_kw)``."""
    opened: list[ClientSession] = []

    async def make(
        url: str,
        *,
        protocol_version: str | None = None,
        capabilities: dict[str, Any] | None = None,
        initialize: bool = True,
        **kwargs: Any,
    ) -> ClientSession:
        transport = StreamableHTTPClientTransport(url, **kwargs)
        client = ClientSession(transport, tracer=wire())
        opened.append(client)
        await client.start()
        if initialize:
            await client.initialize(
                CLIENT_INFO, capabilities or {}, protocol_version=protocol_version, timeout=10
            )
        return client

    yield make
    for client in opened:
        await client.close()


def text_of(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


async def call(client: ClientSession, name: str, timeout: float = 10, **arguments: Any) -> Any:
    return await client.request(
        "tools/call", {"name": name, "arguments": arguments}, timeout=timeout
    )
