"""What a client fetches when a server names a URL: the rules of :class:`FetchPolicy`.

A server can make the client fetch URLs it chooses: the ``resource_metadata`` of a
``WWW-Authenticate`` challenge, the authorization servers its metadata names, their
endpoints, a JWKS, icons. Each such URL is checked against one policy before any
connection is made:

- ``https`` only; plain ``http`` only to a loopback address when the MCP server itself is on
  loopback (or with ``allow_http``);
- no user-info (``user:pass@``) in the URL;
- the host is resolved and *every* address it resolves to is checked: loopback, private
  (RFC 1918, unique local, shared address space), link-local and the cloud metadata
  addresses are refused unless the MCP server itself is on an address of the same kind
  (a metadata address: only that very address), the address lies in ``allowed_networks``,
  or ``allow_private`` is set (it never opens the metadata addresses: name them in
  ``allowed_networks``); unspecified, multicast and reserved addresses are always refused;
- a URL on the MCP server's own origin is allowed as it is (the user chose that origin);
- the body is read as a stream and refused past ``max_bytes``; compressed bodies are refused;
- every fetch of one operation (a discovery, a registration, a token request) shares one
  ``deadline`` in seconds, however slowly the server answers.

A refusal is a :class:`~mcpkit.errors.FetchRefused` naming the URL and the rule. The HTTP
clients mcpkit makes for these fetches also connect only to checked addresses
(:mod:`mcpkit.fetch.pinning`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from mcpkit.errors import FetchRefused

__all__ = [
    "METADATA_ADDRESSES",
    "AddressKind",
    "FetchPolicy",
    "Resolver",
    "address_kind",
    "origin_of",
]

#: Resolves a host name to its addresses (text form); the default uses ``getaddrinfo``.
Resolver = Callable[[str], Awaitable[list[str]]]

#: How an address is classified: ``public``, ``loopback``, ``private``, ``link-local``,
#: ``metadata`` (a cloud instance metadata address) or ``reserved``.
AddressKind = str

#: Cloud instance metadata services (AWS, GCP, Azure, OpenStack; ECS; Alibaba; AWS IPv6).
METADATA_ADDRESSES: frozenset[ipaddress.IPv4Address | ipaddress.IPv6Address] = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254")
)

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_6TO4 = ipaddress.ip_network("2002::/16")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _embedded(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4), else ``ip``."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if ip in _6TO4:
            return ipaddress.IPv4Address((int(ip) >> 80) & 0xFFFFFFFF)
    return ip


def address_kind(address: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> AddressKind:
    """The kind of ``address`` (see :data:`AddressKind`)."""
    ip = _embedded(ipaddress.ip_address(address) if isinstance(address, str) else address)
    if ip in METADATA_ADDRESSES:
        return "metadata"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast or ip.is_unspecified or ip.is_reserved:
        return "reserved"
    return "public" if ip.is_global else "private"


def origin_of(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, lower case, the default port filled in."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def _literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None


async def _getaddrinfo(host: str) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    """The rules for every URL a server can make the client fetch (module docstring).

    ``max_bytes``: largest body read; ``deadline``: seconds for all fetches of one
    operation; ``allowed_networks``: CIDR blocks (``"10.0.0.0/8"``) the client may fetch
    from although they are not public; ``allow_private``: allow loopback, private and
    link-local addresses (not the metadata ones); ``allow_http``: allow plain ``http``
    anywhere; ``resolver``: an async ``host -> [address, ...]`` (default: the system's).
    """

    max_bytes: int = 1024 * 1024
    deadline: float = 30.0
    allowed_networks: tuple[str, ...] = ()
    allow_private: bool = False
    allow_http: bool = False
    resolver: Resolver | None = None
    _networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(
        init=False, repr=False, compare=False, default=()
    )

    def __post_init__(self) -> None:
        # parsed once (a ValueError for a bad block, now)
        networks = tuple(ipaddress.ip_network(net, strict=False) for net in self.allowed_networks)
        object.__setattr__(self, "_networks", networks)
        if self.max_bytes <= 0 or self.deadline <= 0:
            raise ValueError("max_bytes and deadline must be positive")

    async def resolve(self, host: str) -> list[str]:
        """The addresses ``host`` resolves to (an IP literal: itself)."""
        literal = _literal(host)
        if literal is not None:
            return [str(literal)]
        return await (self.resolver or _getaddrinfo)(host)

    def _allowed_network(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        candidates = {ip, _embedded(ip)}
        return any(
            c in net for net in self._networks for c in candidates if c.version == net.version
        )

    async def check(self, url: str, *, server_url: str, what: str = "URL") -> None:
        """Refuse ``url`` (what the client was about to fetch, for the message) with
        :class:`~mcpkit.errors.FetchRefused` unless the rules allow it for the MCP server
        at ``server_url``. Resolves names; connects nowhere."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        host = (parts.hostname or "").lower()
        if scheme not in ("https", "http"):
            raise FetchRefused(
                f"Refused to fetch the {what} {url}: not https", url=url, rule="scheme"
            )
        if not host:
            raise FetchRefused(f"Refused to fetch the {what} {url}: no host", url=url, rule="host")
        if parts.username is not None or parts.password is not None:
            raise FetchRefused(
                f"Refused to fetch the {what} {url}: it carries credentials (user-info)",
                url=url,
                rule="credentials",
            )
        if origin_of(url) == origin_of(server_url):
            return  # the MCP server's own origin: the user chose it
        addresses = await self.addresses(host, server_url=server_url, url=url, what=what)
        if scheme == "http" and not self.allow_http:
            loopback_server = False
            if {address_kind(a) for a in addresses} == {"loopback"}:
                server = await self._server_addresses(server_url)
                loopback_server = {address_kind(a) for a in server} == {"loopback"}
            if not loopback_server:
                raise FetchRefused(
                    f"Refused to fetch the {what} {url}: not https (plain http is allowed "
                    "only on loopback, for an MCP server on loopback)",
                    url=url,
                    rule="scheme",
                )

    async def addresses(
        self, host: str, *, server_url: str, url: str | None = None, what: str = "URL"
    ) -> list[str]:
        """The addresses ``host`` resolves to, every one of them allowed for the MCP server
        at ``server_url``; :class:`~mcpkit.errors.FetchRefused` (naming ``url``) when it does
        not resolve or any address is refused."""
        url = url or host
        try:
            addresses = [a.split("%", 1)[0] for a in await self.resolve(host)]
        except (OSError, UnicodeError) as exc:
            raise FetchRefused(
                f"Refused to fetch the {what} {url}: its host does not resolve ({exc})",
                url=url,
                rule="address",
            ) from None
        if not addresses:
            raise FetchRefused(
                f"Refused to fetch the {what} {url}: its host does not resolve",
                url=url,
                rule="address",
            )
        server_kinds: set[str] | None = None
        server_addrs: set[str] = set()
        for text in addresses:
            ip = ipaddress.ip_address(text)
            kind = address_kind(ip)
            if kind == "public" or self._allowed_network(ip):
                continue
            if self.allow_private and kind in ("loopback", "private", "link-local"):
                continue
            if server_kinds is None:
                server_addrs = set(await self._server_addresses(server_url))
                server_kinds = {address_kind(a) for a in server_addrs}
            if kind == "metadata" and str(_embedded(ip)) in server_addrs:
                continue
            if kind not in ("metadata", "reserved") and kind in server_kinds:
                continue
            raise FetchRefused(
                f"Refused to fetch the {what} {url}: {host} is a {kind} address ({ip}) and "
                "the MCP server is not on that network (allow it with "
                "FetchPolicy(allowed_networks=...) if you trust it)",
                url=url,
                rule="address",
            )
        return addresses

    async def _server_addresses(self, server_url: str) -> list[str]:
        """The MCP server's addresses (none when its host does not resolve)."""
        host = urlsplit(server_url).hostname or ""
        try:
            return [a.split("%", 1)[0] for a in await self.resolve(host)] if host else []
        except (OSError, UnicodeError):
            return []
