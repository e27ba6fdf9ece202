"""The Streamable HTTP app checks a head's size and asks its Host/Origin policy once per
head and server address they let through (a head read before is the same
``RequestHeaders`` object): what it remembers never lets a request through that the policy
would refuse, for another policy (another app in the process), another server address or
another head, nor one larger than its app allows; and the policy cannot be changed under
it."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mcpkit import Server
from mcpkit.transports.http.asgi import read_headers
from mcpkit.transports.http.host_origin import HostOriginMiddleware

BODY = orjson.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}},
    }
)


def _app(**options: Any) -> Any:
    server = Server("heads", version="1")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    return server.http_app(stateless=True, json_response=True, **options)


async def _status(app: Any, host: bytes, bound: Any, origin: bytes | None = None) -> int:
    headers = [
        (b"host", host),
        (b"accept", b"application/json, text/event-stream"),
        (b"content-type", b"application/json"),
        (b"mcp-protocol-version", b"2025-11-25"),
    ]
    if origin is not None:
        headers.append((b"origin", origin))
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "query_string": b"",
        "headers": headers,
        "server": bound,
    }
    sent: list[Any] = []

    async def receive() -> Any:
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await app(scope, receive, send)
    status: int = sent[0]["status"]
    return status


LOOPBACK = ("127.0.0.1", 8000)
PUBLIC = ("203.0.113.7", 8000)


async def test_a_head_let_through_by_one_policy_is_judged_again_by_another() -> None:
    # Bound to a public address with no allowed_hosts, protection is off: any Host passes.
    # The same head (the same RequestHeaders object) must still be refused by an app whose
    # policy allows only other hosts, and by the first app on a loopback address.
    open_app = _app()
    strict_app = _app(allowed_hosts=["mcp.example.com"])
    evil = b"evil.example.com"
    assert await _status(open_app, evil, PUBLIC) == 200
    assert await _status(open_app, evil, PUBLIC) == 200  # (now remembered)
    assert await _status(strict_app, evil, PUBLIC) == 403
    assert await _status(open_app, evil, LOOPBACK) == 403
    assert await _status(open_app, evil, PUBLIC) == 200
    assert await _status(strict_app, b"mcp.example.com", PUBLIC) == 200


async def test_a_head_within_one_apps_limits_is_measured_again_by_another() -> None:
    # What the head remembers stands for its app's header limits too: the same head let
    # through by an app with the default limits is still too large for one with less.
    roomy, tight = _app(), _app(max_header_bytes=64)
    for _ in range(2):
        assert await _status(roomy, b"127.0.0.1:8000", LOOPBACK) == 200
        assert await _status(tight, b"127.0.0.1:8000", LOOPBACK) == 431
    few = _app(max_header_count=3)
    assert await _status(few, b"127.0.0.1:8000", LOOPBACK) == 431
    assert await _status(roomy, b"127.0.0.1:8000", LOOPBACK) == 200


async def test_a_refused_head_stays_refused() -> None:
    app = _app()
    for _ in range(3):
        assert await _status(app, b"evil.example.com", LOOPBACK) == 403
        assert (
            await _status(app, b"127.0.0.1:8000", LOOPBACK, origin=b"https://evil.example") == 403
        )
    assert await _status(app, b"127.0.0.1:8000", LOOPBACK) == 200


async def test_what_the_head_remembers_is_the_policy_and_the_address() -> None:
    app = _app()
    host = b"127.0.0.1:8000"
    assert await _status(app, host, LOOPBACK) == 200
    # The head read again is the one the app judged, and it names who let it through.
    h = read_headers(
        [
            (b"host", host),
            (b"accept", b"application/json, text/event-stream"),
            (b"content-type", b"application/json"),
            (b"mcp-protocol-version", b"2025-11-25"),
        ]
    )
    assert h.allowed == (app.app.host_origin, LOOPBACK)


def test_the_policy_cannot_be_changed_once_made() -> None:
    policy = HostOriginMiddleware(None, allowed_hosts=["a.example"])
    for name, value in (
        ("allowed_hosts", frozenset({"evil.example"})),
        ("allowed_origins", frozenset({"*"})),
        ("dns_rebinding_protection", False),
    ):
        with pytest.raises(AttributeError):
            setattr(policy, name, value)
    assert policy.allowed_hosts == frozenset({"a.example"})
    assert policy.allowed_origins is None and policy.dns_rebinding_protection is None
