"""``fastmcp.server.providers.proxy`` on mcpkit: :class:`FastMCPProxy` and the proxy
clients (see :mod:`mcpkit.compat.fastmcp._proxy`)."""

from __future__ import annotations

from mcpkit.compat.fastmcp._proxy import (
    FastMCPProxy,
    ProxyClient,
    StatefulProxyClient,
    create_proxy,
)

__all__ = ["FastMCPProxy", "ProxyClient", "StatefulProxyClient", "create_proxy"]
