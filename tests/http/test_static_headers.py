"""Headers the user configured (an API key, an ``Authorization`` value) go only to the
configured origin: a server cannot send them elsewhere with a redirect or with the
2024-11-05 HTTP+SSE ``endpoint`` event (two local servers on 127.0.0.1, two origins)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpkit import Client
from mcpkit.transports.http import running

SECRETS = {"X-Api-Key": "key-123", "Authorization": "Bearer user-secret"}


class Recorder:
    """An ASGI app that records each request's method, path and headers and answers with
    ``answer(scope)``: (status, headers, body), or an SSE stream for ``"sse"``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.answer: Any = lambda scope: (404, [], b"")
        self.sse_event = b""  # what an "sse" answer sends first

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.seen.append((scope["method"], scope["path"], headers))
        status, extra, body = self.answer(scope)
        if body == "sse":
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), *extra],
                }
            )
            await send({"type": "http.response.body", "body": self.sse_event, "more_body": True})
            with contextlib.suppress(Exception):
                while True:  # hold the stream open until the client leaves
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
            return
        await send({"type": "http.response.start", "status": status, "headers": extra})
        await send({"type": "http.response.body", "body": body})

    def secrets_seen(self) -> list[str]:
        return [
            f"{method} {path}: {name}"
            for method, path, headers in self.seen
            for name in ("x-api-key", "authorization")
            if name in headers
        ]


@contextlib.asynccontextmanager
async def two_origins() -> AsyncIterator[tuple[str, Recorder, str, Recorder]]:
    first, other = Recorder(), Recorder()
    async with running(first) as a, running(other) as b:
        yield a, first, b, other


async def connect(url: str) -> BaseException | None:
    try:
        async with asyncio.timeout(20):
            async with Client(url, headers=SECRETS, timeout=5) as client:
                await client.list_tools()
    except Exception as exc:
        return exc
    return None


@pytest.mark.parametrize("status", [302, 307, 308])
async def test_a_redirect_to_another_origin_gets_no_configured_headers(status: int) -> None:
    async with two_origins() as (a, first, b, other):
        first.answer = lambda scope: (status, [(b"location", f"{b}/mcp".encode())], b"")
        await connect(a + "/mcp")
    assert first.secrets_seen()  # the configured origin gets them
    assert other.seen, "the redirect was not followed at all"
    assert other.secrets_seen() == []


async def test_a_redirect_within_the_origin_keeps_them() -> None:
    async with two_origins() as (a, first, _b, _other):

        def answer(scope: Any) -> tuple[int, list[Any], bytes]:
            if scope["path"] == "/mcp":
                return 307, [(b"location", f"{a}/moved".encode())], b""
            return 404, [], b""

        first.answer = answer
        await connect(a + "/mcp")
    moved = [h for method, path, h in first.seen if path == "/moved"]
    assert moved and all(h.get("x-api-key") == "key-123" for h in moved)


async def test_an_endpoint_event_naming_another_origin_is_refused() -> None:
    async with two_origins() as (a, first, b, other):
        first.sse_event = f"event: endpoint\ndata: {b}/messages?session_id=1\n\n".encode()

        def answer(scope: Any) -> tuple[int, list[Any], Any]:
            if scope["method"] == "GET":
                return 200, [], "sse"
            return 405, [], b""

        first.answer = answer
        exc = await connect(a + "/mcp")
    assert other.seen == []  # nothing was sent to the other origin
    assert exc is not None and "origin" in str(exc), repr(exc)
    assert f"{b}/messages" in str(exc)


async def test_an_auth_proof_does_not_follow_a_redirect_elsewhere() -> None:
    """httpx drops ``Authorization`` on a redirect to another origin, not a ``DPoP`` proof."""
    import httpx

    class ProofAuth(httpx.Auth):
        def auth_flow(self, request: httpx.Request) -> Any:
            request.headers["Authorization"] = "DPoP token"
            request.headers["DPoP"] = "proof"
            yield request

    async with two_origins() as (a, first, b, other):
        first.answer = lambda scope: (307, [(b"location", f"{b}/mcp".encode())], b"")
        with contextlib.suppress(Exception):
            async with asyncio.timeout(20), Client(a + "/mcp", auth=ProofAuth(), timeout=5):
                pass
    assert any("dpop" in h for _, _, h in first.seen)
    assert other.seen and not any("dpop" in h or "authorization" in h for _, _, h in other.seen)
