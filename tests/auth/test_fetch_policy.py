"""What the OAuth client fetches when a server names a URL: a hostile MCP server (an httpx
mock transport, or a local server on 127.0.0.1) tries to make it fetch cloud metadata,
private addresses, huge and endless bodies."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from mcpkit.auth import OAuthClientAuth, headless_authorization_handler

LOOPBACK_SERVER = "http://127.0.0.1:8123/mcp"
PUBLIC_SERVER = "https://93.184.215.14/mcp"  # a public address: the mock answers, no network


class HostileServer:
    """An MCP server (and whatever else the client is sent to) on a mock transport: 401 with
    a challenge naming ``resource_metadata``, its PRM naming ``issuer``; records requests."""

    def __init__(
        self,
        server_url: str,
        *,
        resource_metadata: str | None = None,
        issuer: str | None = None,
        routes: dict[str, Callable[[httpx.Request], httpx.Response]] | None = None,
    ) -> None:
        self.server_url = server_url
        origin = httpx.URL(server_url)
        self.origin = f"{origin.scheme}://{origin.netloc.decode()}"
        self.resource_metadata = resource_metadata
        self.issuer = issuer
        self.routes = routes or {}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        url = str(request.url)
        if url in self.routes:
            return self.routes[url](request)
        if url == self.server_url:
            challenge = "Bearer"
            if self.resource_metadata:
                challenge += f' resource_metadata="{self.resource_metadata}"'
            return httpx.Response(401, headers={"www-authenticate": challenge})
        if url.startswith(self.origin + "/.well-known/oauth-protected-resource"):
            return httpx.Response(
                200,
                json={"resource": self.server_url, "authorization_servers": [self.issuer]},
            )
        return httpx.Response(404)

    def hosts(self) -> set[str]:
        return {r.url.host for r in self.requests}


async def attempt(server: HostileServer, **options: Any) -> BaseException | None:
    """One MCP request with OAuth through ``server``; the exception it ended with."""
    transport = httpx.MockTransport(server)
    async with httpx.AsyncClient(transport=transport) as oauth_http:
        options.setdefault("authorization_handler", headless_authorization_handler(oauth_http))
        auth = OAuthClientAuth(server.server_url, http_client=oauth_http, **options)
        async with httpx.AsyncClient(transport=transport, auth=auth) as http:
            try:
                await http.post(server.server_url, json={})
            except Exception as exc:
                return exc
    return None


def refused(exc: BaseException | None, url: str, rule: str) -> None:
    from mcpkit.errors import FetchRefused

    assert isinstance(exc, FetchRefused), repr(exc)
    assert exc.url == url and exc.rule == rule
    assert url in str(exc)


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/iam",
        "https://169.254.169.254/latest/meta-data/iam",
        "https://10.0.0.1/.well-known/oauth-protected-resource",
        "https://192.168.1.1/prm",
        "https://[::ffff:169.254.169.254]/prm",
        "https://[fd00:ec2::254]/prm",
        "https://0.0.0.0/prm",
    ],
)
async def test_resource_metadata_on_internal_addresses_is_never_requested(target: str) -> None:
    server = HostileServer(LOOPBACK_SERVER, resource_metadata=target)
    exc = await attempt(server)
    assert httpx.URL(target).host not in server.hosts()
    refused(exc, target, "address")


async def test_issuer_on_a_private_address_is_never_requested() -> None:
    server = HostileServer(LOOPBACK_SERVER, issuer="https://10.0.0.1")
    exc = await attempt(server)
    assert "10.0.0.1" not in server.hosts()
    refused(exc, "https://10.0.0.1/.well-known/oauth-authorization-server", "address")


async def test_a_public_server_cannot_point_at_loopback_or_plain_http() -> None:
    server = HostileServer(PUBLIC_SERVER, issuer="https://127.0.0.1:9000")
    exc = await attempt(server)
    assert "127.0.0.1" not in server.hosts()
    refused(exc, "https://127.0.0.1:9000/.well-known/oauth-authorization-server", "address")

    plain = HostileServer(PUBLIC_SERVER, resource_metadata="http://93.184.215.15/prm")
    exc = await attempt(plain)
    assert "93.184.215.15" not in plain.hosts()
    refused(exc, "http://93.184.215.15/prm", "scheme")


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "127.1"])
async def test_loopback_spelled_as_a_name_is_resolved_and_refused(host: str) -> None:
    """The system resolver reads these as 127.0.0.1; a public server cannot use them."""
    target = f"https://{host}/prm"
    server = HostileServer(PUBLIC_SERVER, resource_metadata=target)
    exc = await attempt(server)
    assert host not in server.hosts()
    refused(exc, target, "address")


async def test_names_are_resolved_and_every_address_checked() -> None:
    from mcpkit.fetch import FetchPolicy

    addresses = {"as.evil.example": ["93.184.215.16", "10.1.2.3"]}

    async def resolve(host: str) -> list[str]:
        return addresses[host]

    server = HostileServer(PUBLIC_SERVER, issuer="https://as.evil.example")
    exc = await attempt(server, fetch_policy=FetchPolicy(resolver=resolve))
    assert "as.evil.example" not in server.hosts()
    refused(exc, "https://as.evil.example/.well-known/oauth-authorization-server", "address")


async def test_allowed_networks_and_a_server_on_the_same_network() -> None:
    from mcpkit.fetch import FetchPolicy

    metadata = {
        "issuer": "https://10.0.0.1",
        "authorization_endpoint": "https://10.0.0.1/authorize",
        "token_endpoint": "https://10.0.0.1/token",
    }
    meta_url = "https://10.0.0.1/.well-known/oauth-authorization-server"
    routes = {meta_url: lambda r: httpx.Response(200, json=metadata)}
    allowed = HostileServer(LOOPBACK_SERVER, issuer="https://10.0.0.1", routes=routes)
    exc = await attempt(allowed, fetch_policy=FetchPolicy(allowed_networks=("10.0.0.0/8",)))
    assert "10.0.0.1" in allowed.hosts()  # fetched: the user allowed that network
    assert "FetchRefused" not in type(exc).__name__

    # an MCP server on a private address may name an authorization server next to it
    inside = HostileServer("https://10.0.0.9/mcp", issuer="https://10.0.0.1", routes=routes)
    exc = await attempt(inside)
    assert "10.0.0.1" in inside.hosts()
    assert "FetchRefused" not in type(exc).__name__
    # ... but never the metadata address
    meta = HostileServer("https://10.0.0.9/mcp", resource_metadata="https://169.254.169.254/x")
    refused(await attempt(meta), "https://169.254.169.254/x", "address")
    assert "169.254.169.254" not in meta.hosts()


async def test_a_huge_answer_stops_at_the_cap() -> None:
    sent = {"bytes": 0}
    chunk = b" " * 65536

    async def endless() -> AsyncIterator[bytes]:
        for _ in range(1600):  # 100 MiB
            sent["bytes"] += len(chunk)
            yield chunk

    prm = "http://127.0.0.1:8123/big-prm"
    server = HostileServer(
        LOOPBACK_SERVER,
        resource_metadata=prm,
        routes={prm: lambda r: httpx.Response(200, content=endless())},
    )
    exc = await attempt(server)
    assert sent["bytes"] <= 2 * 1024 * 1024
    refused(exc, prm, "size")


async def test_a_compressed_answer_is_refused() -> None:
    prm = "http://127.0.0.1:8123/gz-prm"
    server = HostileServer(
        LOOPBACK_SERVER,
        resource_metadata=prm,
        routes={
            prm: lambda r: httpx.Response(200, content=b"x", headers={"content-encoding": "gzip"})
        },
    )
    refused(await attempt(server), prm, "encoding")


@contextlib.asynccontextmanager
async def dripping_server() -> AsyncIterator[tuple[str, list[int]]]:
    """A raw HTTP server on 127.0.0.1 answering 401 on /mcp and, on every other path, a 200
    whose body comes one byte every 0.1 s, for ever; yields (base URL, bytes dripped)."""
    dripped = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            path = line.split()[1].decode()
            base = f"http://127.0.0.1:{port}"
            if path == "/mcp":
                challenge = f'Bearer resource_metadata="{base}/prm"'
                writer.write(
                    b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n"
                    + f"www-authenticate: {challenge}\r\n\r\n".encode()
                )
                await writer.drain()
                return
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n")
            while True:
                writer.write(b" ")
                await writer.drain()
                dripped[0] += 1
                await asyncio.sleep(0.1)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}", dripped
    finally:
        srv.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(srv.wait_closed(), 2)


async def test_a_slow_drip_hits_the_one_deadline() -> None:
    """``timeout`` bounds the whole discovery, not each read: a server sending a byte every
    0.1 s (never idle for the 1 s read timeout) is given up on."""
    async with dripping_server() as (base, dripped):
        auth = OAuthClientAuth(
            base + "/mcp", authorization_handler=headless_authorization_handler(), timeout=1.0
        )
        async with httpx.AsyncClient(auth=auth) as http:
            try:
                async with asyncio.timeout(20):  # without a deadline: for ever
                    await http.post(base + "/mcp", json={})
                exc: BaseException | None = None
            except Exception as caught:
                exc = caught
    assert not isinstance(exc, TimeoutError), "no deadline: still reading after 20 s"
    refused(exc, base + "/prm", "deadline")
    assert dripped[0] < 150


def test_policy_units() -> None:
    from mcpkit.fetch import FetchPolicy, address_kind

    assert address_kind("8.8.8.8") == "public"
    assert address_kind("127.0.0.2") == address_kind("::1") == "loopback"
    assert address_kind("10.0.0.1") == address_kind("100.64.0.1") == "private"
    assert address_kind("fe80::1") == address_kind("169.254.1.1") == "link-local"
    assert address_kind("169.254.169.254") == address_kind("::ffff:169.254.169.254") == "metadata"
    assert address_kind("64:ff9b::a9fe:a9fe") == "metadata"  # NAT64 of 169.254.169.254
    assert address_kind("0.0.0.0") == address_kind("224.0.0.1") == "reserved"
    with pytest.raises(ValueError):
        FetchPolicy(allowed_networks=("not a network",))


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("file:///etc/passwd", "scheme"),
        ("https://user:pw@as.example/x", "credentials"),
        ("https:///nohost", "host"),
    ],
)
async def test_url_rules(url: str, rule: str) -> None:
    from mcpkit.errors import FetchRefused
    from mcpkit.fetch import FetchPolicy

    with pytest.raises(FetchRefused) as info:
        await FetchPolicy().check(url, server_url=PUBLIC_SERVER)
    assert info.value.rule == rule and info.value.url == url


@contextlib.asynccontextmanager
async def plain_server() -> AsyncIterator[tuple[int, list[str]]]:
    """An HTTP server on 127.0.0.1 answering 200 ``{}``; yields (port, request lines)."""
    lines: list[str] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            lines.append((await reader.readline()).decode().strip())
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
            await writer.drain()
        writer.close()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield srv.sockets[0].getsockname()[1], lines
    finally:
        srv.close()


async def test_connections_go_only_to_checked_addresses() -> None:
    """DNS rebinding: the name answers a public address when checked and 127.0.0.1 when the
    connection resolves it again; the connection resolves through the policy and is refused.
    A name the policy allowed connects to the address it checked."""
    from mcpkit.errors import FetchRefused
    from mcpkit.fetch import Fetcher, FetchPolicy
    from mcpkit.fetch.pinning import pinned_transport

    answers: dict[str, list[list[str]]] = {
        "rebind.example": [["93.184.215.14"], ["127.0.0.1"]],
    }

    async def resolve(host: str) -> list[str]:
        if host == "pinned.example":
            return ["127.0.0.1"]
        return answers[host].pop(0)

    async with plain_server() as (port, lines):
        policy = FetchPolicy(resolver=resolve)
        async with httpx.AsyncClient(transport=pinned_transport(policy, PUBLIC_SERVER)) as http:
            with pytest.raises(FetchRefused) as info:
                await Fetcher(http, policy, PUBLIC_SERVER).request(
                    "GET", f"https://rebind.example:{port}/x", what="test"
                )
        assert info.value.rule == "address" and "127.0.0.1" in str(info.value)

        trusting = FetchPolicy(resolver=resolve, allowed_networks=("127.0.0.0/8",), allow_http=True)
        transport = pinned_transport(trusting, PUBLIC_SERVER)
        async with httpx.AsyncClient(transport=transport) as http:
            response = await Fetcher(http, trusting, PUBLIC_SERVER).request(
                "GET", f"http://pinned.example:{port}/ok", what="test"
            )
        assert response.status_code == 200 and response.json() == {}
    assert lines == ["GET /ok HTTP/1.1"]  # the rebinding request never connected


async def test_a_verifier_whose_discovery_is_refused_is_unavailable() -> None:
    """A resource server's introspection discovery refused by the policy (here: metadata over
    the size cap) is a verifier outage (503), not an invalid token."""
    from mcpkit.auth import IntrospectionVerifier, VerifierUnavailableError

    def huge(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b" " * (2 * 1024 * 1024))

    async with httpx.AsyncClient(transport=httpx.MockTransport(huge)) as http:
        verifier = IntrospectionVerifier(
            issuer="https://as.example.com", client_id="rs", client_secret="s", http_client=http
        )
        with pytest.raises(VerifierUnavailableError, match="larger than"):
            await verifier.verify_token("t")


async def test_a_loopback_server_may_use_http_on_loopback() -> None:
    from mcpkit.errors import FetchRefused
    from mcpkit.fetch import FetchPolicy

    policy = FetchPolicy()
    for url in (
        "http://127.0.0.1:9000/.well-known/oauth-authorization-server",
        "http://localhost:9000/token",
        "http://[::1]:9000/register",
    ):
        await policy.check(url, server_url=LOOPBACK_SERVER)  # allowed
    for server in (PUBLIC_SERVER, "https://10.0.0.9/mcp"):
        with pytest.raises(FetchRefused):
            await policy.check("http://127.0.0.1:9000/token", server_url=server)
    with pytest.raises(FetchRefused) as info:  # loopback server, but not loopback http
        await policy.check("http://93.184.215.14/token", server_url=LOOPBACK_SERVER)
    assert info.value.rule == "scheme"
