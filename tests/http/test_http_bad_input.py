"""Every bad request gets the spec's status code, and the server stays healthy after it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
import pytest

from tests.http import raw
from tests.http.conftest import call, text_of

LIMIT = 4096


@pytest.fixture
async def env(serve_app: Any, connect: Any) -> AsyncIterator[Any]:
    served = await serve_app(check_received=False, max_body_size=LIMIT)
    async with httpx.AsyncClient(timeout=10) as http:
        sid = await raw.open_session(http, served.url)
        healthy = await connect(served.url)

        class Env:
            url = served.url
            base = served.base
            app = served.app

        e = Env()
        e.http = http  # type: ignore[attr-defined]
        e.sid = sid  # type: ignore[attr-defined]
        yield e
        # After every bad request: the server still serves a real client...
        assert text_of(await call(healthy, "echo", text="healthy")) == "healthy"
        # ...and the raw session too.
        r = await http.post(
            served.url, json=raw.tool_call(99, "echo", text="x"), headers=raw.headers(sid)
        )
        assert r.status_code == 200


def error_of(r: httpx.Response) -> dict[str, Any]:
    body = orjson.loads(r.content)
    assert body["jsonrpc"] == "2.0"
    return body["error"]  # type: ignore[no-any-return]


async def test_wrong_method(env: Any) -> None:
    r = await env.http.put(env.url, content=b"{}", headers=raw.headers(env.sid))
    assert r.status_code == 405
    assert "POST" in r.headers["allow"]
    r = await env.http.patch(env.url, headers=raw.headers(env.sid))
    assert r.status_code == 405


async def test_wrong_content_type(env: Any) -> None:
    h = raw.headers(env.sid, content_type="text/plain")
    r = await env.http.post(env.url, content=orjson.dumps(raw.tool_call(1, "echo")), headers=h)
    assert r.status_code == 415
    h = raw.headers(env.sid)
    del h["content-type"]
    r = await env.http.post(env.url, content=b"{}", headers=h)
    assert r.status_code == 415


@pytest.mark.parametrize(
    "accept", ["application/json", "text/event-stream", "text/html", "", "application/*;q=0"]
)
async def test_post_accept_must_list_both(env: Any, accept: str) -> None:
    h = raw.headers(env.sid)
    h["accept"] = accept
    r = await env.http.post(env.url, json=raw.tool_call(1, "echo", text="a"), headers=h)
    assert r.status_code == 406


async def test_get_accept_must_list_event_stream(env: Any) -> None:
    r = await env.http.get(env.url, headers=raw.headers(env.sid, accept="application/json"))
    assert r.status_code == 406


async def test_missing_session_id(env: Any) -> None:
    r = await env.http.post(env.url, json=raw.tool_call(1, "echo", text="a"), headers=raw.headers())
    assert r.status_code == 400
    assert error_of(r)["code"] == -32600
    assert (await env.http.get(env.url, headers=raw.headers())).status_code == 400
    assert (await env.http.delete(env.url, headers=raw.headers())).status_code == 400


async def test_unknown_session_id(env: Any) -> None:
    h = raw.headers("no-such-session")
    r = await env.http.post(env.url, json=raw.tool_call(1, "echo", text="a"), headers=h)
    assert r.status_code == 404
    assert (await env.http.get(env.url, headers=h)).status_code == 404
    assert (await env.http.delete(env.url, headers=h)).status_code == 404
    notify = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await env.http.post(env.url, json=notify, headers=h)).status_code == 404


async def test_ended_session(env: Any) -> None:
    sid = await raw.open_session(env.http, env.url)
    r = await env.http.delete(env.url, headers=raw.headers(sid))
    assert r.status_code == 200
    assert sid not in env.app.sessions
    assert env.app.event_store.count(sid) == 0
    r = await env.http.post(
        env.url, json=raw.tool_call(1, "echo", text="a"), headers=raw.headers(sid)
    )
    assert r.status_code == 404
    assert error_of(r)["code"] == -32001


async def test_bad_protocol_version_header(env: Any) -> None:
    h = {**raw.headers(env.sid), "mcp-protocol-version": "1999-01-01"}
    r = await env.http.post(env.url, json=raw.tool_call(1, "echo", text="a"), headers=h)
    assert r.status_code == 400
    assert "1999-01-01" in error_of(r)["message"]
    assert (await env.http.get(env.url, headers=h)).status_code == 400


async def test_absent_protocol_version_header_is_accepted(env: Any) -> None:
    h = raw.headers(env.sid)
    del h["mcp-protocol-version"]
    r = await env.http.post(env.url, json=raw.tool_call(1, "echo", text="ok"), headers=h)
    assert r.status_code == 200


async def test_body_over_the_limit(env: Any) -> None:
    big = orjson.dumps(raw.tool_call(1, "echo", text="x" * LIMIT))
    r = await env.http.post(env.url, content=big, headers=raw.headers(env.sid))
    assert r.status_code == 413

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: chunked encoding
        for i in range(0, len(big), 512):
            yield big[i : i + 512]

    r = await env.http.post(env.url, content=chunks(), headers=raw.headers(env.sid))
    assert r.status_code == 413


async def test_truncated_body_and_disconnect(env: Any) -> None:
    host, port = urlsplit(env.url).hostname, urlsplit(env.url).port
    _reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nMcp-Session-Id: "
        + env.sid.encode()
        + b'\r\nContent-Length: 500\r\n\r\n{"jsonrpc": "2.0", "id"'
    )
    await writer.drain()
    writer.close()
    await writer.wait_closed()


async def test_not_json(env: Any) -> None:
    r = await env.http.post(env.url, content=b"{not json", headers=raw.headers(env.sid))
    assert r.status_code == 400
    assert error_of(r)["code"] == -32700


@pytest.mark.parametrize(
    "body", [{"id": 1, "method": "ping"}, {"jsonrpc": "2.0"}, 42, {"jsonrpc": "2.0", "id": 1}]
)
async def test_not_a_jsonrpc_message(env: Any, body: Any) -> None:
    r = await env.http.post(env.url, json=body, headers=raw.headers(env.sid))
    assert r.status_code == 400
    assert error_of(r)["code"] == -32600


async def test_batch_refused_on_2025_11_25(env: Any) -> None:
    batch = [raw.tool_call(1, "echo", text="a"), raw.tool_call(2, "echo", text="b")]
    r = await env.http.post(env.url, json=batch, headers=raw.headers(env.sid))
    assert r.status_code == 400
    assert "2025-11-25" in error_of(r)["message"]


async def test_batch_served_on_2025_03_26(env: Any) -> None:
    sid = await raw.open_session(env.http, env.url, version="2025-03-26")
    h = {**raw.headers(sid), "mcp-protocol-version": "2025-03-26"}
    batch = [
        raw.tool_call(1, "echo", text="a"),
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": 0, "progress": 1},
        },
        raw.tool_call(2, "echo", text="b"),
    ]
    async with env.http.stream("POST", env.url, json=batch, headers=h) as r:
        assert r.status_code == 200
        got = raw.messages(await raw.read_events(r))
    assert len(got) == 1 and isinstance(got[0], list)
    assert sorted(m["id"] for m in got[0]) == [1, 2]
    notes = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    assert (await env.http.post(env.url, json=notes, headers=h)).status_code == 202


async def test_notification_and_response_get_202(env: Any) -> None:
    h = raw.headers(env.sid)
    note = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
    r = await env.http.post(env.url, json=note, headers=h)
    assert r.status_code == 202 and r.content == b""
    stray = {"jsonrpc": "2.0", "id": 12345, "result": {}}
    r = await env.http.post(env.url, json=stray, headers=h)
    assert r.status_code == 202 and r.content == b""


async def test_duplicate_request_id_in_flight(env: Any) -> None:
    from tests.http import server as test_server

    test_server.EVENTS["gate"] = gate = asyncio.Event()
    h = raw.headers(env.sid)
    async with env.http.stream("POST", env.url, json=raw.tool_call(5, "wait"), headers=h) as r:
        assert r.status_code == 200
        r2 = await env.http.post(env.url, json=raw.tool_call(5, "echo", text="dup"), headers=h)
        assert r2.status_code == 400
        gate.set()
        got = raw.messages(await raw.read_events(r))
    assert got[-1]["result"]["content"][0]["text"] == "released"


async def test_wrong_path(env: Any) -> None:
    r = await env.http.post(
        env.base + "/other", json=raw.tool_call(1, "echo"), headers=raw.headers(env.sid)
    )
    assert r.status_code == 404


async def test_failed_initialize_issues_no_session(env: Any) -> None:
    bad = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    before = set(env.app.sessions)
    r = await env.http.post(env.url, json=bad, headers=raw.headers())
    assert r.status_code == 200
    assert "mcp-session-id" not in r.headers
    assert error_of(r)["code"] == -32602
    assert set(env.app.sessions) == before


async def test_cancelled_request_ends_its_stream(env: Any) -> None:
    from tests.http import server as test_server

    test_server.EVENTS["gate"] = asyncio.Event()
    h = raw.headers(env.sid)
    async with env.http.stream("POST", env.url, json=raw.tool_call(6, "wait"), headers=h) as r:
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 6, "reason": "changed my mind"},
        }
        assert (await env.http.post(env.url, json=cancel, headers=h)).status_code == 202
        got = raw.messages(await raw.read_events(r))  # ends, with no response
    assert all("result" not in m for m in got)
