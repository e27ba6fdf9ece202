"""Client behaviour: transparent re-initialization, legacy fallback, errors, session limits."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import httpx
import pytest

from mcpkit.errors import McpError
from mcpkit.transports.http import HTTP_ERROR
from tests.http.conftest import call, text_of


async def test_reinitializes_once_on_404_and_retries(serve_app: Any, connect: Any) -> None:
    posts: list[str] = []

    def spy(app: Any) -> Any:
        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                posts.append(dict(scope["headers"]).get(b"mcp-session-id", b"").decode())
            await app(scope, receive, send)

        return asgi

    served = await serve_app(asgi=spy)
    client = await connect(served.url)
    old = client.transport.session_id
    assert text_of(await call(client, "echo", text="before")) == "before"
    assert await served.app.terminate_session(old)
    assert text_of(await call(client, "echo", text="after")) == "after"
    new = client.transport.session_id
    assert new and new != old
    assert list(served.app.sessions) == [new]
    # The failed POST carried the old id; the retry carried the new one.
    assert old in posts and posts[-1] == new
    # Concurrent calls after another expiry re-initialize only once.
    assert await served.app.terminate_session(new)
    results = await asyncio.gather(*(call(client, "echo", text=str(i)) for i in range(5)))
    assert [text_of(r) for r in results] == [str(i) for i in range(5)]
    assert len(served.app.sessions) == 1


async def test_legacy_http_sse_fallback(serve_app: Any, connect: Any) -> None:
    served = await serve_app(legacy_sse=True)
    client = await connect(served.base + "/sse", protocol_version="2024-11-05")
    assert client.transport._legacy is not None
    assert text_of(await call(client, "echo", text="old school")) == "old school"
    seen: list[Any] = []
    result = await client.request(
        "tools/call",
        {"name": "sleep", "arguments": {"steps": 2, "delay": 0.01}},
        timeout=10,
        on_progress=lambda p, t, m: seen.append(p),
    )
    assert text_of(result) == "slept 2" and seen == [1, 2]
    assert len(served.app.legacy.sessions) == 1
    await client.close()
    for _ in range(200):  # the server notices the closed stream and ends the session
        if not served.app.legacy.sessions:
            break
        await asyncio.sleep(0.01)
    assert served.app.legacy.sessions == {}


async def test_no_fallback_when_legacy_is_absent(serve_app: Any, connect: Any) -> None:
    served = await serve_app()
    client = await connect(served.base + "/nothing-here", initialize=False)
    with pytest.raises(McpError) as info:
        await client.initialize({"name": "c", "version": "1"}, timeout=10)
    assert info.value.code == HTTP_ERROR and "404" in info.value.message


async def test_http_errors_reach_the_call(serve_app: Any, connect: Any) -> None:
    broken = {"on": False}

    def flaky(app: Any) -> Any:
        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and broken["on"] and scope["method"] == "POST":
                await send({"type": "http.response.start", "status": 500, "headers": []})
                await send({"type": "http.response.body", "body": b"database on fire"})
                return
            await app(scope, receive, send)

        return asgi

    served = await serve_app(asgi=flaky)
    client = await connect(served.url)
    broken["on"] = True
    with pytest.raises(McpError) as info:
        await call(client, "echo", text="x")
    assert info.value.code == HTTP_ERROR
    assert "500" in info.value.message and "database on fire" in info.value.message
    assert info.value.data == {"status": 500}
    broken["on"] = False
    assert text_of(await call(client, "echo", text="back")) == "back"


async def test_unreachable_server_fails_fast(connect: Any) -> None:
    # Bound and not listening: refused, and no other process can take the port meanwhile.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        client = await connect(f"http://127.0.0.1:{port}/mcp", initialize=False)
        with pytest.raises(McpError) as info:
            await client.initialize({"name": "c", "version": "1"}, timeout=10)
    assert info.value.code == HTTP_ERROR and "ConnectError" in str(info.value.data)


async def test_auth_hook_is_used(serve_app: Any, connect: Any) -> None:
    class Token(httpx.Auth):
        def __init__(self) -> None:
            self.calls = 0

        def auth_flow(self, request: httpx.Request) -> Any:
            self.calls += 1
            request.headers["authorization"] = "Bearer t0ken"
            yield request

    seen: list[bytes] = []

    def gate(app: Any) -> Any:
        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                auth = dict(scope["headers"]).get(b"authorization", b"")
                seen.append(auth)
                if auth != b"Bearer t0ken":
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b""})
                    return
            await app(scope, receive, send)

        return asgi

    served = await serve_app(asgi=gate)
    token = Token()
    client = await connect(served.url, auth=token)
    assert text_of(await call(client, "echo", text="authed")) == "authed"
    assert token.calls >= 3 and set(seen) == {b"Bearer t0ken"}


async def test_idle_sessions_expire(serve_app: Any, connect: Any) -> None:
    served = await serve_app(session_idle_timeout=0.2)
    client = await connect(served.url, standalone_stream=False)
    sid = client.transport.session_id
    for _ in range(300):
        if sid not in served.app.sessions:
            break
        await asyncio.sleep(0.01)
    assert served.app.sessions == {}
    assert served.app.event_store.count() == 0
    # The client notices on its next call (404) and starts over transparently.
    assert text_of(await call(client, "echo", text="again")) == "again"


async def test_a_session_with_an_open_stream_is_not_idle(serve_app: Any, connect: Any) -> None:
    # Reaped by hand once both sessions are past the timeout: the open GET stream alone
    # keeps one of them (a reaper running on a clock would race the stream's opening).
    served = await serve_app(session_idle_timeout=None)
    client = await connect(served.url)
    other = await connect(served.url, standalone_stream=False)
    await call(client, "echo", text="opens the GET stream first")
    sid, other_sid = client.transport.session_id, other.transport.session_id
    transport = served.app.sessions[sid]
    for _ in range(500):
        if not transport.idle():  # the server holds the GET stream
            break
        await asyncio.sleep(0.01)
    assert not transport.idle()
    served.app.session_idle_timeout = 0.01
    await asyncio.sleep(0.05)
    await served.app.table.reap()
    assert sid in served.app.sessions
    assert other_sid not in served.app.sessions  # no stream, as old: reaped


async def test_number_of_sessions_is_bounded(serve_app: Any, connect: Any) -> None:
    served = await serve_app(max_sessions=2)
    await connect(served.url)
    await connect(served.url)
    third = await connect(served.url, initialize=False)
    with pytest.raises(McpError) as info:
        await third.initialize({"name": "c", "version": "1"}, timeout=10)
    assert "503" in info.value.message
    assert len(served.app.sessions) == 2


async def test_get_is_405_when_stateless(serve_app: Any) -> None:
    served = await serve_app(stateless=True)
    async with httpx.AsyncClient() as http:
        r = await http.get(served.url, headers={"accept": "text/event-stream"})
        assert r.status_code == 405
        r = await http.delete(served.url)
        assert r.status_code == 405


async def test_an_error_without_text_is_named_by_its_type(connect: Any) -> None:
    """httpx's read timeout has no text: the call's error names it instead of ending in ': '."""

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(65536)  # takes the request, never answers
        await asyncio.sleep(30)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        client = await connect(
            f"http://127.0.0.1:{port}/mcp", initialize=False, sse_read_timeout=0.3
        )
        with pytest.raises(McpError) as info:
            await client.initialize({"name": "c", "version": "1"}, timeout=10)
        assert info.value.code == HTTP_ERROR
        assert info.value.message.endswith("failed: ReadTimeout"), info.value.message
    finally:
        server.close()
