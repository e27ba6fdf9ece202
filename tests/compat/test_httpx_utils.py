"""``mcp.shared._httpx_utils.create_mcp_http_client`` (what the official SDK's
``servers/simple-tool`` imports; those servers are compared in
``test_examples_official.py``): the SDK's defaults, on the library the SDK of the server
uses."""

from __future__ import annotations

import httpx

from mcpkit.compat.mcp.shared._httpx_utils import (
    MCP_DEFAULT_SSE_READ_TIMEOUT,
    MCP_DEFAULT_TIMEOUT,
    create_mcp_http_client,
)


async def test_the_sdk_defaults() -> None:
    async with create_mcp_http_client(headers={"User-Agent": "probe"}) as client:
        assert client.follow_redirects is True
        assert client.headers["user-agent"] == "probe"
        timeout = client.timeout
        assert (timeout.connect, timeout.write, timeout.pool) == (MCP_DEFAULT_TIMEOUT,) * 3
        assert timeout.read == MCP_DEFAULT_SSE_READ_TIMEOUT


async def test_a_1x_timeout_gives_an_httpx_client() -> None:
    auth = httpx.BasicAuth("user", "pass")
    async with create_mcp_http_client(timeout=httpx.Timeout(5.0), auth=auth) as client:
        assert type(client) is httpx.AsyncClient
        assert client.timeout == httpx.Timeout(5.0)
        assert client.auth is auth


async def test_without_a_timeout_httpx2_when_installed() -> None:
    try:
        import httpx2 as expected  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        expected = httpx
    async with create_mcp_http_client() as client:
        assert type(client) is expected.AsyncClient
