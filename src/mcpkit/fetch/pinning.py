"""Connections only to the addresses the fetch policy checked.

:meth:`FetchPolicy.check <mcpkit.fetch.policy.FetchPolicy.check>` resolves a host before the
request; the connection would resolve it again, and a name whose answer changes in between
(DNS rebinding) would reach an address never checked. :func:`pinned_transport` gives an
``httpx`` transport whose connections resolve the host through the policy, check every
address, and connect to a checked address (TLS still verifies the host name). The MCP
server's own host and port connect as usual.
"""

from __future__ import annotations

import logging
import typing

import httpcore
import httpx

from mcpkit.fetch.policy import FetchPolicy, origin_of

__all__ = ["pinned_transport"]

logger = logging.getLogger("mcpkit.fetch")


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects a TCP stream to an address the policy allowed for ``server_url``."""

    def __init__(
        self, inner: httpcore.AsyncNetworkBackend, policy: FetchPolicy, server_url: str
    ) -> None:
        self._inner = inner
        self._policy = policy
        self._server_url = server_url
        _, host, port = origin_of(server_url)
        self._server = (host, port)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        targets = [host]
        if (host.lower(), port) != self._server:
            targets = await self._policy.addresses(
                host, server_url=self._server_url, url=f"{host}:{port}", what="host"
            )
        error: Exception | None = None
        for address in targets:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        assert error is not None
        raise error

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[typing.Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return await self._inner.connect_unix_socket(
            path, timeout=timeout, socket_options=socket_options
        )

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def pinned_transport(
    policy: FetchPolicy, server_url: str, **options: typing.Any
) -> httpx.AsyncHTTPTransport:
    """An ``httpx.AsyncHTTPTransport`` (``options`` as for it) whose connections go only to
    addresses ``policy`` allowed for the MCP server at ``server_url``."""
    transport = httpx.AsyncHTTPTransport(**options)
    pool = getattr(transport, "_pool", None)
    inner = getattr(pool, "_network_backend", None)
    if isinstance(inner, httpcore.AsyncNetworkBackend):
        pool._network_backend = _PinnedBackend(inner, policy, server_url)  # type: ignore[union-attr]
    else:  # an httpcore without that attribute: the checks before each request remain
        logger.warning("Cannot pin connections to checked addresses with this httpcore")
    return transport
