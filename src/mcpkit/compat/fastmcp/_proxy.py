"""fastmcp's proxies on mcpkit: :func:`create_proxy` makes a :class:`FastMCPProxy`, a
``FastMCP`` whose server is a :class:`mcpkit.proxy.ProxyServer` of the target (anything
fastmcp's ``Client`` takes: a server object, a script, a URL, an ``mcpServers``
configuration, a ``Client`` or a transport)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpkit import versions
from mcpkit.compat.fastmcp._server import FastMCP
from mcpkit.compat.fastmcp.client.client import Client
from mcpkit.compat.fastmcp.client.transports import ClientTransport, infer_transport
from mcpkit.jsonrpc import JSONObject
from mcpkit.proxy import ProxyServer

__all__ = ["FastMCPProxy", "ProxyClient", "create_proxy"]


class ProxyClient(Client):
    """The client a proxy reaches its upstream with (fastmcp's name for it)."""


def _transport(target: Any) -> ClientTransport:
    if isinstance(target, Client):
        return target.transport
    return infer_transport(target)


#: What fastmcp declares of its own, whatever the upstream declares.
_OWN = frozenset({"logging", "tools", "resources", "prompts", "completions"})


class _Proxy(ProxyServer):
    """A :class:`ProxyServer` declaring, at ``initialize``, what a fastmcp server declares
    (the upstream's other capabilities, such as tasks, kept)."""

    def __init__(self, owner: FastMCP, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.compat_owner = owner

    def capabilities(self, version: versions.ProtocolVersion = versions.LATEST) -> JSONObject:
        caps = super().capabilities(version)
        if version.era != "legacy":
            return caps
        own = self.compat_owner._declare_as(caps)
        return {**{k: v for k, v in caps.items() if k not in _OWN}, **own}


class FastMCPProxy(FastMCP):
    """A ``FastMCP`` server serving another server: every request is forwarded to it (see
    :class:`mcpkit.proxy.ProxyServer`); ``name`` is the proxy's own."""

    def __init__(
        self,
        *,
        client_factory: Callable[[], Any] | None = None,
        target: Any = None,
        **settings: Any,
    ) -> None:
        if (client_factory is None) == (target is None):
            raise TypeError("FastMCPProxy needs a client_factory or a target (not both)")
        if client_factory is not None:
            target = client_factory()
            if not isinstance(target, Client | ClientTransport):
                raise TypeError("client_factory must return a fastmcp Client")
        transport = _transport(target)
        super().__init__(**settings)
        proxy = _Proxy(
            self,
            transport.target(),
            name=self.native.name,
            version=self.native.version or None,
            client_options=transport.client_options(),
        )
        self.native = proxy  # type: ignore[assignment]
        self.client_factory = client_factory


def create_proxy(target: Any, *, mode: str | None = None, **settings: Any) -> FastMCPProxy:
    """A proxy server of ``target`` (``name=`` and the other ``FastMCP`` settings apply to
    the proxy itself)."""
    return FastMCPProxy(target=target, **settings)
