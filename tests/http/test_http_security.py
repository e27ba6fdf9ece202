"""DNS-rebinding protection (Host and Origin allow-lists) as the conformance suite probes it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.http import raw


async def probe(url: str, host: str, origin: str | None = "same") -> tuple[int, int | None]:
    """POST initialize then notifications/initialized with the given Host/Origin headers."""
    h = {**raw.headers(), "host": host, "mcp-protocol-version": "2025-11-25"}
    if origin == "same":
        h["origin"] = f"http://{host}"
    elif origin is not None:
        h["origin"] = origin
    async with httpx.AsyncClient(timeout=10) as http:
        r = await http.post(url, json=raw.init_message(), headers=h)
        if r.status_code != 200:
            return r.status_code, None
        h["mcp-session-id"] = r.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        r2 = await http.post(url, json=note, headers=h)
        return r.status_code, r2.status_code


async def test_localhost_default_rejects_foreign_host_and_origin(serve_app: Any) -> None:
    served = await serve_app()
    port = urlsplit(served.url).port
    assert (await probe(served.url, "evil.example.com"))[0] == 403
    assert (await probe(served.url, f"evil.example.com:{port}"))[0] == 403
    assert (await probe(served.url, f"localhost:{port}", "http://evil.example.com"))[0] == 403
    assert (await probe(served.url, f"localhost:{port}", "null"))[0] == 403
    assert await probe(served.url, f"localhost:{port}") == (200, 202)
    assert await probe(served.url, f"127.0.0.1:{port}", None) == (200, 202)
    assert await probe(served.url, f"[::1]:{port}", f"https://[::1]:{port}") == (200, 202)


async def test_custom_allow_lists(serve_app: Any) -> None:
    served = await serve_app(
        allowed_hosts=["mcp.example.com", "other.example.com:8443"],
        allowed_origins=["https://app.example.com", "http://dev.example.com:*"],
    )
    url = served.url
    assert (await probe(url, "mcp.example.com", None))[0] == 200
    assert (await probe(url, "other.example.com:8443", None))[0] == 200
    assert (await probe(url, "other.example.com:9999", None))[0] == 403
    assert (await probe(url, "localhost", None))[0] == 403  # not listed any more
    assert (await probe(url, "mcp.example.com", "https://app.example.com"))[0] == 200
    assert (await probe(url, "mcp.example.com", "http://dev.example.com:3000"))[0] == 200
    assert (await probe(url, "mcp.example.com", "https://evil.example.com"))[0] == 403


@pytest.mark.parametrize("setting", [False])
async def test_protection_can_be_turned_off(serve_app: Any, setting: bool) -> None:
    served = await serve_app(dns_rebinding_protection=setting)
    assert (await probe(served.url, "evil.example.com"))[0] == 200
