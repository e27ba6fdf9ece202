"""Origin validation on every connection (the spec's security warning), through the ASGI app.

On a server not bound to loopback (no DNS-rebinding protection) a request without ``Origin``
passes; one with an ``Origin`` must be the origin its ``Host`` names or be listed in
``allowed_origins``, else 403 with a JSON-RPC error body. Loopback binds keep the
DNS-rebinding behaviour the conformance scenario expects.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson
import pytest

from mcpkit.jsonrpc import INVALID_REQUEST
from mcpkit.transports.http import StreamableHTTPApp
from mcpkit.transports.http.options import HttpServerOptions
from tests.http import raw
from tests.http import server as test_server
from tests.wire import WireChecker

Probe = Callable[..., Any]


@pytest.fixture
async def probe(wire: Callable[..., WireChecker]) -> AsyncIterator[Probe]:
    """``await probe(origin, host=..., bind=..., method="POST", **app_options)`` -> response.

    ``bind`` is the URL the ASGI server is reached at (its host is ``scope["server"]``)."""
    apps: list[StreamableHTTPApp] = []

    async def run(
        origin: str | None,
        *,
        host: str = "mcp.example.com",
        bind: str = "http://mcp.example.com",
        method: str = "POST",
        **options: Any,
    ) -> httpx.Response:
        app = StreamableHTTPApp(test_server.factory(wire), options=HttpServerOptions(**options))
        apps.append(app)
        headers = {**raw.headers(), "host": host}
        if origin is not None:
            headers["origin"] = origin
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=bind) as c:
            if method == "POST":
                return await c.post("/mcp", json=raw.init_message(), headers=headers)
            headers["accept"] = "text/event-stream"
            headers["mcp-session-id"] = "no-such-session"
            return await c.request(method, "/mcp", headers=headers)

    yield run
    for app in apps:
        await app.aclose()


def assert_forbidden(r: httpx.Response, what: str) -> None:
    assert r.status_code == 403
    assert r.headers["content-type"] == "application/json"
    body = orjson.loads(r.content)
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert body["error"]["code"] == INVALID_REQUEST
    assert body["error"]["message"].startswith(f"Forbidden: {what}")


async def test_no_origin_passes(probe: Probe) -> None:
    r = await probe(None)
    assert r.status_code == 200 and "mcp-session-id" in r.headers


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://mcp.example.com", "mcp.example.com"),
        ("https://mcp.example.com", "mcp.example.com"),  # TLS ends at a proxy
        ("http://MCP.example.com/", "mcp.example.com:80"),
        ("https://mcp.example.com:8443", "mcp.example.com:8443"),
        ("http://[2001:db8::1]:8080", "[2001:db8::1]:8080"),
    ],
)
async def test_same_origin_passes(probe: Probe, origin: str, host: str) -> None:
    assert (await probe(origin, host=host)).status_code == 200


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("https://evil.example.com", "mcp.example.com"),
        ("http://mcp.example.com:3000", "mcp.example.com"),  # another port
        ("http://mcp.example.com", "mcp.example.com:8080"),
        ("https://mcp.example.com", "mcp.example.com:80"),  # https is 443
        ("null", "mcp.example.com"),  # sandboxed frames, file:// pages
        ("ftp://mcp.example.com", "mcp.example.com"),
        ("http://user@mcp.example.com", "mcp.example.com"),
        ("http://", ""),
    ],
)
async def test_cross_origin_is_refused(probe: Probe, origin: str, host: str) -> None:
    r = await probe(origin, host=host)
    assert_forbidden(r, f"Origin {origin!r} is not allowed")


async def test_listed_origins_pass_and_do_not_restrict_host(probe: Probe) -> None:
    options = {"allowed_origins": ["https://app.example.com", "http://dev.example.com:*"]}
    assert (await probe("https://app.example.com", **options)).status_code == 200
    assert (await probe("http://dev.example.com:5173", **options)).status_code == 200
    assert (await probe("http://mcp.example.com", **options)).status_code == 200  # same origin
    assert_forbidden(await probe("https://evil.example.com", **options), "Origin")
    assert_forbidden(await probe("http://app.example.com", **options), "Origin")  # scheme


async def test_star_allows_every_origin(probe: Probe) -> None:
    assert (await probe("https://evil.example.com", allowed_origins=["*"])).status_code == 200


async def test_turning_dns_rebinding_protection_off_keeps_the_origin_check(probe: Probe) -> None:
    assert (await probe(None, dns_rebinding_protection=False)).status_code == 200
    r = await probe("https://evil.example.com", dns_rebinding_protection=False)
    assert_forbidden(r, "Origin")


@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_every_method_is_checked(probe: Probe, method: str) -> None:
    assert_forbidden(await probe("https://evil.example.com", method=method), "Origin")
    # With an acceptable Origin the request reaches the endpoint (an unknown session: 404).
    assert (await probe("http://mcp.example.com", method=method)).status_code == 404


async def test_loopback_bind_keeps_dns_rebinding_protection(probe: Probe) -> None:
    bind = "http://127.0.0.1:8000"
    assert_forbidden(
        await probe("http://evil.example.com", host="evil.example.com", bind=bind), "Host"
    )
    assert_forbidden(await probe(None, host="evil.example.com", bind=bind), "Host")
    assert (
        await probe("http://localhost:8000", host="localhost:8000", bind=bind)
    ).status_code == 200
    # A local web app on another port is a loopback origin: allowed, as before.
    assert (
        await probe("http://localhost:5173", host="localhost:8000", bind=bind)
    ).status_code == 200
    assert_forbidden(
        await probe("http://evil.example.com", host="localhost:8000", bind=bind), "Origin"
    )
