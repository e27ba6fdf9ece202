"""``fastmcp.server.proxy`` (fastmcp 2.x's path) on mcpkit: :class:`FastMCPProxy` and the
proxy clients (see :mod:`mcpkit.compat.fastmcp._proxy`)."""

from __future__ import annotations

from mcpkit.compat.fastmcp._proxy import FastMCPProxy, ProxyClient, StatefulProxyClient

__all__ = ["FastMCPProxy", "ProxyClient", "StatefulProxyClient"]
