"""List changes and resource updates of a proxy's upstream reach a 2026-07-28 client's
``subscriptions/listen`` as they reach a handshake-era client's session: on the proxy
itself, and on a parent the proxy is mounted in (``app.mount(ProxyServer(...),
prefix=...)``: resource URIs in the mount's namespace, subscribed upstream while the stream
is open). Upstreams of both eras over stdio, the parent served over HTTP, every message
checked against the schema."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mcpkit import Client, Server
from mcpkit.client import ClientHooks
from mcpkit.proxy import ProxyServer
from mcpkit.transports.http import running
from tests.proxy.conftest import fixture_command
from tests.wire import WireChecker


@contextlib.asynccontextmanager
async def served(app: Server[Any]) -> AsyncIterator[str]:
    async with app.running(), running(app.http_app()) as base:
        yield base + "/mcp"


def gateway(upstream: str, shape: str) -> tuple[Server[Any], str, str]:
    """The server the client talks to, the name of the fixture's ``add_tool`` and
    ``touch`` tools there, and its URI of ``fixture://greeting``."""
    proxy = ProxyServer(fixture_command(upstream))
    if shape == "plain":
        return proxy, "", "fixture://greeting"
    parent: Server[Any] = Server("parent")
    parent.add_tool(lambda: "own", name="own")
    parent.mount(proxy, prefix="fx")
    return parent, "fx_", "fx+fixture://greeting"


async def next_event(events: Any, method: str) -> Any:
    async with asyncio.timeout(30):
        async for event in events:
            if event.method == method:
                return event
    raise AssertionError("the listen stream ended")


@pytest.mark.parametrize("shape", ["mounted", "plain"])
@pytest.mark.parametrize("upstream", ["legacy", "modern"])
async def test_a_listen_stream_hears_the_upstream(
    upstream: str, shape: str, wire: Callable[..., WireChecker]
) -> None:
    app, prefix, uri = gateway(upstream, shape)
    checker = wire("2026-07-28")
    async with served(app) as url, Client(url, era="2026-07-28", tracer=checker) as client:
        async with client.listen(tools=True, resources=[uri]) as events:
            assert (await client.call_tool(prefix + "touch")).content[0].text == "touched"
            event = await next_event(events, "notifications/resources/updated")
            assert event.uri == uri
            await client.call_tool(prefix + "add_tool", {"name": "later"})
            await next_event(events, "notifications/tools/list_changed")
        assert prefix + "later" in {t.name for t in await client.list_tools()}
    frames = checker.received("notifications/resources/updated")
    assert [f["params"]["uri"] for f in frames] == [uri]


@pytest.mark.parametrize("upstream", ["legacy", "modern"])
async def test_a_handshake_session_of_the_parent_hears_the_same(
    upstream: str, wire: Callable[..., WireChecker]
) -> None:
    app, prefix, uri = gateway(upstream, "mounted")
    changed: asyncio.Queue[str] = asyncio.Queue()
    updated: asyncio.Queue[str] = asyncio.Queue()
    checker = wire("2025-11-25")
    async with (
        served(app) as url,
        Client(
            url,
            era="legacy",
            tracer=checker,
            hooks=ClientHooks(
                on_list_changed=changed.put_nowait, on_resource_updated=updated.put_nowait
            ),
        ) as client,
    ):
        await client.subscribe_resource(uri)
        await client.call_tool(prefix + "touch")
        assert await asyncio.wait_for(updated.get(), 30) == uri
        await client.call_tool(prefix + "add_tool", {"name": "later"})
        async with asyncio.timeout(30):
            while await changed.get() != "tools":
                pass
