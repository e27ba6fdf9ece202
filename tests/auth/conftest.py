"""Fixtures: a mock authorization server and an OAuth-protected mcpkit Server, both under
uvicorn on 127.0.0.1 (separate origins), and clients whose sessions are schema-checked."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson
import pytest

from mcpkit import Context, Server
from mcpkit.auth import ResourceServer
from mcpkit.transports.http import StreamableHTTPApp, running
from tests.auth.mock_as import MockAS
from tests.wire import WireChecker


class Late:
    """An ASGI app whose real app is set after the server is listening (its URL is the
    protected resource's identity, known only then)."""

    def __init__(self) -> None:
        self.app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        await self.app(scope, receive, send)


def make_server() -> Server:
    server = Server("protected", "1.0.0")

    @server.tool()
    def whoami(ctx: Context) -> str:
        """Who the request is authorized as."""
        token = ctx.auth
        if token is None:
            return "anonymous"
        return f"{token.client_id} {' '.join(sorted(token.scopes))}".strip()

    @server.tool()
    def write(text: str) -> str:
        """Needs the mcp:write scope (see scopes_for)."""
        return f"wrote {text}"

    return server


def write_needs_scope(method: str, params: Any) -> Iterable[str]:
    if method == "tools/call" and isinstance(params, dict) and params.get("name") == "write":
        return ["mcp:write"]
    return []


@dataclass
class Env:
    mock: MockAS
    rs: ResourceServer
    server: Server
    rs_base: str

    @property
    def url(self) -> str:
        return self.rs_base + "/mcp"

    def move_to(self, mock: MockAS) -> None:
        """The protected resource moves to the authorization server ``mock``: its metadata
        names only that one, and only that one's tokens are accepted from now on."""
        self.rs.authorization_servers[:] = [mock.issuer]
        self.rs.metadata["authorization_servers"] = [mock.issuer]
        self.rs._metadata_body = orjson.dumps(self.rs.metadata)
        self.rs._verify = self.rs._adapt(mock.verify)


@pytest.fixture
async def oauth_env(wire: Callable[..., WireChecker]) -> AsyncIterator[Any]:
    """``await oauth_env(mock=MockAS(...), **resource_server_options)`` -> Env."""
    async with contextlib.AsyncExitStack() as stack:

        async def make(
            mock: MockAS | None = None, *, root_resource: bool = False, **rs_options: Any
        ) -> Env:
            mock = mock or MockAS()
            mock.base = await stack.enter_async_context(running(mock.app()))
            late = Late()
            rs_base = await stack.enter_async_context(running(late))
            server = make_server()
            await stack.enter_async_context(server.running())
            rs_options.setdefault("authorization_servers", [mock.issuer])
            rs = ResourceServer(
                mock.verify,
                resource=rs_base if root_resource else rs_base + "/mcp",
                **rs_options,
            )
            late.app = StreamableHTTPApp(
                lambda t: server.session(t, tracer=wire()), path="/mcp", auth=rs
            )
            stack.push_async_callback(late.app.aclose)
            return Env(mock, rs, server, rs_base)

        yield make


@pytest.fixture
async def other_as() -> AsyncIterator[Any]:
    """``await other_as(MockAS(...))`` serves another authorization server (its client ids
    and tokens are numbered from 100, so they never collide with the first one's)."""
    async with contextlib.AsyncExitStack() as stack:

        async def make(mock: MockAS | None = None) -> MockAS:
            mock = mock or MockAS()
            mock._seq = iter(range(100, 10_000))
            mock.base = await stack.enter_async_context(running(mock.app()))
            return mock

        yield make
