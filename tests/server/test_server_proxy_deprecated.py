"""``Server.proxy`` is deprecated for ``mcpkit.proxy.ProxyServer``: it warns, naming the
replacement, and still serves the target."""

from __future__ import annotations

import pytest

from mcpkit import Client, Server
from mcpkit.proxy import ProxyServer


async def test_server_proxy_warns_and_still_proxies() -> None:
    upstream = Server("upstream")

    @upstream.tool()
    def ping() -> str:
        return "pong"

    with pytest.warns(DeprecationWarning, match=r"mcpkit\.proxy\.ProxyServer"):
        proxy = Server.proxy(upstream)
    assert isinstance(proxy, ProxyServer)
    async with Client(proxy) as client:
        assert client.server_info.name == "upstream"  # as the upstream presents itself
        assert (await client.call_tool("ping")).text == "pong"
