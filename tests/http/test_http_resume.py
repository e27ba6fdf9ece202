"""Resumability: streams cut by the server or by the client resume with nothing lost."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from mcpkit.transports.http import SQLiteEventStore
from tests.http import raw
from tests.http import server as test_server
from tests.http.conftest import call, text_of


def timing_spy(app: Any, log: list[tuple[str, float, dict[bytes, bytes]]]) -> Any:
    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            log.append((scope["method"], asyncio.get_running_loop().time(), dict(scope["headers"])))
        await app(scope, receive, send)

    return asgi


@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_server_closed_stream_is_resumed_after_retry(
    serve_app: Any, connect: Any, tmp_path: Any, store: str
) -> None:
    log: list[tuple[str, float, dict[bytes, bytes]]] = []
    kwargs: dict[str, Any] = {"sse_retry_ms": 300}
    if store == "sqlite":
        kwargs["event_store"] = SQLiteEventStore(str(tmp_path / "events.db"))
    served = await serve_app(asgi=lambda app: timing_spy(app, log), **kwargs)
    client = await connect(served.url)
    seen: list[Any] = []
    result = await client.request(
        "tools/call",
        {"name": "cut", "arguments": {"steps": 4}},
        timeout=10,
        on_progress=lambda p, t, m: seen.append((p, m)),
    )
    assert test_server.EVENTS["closed"] is True
    assert text_of(result) == "survived 4"
    assert seen == [(1, "before the cut"), (2, "step 2"), (3, "step 3"), (4, "step 4")]
    resumes = [(t, h) for m, t, h in log if m == "GET" and b"last-event-id" in h]
    assert len(resumes) == 1
    # The client waited the server's retry value before reconnecting, never less.
    assert resumes[0][0] - test_server.EVENTS["closed_at"] >= 0.3
    await client.close()
    assert served.app.event_store.count() == 0


async def test_client_disconnect_mid_stream_then_resume(serve_app: Any, connect: Any) -> None:
    served = await serve_app(check_received=False)
    url = served.url
    test_server.EVENTS["gate"] = gate = asyncio.Event()
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, url)
        async with http.stream(
            "POST", url, json=raw.tool_call(7, "wait", progress=True), headers=raw.headers(sid)
        ) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            first = await raw.read_events(r, until=lambda e: bool(e.data))
        # The client went away after the first progress notification.
        assert first[0].data == "" and first[0].id is not None  # the priming event
        assert raw.messages(first)[0]["params"]["progress"] == 1
        last_id = first[-1].id
        gate.set()
        # Server stays healthy for others meanwhile.
        other = await connect(url)
        assert text_of(await call(other, "echo", text="still fine")) == "still fine"
        async with http.stream(
            "GET", url, headers={**raw.headers(sid), "last-event-id": last_id}
        ) as r:
            assert r.status_code == 200
            rest = raw.messages(await raw.read_events(r))
        assert [m.get("params", {}).get("progress") for m in rest[:-1]] == [2]
        assert rest[-1]["id"] == 7 and rest[-1]["result"]["content"][0]["text"] == "released"


async def test_resume_never_replays_another_stream(serve_app: Any) -> None:
    served = await serve_app(check_received=False)
    url = served.url
    test_server.EVENTS["gate"] = gate = asyncio.Event()
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, url)
        other_sid = await raw.open_session(http, url)
        ids: dict[int, str] = {}
        for rid in (1, 2):
            async with http.stream(
                "POST",
                url,
                json=raw.tool_call(rid, "wait", progress=True),
                headers=raw.headers(sid),
            ) as r:
                events = await raw.read_events(r, until=lambda e: bool(e.data))
                ids[rid] = events[-1].id  # type: ignore[assignment]
        gate.set()
        async with http.stream(
            "GET", url, headers={**raw.headers(sid), "last-event-id": ids[1]}
        ) as r:
            replay = raw.messages(await raw.read_events(r))
        assert replay[-1]["id"] == 1
        assert all(m.get("params", {}).get("progressToken") in (None, "p1") for m in replay)
        # Another session's event id is refused, not served from this session.
        r = await http.get(url, headers={**raw.headers(other_sid), "last-event-id": ids[2]})
        assert r.status_code == 400
        r = await http.get(url, headers={**raw.headers(sid), "last-event-id": "nope-3"})
        assert r.status_code == 400


async def test_standalone_stream_resumes_with_last_event_id(serve_app: Any) -> None:
    served = await serve_app(check_received=False)
    url = served.url
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, url)
        async with http.stream("GET", url, headers=raw.headers(sid)) as r:
            assert r.status_code == 200
            # A POST that makes the server send an unrelated notification.
            post = await http.post(
                url, json=raw.tool_call(3, "announce", text="one"), headers=raw.headers(sid)
            )
            assert post.status_code == 200
            events = await raw.read_events(r, until=lambda e: bool(e.data))
        got = raw.messages(events)
        assert got[0]["method"] == "notifications/message"
        last = events[-1].id
        # Sent while no GET stream is open: stored, then replayed on resumption.
        post = await http.post(
            url, json=raw.tool_call(4, "announce", text="two"), headers=raw.headers(sid)
        )
        async with http.stream(
            "GET", url, headers={**raw.headers(sid), "last-event-id": last}
        ) as r:
            events = await raw.read_events(r, until=lambda e: bool(e.data))
        assert raw.messages(events)[0]["params"]["data"] == "two"


async def test_client_survives_server_cutting_the_standalone_stream(
    serve_app: Any, connect: Any
) -> None:
    served = await serve_app(sse_retry_ms=100)
    client = await connect(served.url)
    got: asyncio.Queue[Any] = asyncio.Queue()
    client.set_notification_handler("notifications/message", got.put_nowait)
    await call(client, "echo", text="the GET stream is open once this returns")
    transport = served.app.sessions[client.transport.session_id]
    assert transport.close_standalone_sse_stream()
    await call(client, "announce", text="after the cut")
    params = await asyncio.wait_for(got.get(), 5)
    assert params["data"] == "after the cut"
