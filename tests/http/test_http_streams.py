"""Streamable HTTP streams, sessions and event stores.

Every server-to-client message a request causes rides that request's POST stream; the
default event store and turning resumption off; a stream cut with no resumability fails the
call instead of hanging; DELETE mid-request over many sessions leaves nothing behind; the
default bind address.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import weakref
from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Context, McpError, Server
from mcpkit.transports.http import HTTP_ERROR, MemoryEventStore, StreamableHTTPApp, running
from mcpkit.transports.http.options import HttpServerOptions
from tests.http import raw
from tests.http import server as test_server
from tests.http.conftest import call


def related_app() -> Server:
    app = Server("related")

    @app.tool()
    async def everything(ctx: Context) -> str:
        """Progress, a log line, elicitation, roots and sampling, then the result."""
        await ctx.progress(1, 2)
        await ctx.info("starting")
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        roots = await ctx.list_roots()
        sampled = await ctx.sample("Say hi", max_tokens=5)
        await ctx.progress(2, 2)
        name = answer.content["name"] if answer.content else "?"
        return f"{name} {len(roots)} {sampled.content.text}"  # type: ignore[union-attr]

    return app


ANSWERS: dict[str, Any] = {
    "elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
    "roots/list": {"roots": [{"uri": "file:///tmp", "name": "tmp"}]},
    "sampling/createMessage": {
        "role": "assistant",
        "content": {"type": "text", "text": "hi"},
        "model": "m",
    },
}


async def test_related_requests_and_notifications_ride_the_post_stream() -> None:
    asgi = related_app().http_app()
    async with running(asgi) as base, httpx.AsyncClient(timeout=10) as http:
        url = base + "/mcp"
        init = raw.init_message()
        init["params"]["capabilities"] = {
            "elicitation": {"form": {}},
            "roots": {},
            "sampling": {},
        }
        r = await http.post(url, json=init, headers=raw.headers())
        sid = r.headers["mcp-session-id"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await http.post(url, json=note, headers=raw.headers(sid))).status_code == 202
        got: list[Any] = []
        decoder = raw.SSEDecoder()
        request = raw.tool_call(1, "everything", progress=True)
        async with http.stream("POST", url, json=request, headers=raw.headers(sid)) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            async for chunk in stream.aiter_bytes():
                for event in decoder.feed(chunk):
                    if not event.data:
                        continue
                    message = orjson.loads(event.data)
                    got.append(message)
                    method = message.get("method")
                    if method in ANSWERS and "id" in message:
                        reply = {"jsonrpc": "2.0", "id": message["id"], "result": ANSWERS[method]}
                        r = await http.post(url, json=reply, headers=raw.headers(sid))
                        assert r.status_code == 202 and r.content == b""
        assert [m.get("method", "response") for m in got] == [
            "notifications/progress",
            "notifications/message",
            "elicitation/create",
            "roots/list",
            "sampling/createMessage",
            "notifications/progress",
            "response",
        ]
        assert got[-1]["id"] == 1 and got[-1]["result"]["content"][0]["text"] == "Ada 1 hi"
        # Each message went on exactly one stream: none of them on the standalone one.
        transport = asgi.sessions[sid]
        assert asgi.event_store.replay(sid, transport._standalone.key, 0) in (None, [])


async def test_default_event_store_is_in_memory_and_false_turns_resumption_off(
    serve_app: Any,
) -> None:
    assert isinstance(StreamableHTTPApp(test_server.factory()).event_store, MemoryEventStore)
    served = await serve_app(event_store=False, check_received=False)
    assert served.app.event_store is None
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, served.url)
        async with http.stream(
            "POST",
            served.url,
            json=raw.tool_call(1, "sleep", progress=True, steps=2, delay=0.01),
            headers=raw.headers(sid),
        ) as r:
            events = await raw.read_events(r)
        assert [e.id for e in events] == [None, None, None]  # no ids, no priming event
        assert raw.messages(events)[-1]["id"] == 1
        r = await http.get(served.url, headers={**raw.headers(sid), "last-event-id": "ab-1"})
        assert r.status_code == 400


async def test_a_cut_stream_without_resumability_fails_the_call(
    serve_app: Any, connect: Any
) -> None:
    served = await serve_app(event_store=False)
    client = await connect(served.url)
    with pytest.raises(McpError) as info:
        await call(client, "cut", steps=2)
    assert info.value.code == HTTP_ERROR
    assert "ended before the response" in info.value.message
    assert test_server.EVENTS["closed"] is True
    # The session is still usable.
    assert (await call(client, "echo", text="ok"))["content"][0]["text"] == "ok"


async def test_delete_mid_request_frees_every_session(serve_app: Any) -> None:
    served = await serve_app(check_received=False)
    test_server.EVENTS["gate"] = asyncio.Event()  # never set: every call is still running
    transports: weakref.WeakSet[Any] = weakref.WeakSet()
    sessions: weakref.WeakSet[Any] = weakref.WeakSet()
    tracked: list[str] = []
    async with httpx.AsyncClient(timeout=10) as http:

        async def one() -> list[Any]:
            sid = await raw.open_session(http, served.url)
            transport = served.app.sessions[sid]
            transports.add(transport)
            sessions.add(transport.sink)
            tracked.append(sid)
            async with http.stream(
                "POST",
                served.url,
                json=raw.tool_call(1, "wait", progress=True),
                headers=raw.headers(sid),
            ) as r:
                chunks = r.aiter_bytes()
                decoder = raw.SSEDecoder()
                first: list[Any] = []
                async for chunk in chunks:
                    first += [orjson.loads(e.data) for e in decoder.feed(chunk) if e.data]
                    if first:
                        break
                assert first[0]["params"]["progress"] == 1
                r2 = await http.delete(served.url, headers=raw.headers(sid))
                assert r2.status_code == 200
                # The stream ends (no response will come).
                rest = [
                    orjson.loads(e.data)
                    async for chunk in chunks
                    for e in decoder.feed(chunk)
                    if e.data
                ]
            r3 = await http.post(
                served.url, json=raw.tool_call(2, "echo", text="x"), headers=raw.headers(sid)
            )
            assert r3.status_code == 404
            return rest

        leftovers = await asyncio.gather(*(one() for _ in range(20)))
    assert all("result" not in m for rest in leftovers for m in rest)
    assert served.app.sessions == {}
    assert served.app.event_store.count() == 0
    assert len(set(tracked)) == 20
    for _ in range(500):  # request coroutines finish unwinding shortly after the DELETEs
        gc.collect()
        if not transports and not sessions:
            break
        await asyncio.sleep(0.01)
    assert not transports and not sessions


def test_run_binds_to_loopback_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcpkit.transports.http as http_pkg

    serve_module = importlib.import_module("mcpkit.transports.http.serve")  # not the function

    seen: dict[str, Any] = {}

    def fake_running(app: Any, host: str, port: int) -> Any:
        seen.update(host=host, port=port)
        raise KeyboardInterrupt  # as if stopped at once (run ends quietly)

    monkeypatch.setattr(http_pkg, "running", fake_running)
    monkeypatch.setattr(serve_module, "running", fake_running)  # where Server.run finds it
    Server("bind").run("http")
    assert seen == {"host": "127.0.0.1", "port": 8000}


async def test_running_binds_to_loopback_by_default() -> None:
    async with running(lambda scope, receive, send: None, lifespan="off") as base:
        assert base.startswith("http://127.0.0.1:")


def test_memory_store_bounds_bytes_per_session_and_in_total() -> None:
    store = MemoryEventStore(max_bytes_per_session=10_000, max_bytes=25_000)
    store.store_event("a", "s", 0, None)
    for seq in range(1, 101):  # 100 KB at one session: only the newest ~10 KB stay
        store.store_event("a", "s", seq, b"x" * 1000)
    replay = store.replay("a", "s", 0)
    assert replay is not None and [seq for seq, _ in replay] == list(range(91, 101))
    assert store.size == 10_000
    # Two more sessions: the total stays under 25 KB, the least recently written loses first.
    for seq in range(1, 11):
        store.store_event("b", "s", seq, b"y" * 1000)
    for seq in range(1, 11):
        store.store_event("c", "s", seq, b"z" * 1000)
    assert store.size <= 25_000
    assert store.count("c") == 10 and store.count("b") == 10 and store.count("a") == 5
    # One event bigger than every bound is still kept (it is the newest), alone.
    store.store_event("c", "s", 11, b"!" * 40_000)
    assert store.replay("c", "s", 10) == [(11, b"!" * 40_000)]
    assert store.count("c") == 1 and store.count() == 1 and store.size == 40_000
    store.delete_session("c")
    assert store.size == 0 and store.count() == 0


async def test_client_resumes_a_broken_connection_with_nothing_lost(
    serve_app: Any, connect: Any
) -> None:
    """The connection breaks mid-response (no clean end, no ``retry``): the client resumes
    with ``Last-Event-ID`` and every progress notification and the result arrive once."""
    resumed: list[str] = []
    state = {"cut": False}

    def breaker(app: Any) -> Any:
        async def asgi(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "GET":
                last = dict(scope["headers"]).get(b"last-event-id")
                if last is not None:
                    resumed.append(last.decode())

            async def cutting_send(message: Any) -> None:
                body = message.get("body", b"")
                if not state["cut"] and b'"progress":2' in body:
                    state["cut"] = True
                    raise OSError("connection reset")  # the server's side of a broken socket
                await send(message)

            await app(scope, receive, cutting_send)

        return asgi

    served = await serve_app(asgi=breaker)
    client = await connect(served.url, default_retry_ms=50)
    seen: list[float] = []
    result = await client.request(
        "tools/call",
        {"name": "sleep", "arguments": {"steps": 4, "delay": 0.02}},
        timeout=10,
        on_progress=lambda p, t, m: seen.append(p),
    )
    assert state["cut"] and len(resumed) == 1
    assert result["content"][0]["text"] == "slept 4"
    assert seen == [1, 2, 3, 4]


async def test_stateless_post_without_version_header_assumes_2025_03_26(wire: Any) -> None:
    # Every POST is its own session, checked against the 2025-03-26 schema.
    app = StreamableHTTPApp(
        test_server.factory(lambda: wire("2025-03-26", check_received=False)),
        options=HttpServerOptions(stateless=True),
    )
    h = raw.headers()
    batch = [raw.tool_call(1, "echo", text="a"), raw.tool_call(2, "echo", text="b")]
    async with running(app) as base, httpx.AsyncClient(timeout=10) as http:
        url = base + "/mcp"
        # JSON-RPC batches exist only in 2025-03-26: served when no header names a version...
        async with http.stream("POST", url, json=batch, headers=h) as r:
            assert r.status_code == 200
            got = raw.messages(await raw.read_events(r))
        assert sorted(m["id"] for m in got[0]) == [1, 2]
        # ...and refused when the header says 2025-11-25.
        r = await http.post(url, json=batch, headers={**h, "mcp-protocol-version": "2025-11-25"})
        assert r.status_code == 400
