"""Streamable HTTP end to end: uvicorn on 127.0.0.1, the httpx client over real sockets."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest

from mcpkit.transports.http import StreamableHTTPClientTransport
from tests.http.conftest import call, text_of


async def test_initialize_call_and_delete_frees_everything(serve_app: Any, connect: Any) -> None:
    served = await serve_app()
    client = await connect(served.url)
    transport = client.transport
    assert isinstance(transport, StreamableHTTPClientTransport)
    sid = transport.session_id
    assert sid and all(0x21 <= ord(c) <= 0x7E for c in sid)
    assert transport.protocol_version == "2025-11-25"
    assert client.server_info["name"] == "core-test"
    assert text_of(await call(client, "echo", text="hi")) == "hi"
    assert list(served.app.sessions) == [sid]
    assert served.app.event_store.count(sid) > 0
    server_transport = weakref.ref(served.app.sessions[sid])
    server_session = weakref.ref(served.app.sessions[sid].sink)
    await client.close()  # sends DELETE
    assert served.app.sessions == {}
    assert served.app.event_store.count() == 0
    for _ in range(100):  # the last stream's coroutine lets go of it shortly after DELETE
        gc.collect()
        if server_transport() is None and server_session() is None:
            break
        await asyncio.sleep(0.01)
    assert server_transport() is None and server_session() is None


async def test_progress_travels_on_the_post_stream(serve_app: Any, connect: Any) -> None:
    served = await serve_app()
    client = await connect(served.url)
    seen: list[tuple[float, float | None, str | None]] = []
    result = await client.request(
        "tools/call",
        {"name": "sleep", "arguments": {"steps": 3, "delay": 0.01}},
        timeout=10,
        on_progress=lambda p, t, m: seen.append((p, t, m)),
    )
    assert text_of(result) == "slept 3"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_sampling_request_from_the_server_is_answered(serve_app: Any, connect: Any) -> None:
    served = await serve_app()
    client = await connect(served.url, capabilities={"sampling": {}})

    async def sample(params: Any, ctx: Any) -> Any:
        question = params["messages"][0]["content"]["text"]
        return {
            "role": "assistant",
            "content": {"type": "text", "text": f"answer to {question}"},
            "model": "test-model",
        }

    client.set_request_handler("sampling/createMessage", sample)
    result = await call(client, "sample", q="life")
    assert text_of(result) == "answer to life"


async def test_unrelated_messages_use_the_standalone_stream(serve_app: Any, connect: Any) -> None:
    served = await serve_app()
    client = await connect(served.url)
    got: asyncio.Queue[Any] = asyncio.Queue()
    client.set_notification_handler("notifications/message", got.put_nowait)
    assert text_of(await call(client, "announce", text="to everyone")) == "announced"
    params = await asyncio.wait_for(got.get(), 5)
    assert params == {"level": "info", "data": "to everyone"}


async def test_concurrent_calls_use_several_streams(serve_app: Any, connect: Any) -> None:
    served = await serve_app()
    client = await connect(served.url)
    results = await asyncio.gather(
        *(call(client, "echo", text=f"n{i}") for i in range(20)),
        call(client, "sleep", steps=2, delay=0.02),
    )
    assert [text_of(r) for r in results[:20]] == [f"n{i}" for i in range(20)]
    assert text_of(results[20]) == "slept 2"


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26", "2024-11-05"])
async def test_older_protocol_versions(serve_app: Any, connect: Any, version: str) -> None:
    served = await serve_app()
    client = await connect(served.url, protocol_version=version)
    assert client.transport.protocol_version == version
    assert text_of(await call(client, "echo", text=version)) == version


async def test_json_response_mode(serve_app: Any, connect: Any) -> None:
    served = await serve_app(json_response=True)
    client = await connect(served.url, capabilities={"sampling": {}})
    assert text_of(await call(client, "echo", text="json")) == "json"

    async def sample(params: Any, ctx: Any) -> Any:
        return {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}

    # With no SSE stream on the POST, the server's request goes on the GET stream.
    client.set_request_handler("sampling/createMessage", sample)
    assert text_of(await call(client, "sample", q="x")) == "ok"


async def test_stateless_mode(serve_app: Any, connect: Any) -> None:
    served = await serve_app(stateless=True)
    clients = [await connect(served.url) for _ in range(4)]
    for c in clients:
        assert c.transport.session_id is None
    results = await asyncio.gather(
        *(call(c, "echo", text=str(i)) for i, c in enumerate(clients) for _ in range(5))
    )
    assert sorted(text_of(r) for r in results) == sorted(str(i) for i in range(4) for _ in range(5))
    seen: list[Any] = []
    result = await clients[0].request(
        "tools/call",
        {"name": "sleep", "arguments": {"steps": 2, "delay": 0.01}},
        timeout=10,
        on_progress=lambda p, t, m: seen.append(p),
    )
    assert text_of(result) == "slept 2" and seen == [1, 2]
    assert served.app.sessions == {}


async def test_mounted_inside_starlette(serve_app: Any, connect: Any) -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    served = await serve_app(asgi=lambda app: Starlette(routes=[Mount("/api", app=app)]))
    client = await connect(served.base + "/api/mcp")
    assert text_of(await call(client, "echo", text="mounted")) == "mounted"


async def test_custom_headers_reach_the_server(serve_app: Any, connect: Any) -> None:
    seen: list[dict[bytes, bytes]] = []

    def spy(app: Any) -> Any:
        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                seen.append(dict(scope["headers"]))
            await app(scope, receive, send)

        return asgi

    served = await serve_app(asgi=spy)
    client = await connect(served.url, headers={"X-Custom": "yes"})
    await call(client, "echo", text="h")
    posts = [h for h in seen if b"x-custom" in h]
    assert posts and all(h[b"x-custom"] == b"yes" for h in posts)
    after_init = [h for h in posts if b"mcp-session-id" in h]
    assert after_init and all(h[b"mcp-protocol-version"] == b"2025-11-25" for h in after_init)


async def test_standalone_stream_is_open_before_the_first_call(
    serve_app: Any, connect: Any
) -> None:
    order: list[str] = []

    def spy(app: Any) -> Any:
        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                order.append(scope["method"])
            await app(scope, receive, send)

        return asgi

    served = await serve_app(asgi=spy)
    client = await connect(served.url)
    await call(client, "echo", text="x")
    # initialize, notifications/initialized, GET (answered), then the call.
    assert order[:4] == ["POST", "POST", "GET", "POST"]


async def test_idle_sse_streams_get_keepalive_comments(serve_app: Any) -> None:
    import httpx

    from tests.http import raw

    served = await serve_app(keepalive_interval=0.05)
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, served.url)
        async with http.stream("GET", served.url, headers=raw.headers(sid)) as r:
            assert r.status_code == 200
            seen = b""
            async for chunk in r.aiter_bytes():
                seen += chunk
                if seen.count(b": keep-alive") >= 2:
                    break
        assert seen.startswith(b"id: ")  # the priming event comes first
