"""The Host/Origin policy as a standalone ASGI middleware around any app."""

from __future__ import annotations

from typing import Any

import orjson

from mcpkit.transports.http.host_origin import HostOriginMiddleware


async def call(middleware: HostOriginMiddleware, headers: list[tuple[bytes, bytes]]) -> list[Any]:
    sent: list[Any] = []
    scope = {"type": "http", "method": "GET", "path": "/", "headers": headers}
    scope["server"] = ("127.0.0.1", 8000)

    async def receive() -> Any:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(message)

    await middleware(scope, receive, send)
    return sent


async def inner(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"inner"})


async def test_allowed_requests_reach_the_app_and_others_get_403() -> None:
    guard = HostOriginMiddleware(inner)
    ok = await call(guard, [(b"host", b"127.0.0.1:8000")])
    assert ok[0]["status"] == 200 and ok[1]["body"] == b"inner"
    rebinding = await call(guard, [(b"host", b"evil.example.com")])
    assert rebinding[0]["status"] == 403
    assert "DNS rebinding" in orjson.loads(rebinding[1]["body"])["error"]["message"]
    cross = await call(guard, [(b"host", b"127.0.0.1:8000"), (b"origin", b"https://evil.example")])
    assert cross[0]["status"] == 403
    assert "Origin 'https://evil.example'" in orjson.loads(cross[1]["body"])["error"]["message"]


async def test_listed_hosts_and_origins_pass() -> None:
    guard = HostOriginMiddleware(
        inner, allowed_hosts=["mcp.example.com:*"], allowed_origins=["https://app.example.com"]
    )
    headers = [(b"host", b"mcp.example.com:8443"), (b"origin", b"https://app.example.com")]
    assert (await call(guard, headers))[0]["status"] == 200


async def test_server_given_as_a_list_is_read_as_the_bind() -> None:
    """ASGI allows ``scope["server"]`` as a list (Starlette's TestClient sends one): the
    loopback bind is read from it as from a tuple, not a TypeError."""
    guard = HostOriginMiddleware(inner)
    sent: list[Any] = []
    scope = {"type": "http", "method": "GET", "path": "/", "server": ["127.0.0.1", 8000]}
    for host, status in ((b"127.0.0.1:8000", 200), (b"evil.example.com", 403)):
        sent.clear()

        async def receive() -> Any:
            return {"type": "http.request", "body": b""}

        async def send(message: Any) -> None:
            sent.append(message)

        await guard({**scope, "headers": [(b"host", host)]}, receive, send)
        assert sent[0]["status"] == status
