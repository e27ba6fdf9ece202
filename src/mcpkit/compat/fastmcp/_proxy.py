"""fastmcp's proxies on mcpkit: :func:`create_proxy` makes a :class:`FastMCPProxy`, a
``FastMCP`` whose server is a :class:`mcpkit.proxy.ProxyServer` of the target (anything
fastmcp's ``Client`` takes: a server object, a script, a URL, an ``mcpServers``
configuration, a ``Client`` or a transport)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from mcpkit import versions
from mcpkit.compat.fastmcp._server import FastMCP
from mcpkit.compat.fastmcp.client.client import Client
from mcpkit.compat.fastmcp.client.transports import ClientTransport, infer_transport
from mcpkit.envelope import SERVER_INFO_KEY
from mcpkit.jsonrpc import JSONObject
from mcpkit.proxy import FORWARDED_METHODS, ProxyServer

if TYPE_CHECKING:
    from mcpkit.server.session import ServerHandler

__all__ = ["FastMCPProxy", "ProxyClient", "StatefulProxyClient", "create_proxy"]


class ProxyClient(Client):
    """The client a proxy reaches its upstream with (fastmcp's name for it). A proxy uses
    its transport; what the upstream asks or sends during a call (sampling, elicitation,
    roots, logs, progress) always goes to the proxy's own client, whatever handlers are
    given here."""


class StatefulProxyClient(ProxyClient):
    """fastmcp's proxy client that keeps one upstream session per client session (what
    :class:`mcpkit.proxy.ProxyServer` does for a handshake-era upstream anyway)."""


def _transport(target: Any) -> ClientTransport:
    if isinstance(target, Client):
        return target.transport
    return infer_transport(target)


#: What fastmcp declares of its own, whatever the upstream declares.
_OWN = frozenset({"logging", "tools", "resources", "prompts", "completions"})


class _Proxy(ProxyServer):
    """A :class:`ProxyServer` presenting itself as a fastmcp proxy does: at ``initialize``
    it declares what a fastmcp server declares (the upstream's other capabilities, such as
    tasks, kept), and on the 2026-07-28 wire its own identity (``server/discover`` and the
    results' ``_meta``), not the upstream's."""

    def __init__(self, owner: FastMCP, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.compat_owner = owner
        self._own_table: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None

    def discover(self) -> JSONObject:
        result = super().discover()
        meta = result.get("_meta")
        return {**result, "_meta": {**(meta or {}), SERVER_INFO_KEY: dict(self.server_info)}}

    def handler_table(self) -> Mapping[str, ServerHandler]:
        table = super().handler_table()
        if self._own_table is None or self._own_table[0] is not table:
            own = dict(table)
            for method in FORWARDED_METHODS:
                if method in own:
                    own[method] = _without_upstream_identity(own[method])
            self._own_table = (table, own)
        return self._own_table[1]

    def capabilities(self, version: versions.ProtocolVersion = versions.LATEST) -> JSONObject:
        caps = super().capabilities(version)
        if version.era != "legacy":
            return caps
        own = self.compat_owner._declare_as(caps)
        return {**{k: v for k, v in caps.items() if k not in _OWN}, **own}


def _without_upstream_identity(handler: ServerHandler) -> ServerHandler:
    """``handler`` whose result's ``_meta`` loses the upstream's serverInfo (the session
    puts the proxy's own there on the 2026-07-28 wire)."""

    async def forward(params: JSONObject | None, rctx: Any) -> Any:
        result = await handler(params, rctx)
        meta = result.get("_meta") if isinstance(result, dict) else None
        if isinstance(meta, dict) and SERVER_INFO_KEY in meta:
            rest = {k: v for k, v in meta.items() if k != SERVER_INFO_KEY}
            result = (
                {**result, "_meta": rest}
                if rest
                else {k: v for k, v in result.items() if k != "_meta"}
            )
        return result

    return forward


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
            version=self.native.version,
            client_options=transport.client_options(),
        )
        self.native = proxy  # type: ignore[assignment]
        self.client_factory = client_factory


def create_proxy(target: Any, *, mode: str | None = None, **settings: Any) -> FastMCPProxy:
    """A proxy server of ``target`` (``name=`` and the other ``FastMCP`` settings apply to
    the proxy itself)."""
    return FastMCPProxy(target=target, **settings)
