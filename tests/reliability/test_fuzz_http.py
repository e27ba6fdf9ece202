"""Property tests of Streamable HTTP request handling: raw ASGI calls with random methods,
paths, headers and bodies each get an answer the spec allows (a status and, for errors, a
JSON-RPC error body), within a bound; afterwards the app still serves a valid session."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

import orjson
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.reliability.strategies import fuzz_server, requests, wire_bytes

FUZZ = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SID = "{sid}"  # replaced by the live session's id
ACCEPT = "application/json, text/event-stream"
#: HTTP statuses the Streamable HTTP transport answers with (500 never: that is a bug).
STATUSES = {200, 202, 400, 403, 404, 405, 406, 408, 413, 415, 431}
#: JSON-RPC codes its error bodies carry (-32001: session not found).
CODES = {-32700, -32600, -32601, -32602, -32603, -32002, -32001}

header_values = st.sampled_from(
    [
        SID,
        ACCEPT,
        "application/json",
        "text/event-stream",
        "text/plain",
        "*/*",
        "2025-11-25",
        "2025-03-26",
        "1999-01-01",
        "127.0.0.1",
        "localhost:8000",
        "evil.example",
        "http://evil.example",
        "http://127.0.0.1",
        "0",
        "",
    ]
) | st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40)
header_names = st.sampled_from(
    [
        "accept",
        "content-type",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
        "host",
        "origin",
        "content-length",
        "mcp-method",
        "mcp-name",
    ]
) | st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=16)
#: Each standard header: its usual value, a random one, or absent.
STANDARD = {
    "host": "127.0.0.1:8000",
    "accept": ACCEPT,
    "content-type": "application/json",
    "mcp-session-id": SID,
    "mcp-protocol-version": "2025-11-25",
}


def _header_list(
    choices: dict[str, str | None], extra: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    return [(k, v) for k, v in choices.items() if v is not None] + extra


def _usually(value: str, roll: int) -> st.SearchStrategy[str | None]:
    """Mostly the usual value, sometimes absent, sometimes anything."""
    if roll < 7:
        return st.just(value)
    return st.none() if roll == 7 else header_values


header_lists = st.builds(
    _header_list,
    st.fixed_dictionaries(
        {
            name: st.integers(0, 9).flatmap(partial(_usually, value))
            for name, value in STANDARD.items()
        }
    ),
    st.lists(st.tuples(header_names, header_values), max_size=4),
)
http_requests = st.fixed_dictionaries(
    {
        "method": st.integers(0, 9).flatmap(
            lambda roll: (
                st.just((["POST"] * 6 + ["GET", "GET", "DELETE"])[roll])
                if roll < 9
                else st.sampled_from(["PUT", "HEAD", "OPTIONS", "PATCH", "TRACE", "post"])
                | st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8)
            )
        ),
        "path": st.integers(0, 9).flatmap(
            lambda roll: (
                st.just("/mcp")
                if roll < 8
                else st.sampled_from(["/mcp/", "/", "/other", "/mcp?x=1", "/MCP"])
            )
        ),
        "headers": header_lists,
        "body": st.sampled_from([b""]) | wire_bytes | requests.map(orjson.dumps),
        "chunks": st.integers(min_value=1, max_value=3),
    }
)


class Exchange:
    """One raw ASGI request: its body sent in chunks, the response collected."""

    def __init__(self, body: bytes, chunks: int) -> None:
        step = max(1, len(body) // chunks + 1)
        self.parts = [body[i : i + step] for i in range(0, len(body), step)] or [b""]
        self.status: int | None = None
        self.headers: dict[bytes, bytes] = {}
        self.body = b""
        self.started = asyncio.Event()
        self.disconnect = asyncio.Event()

    async def receive(self) -> Any:
        if self.parts:
            part = self.parts.pop(0)
            return {"type": "http.request", "body": part, "more_body": bool(self.parts)}
        await self.disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Any) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.lower(): v for k, v in message.get("headers", [])}
            self.started.set()
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")


def scope(method: str, path: str, headers: list[tuple[str, str]]) -> dict[str, Any]:
    path, _, query = path.partition("?")
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(k.encode(), v.encode()) for k, v in headers],
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 40000),
    }


async def call(
    app: Any, method: str, path: str, headers: list[tuple[str, str]], body: bytes, chunks: int = 1
) -> Exchange:
    ex = Exchange(body, chunks)
    task = asyncio.create_task(app(scope(method, path, headers), ex.receive, ex.send))
    try:
        async with asyncio.timeout(5):
            await ex.started.wait()
            if ex.headers.get(b"content-type", b"").startswith(b"text/event-stream"):
                # A stream: read what comes within a moment, then hang up.
                await asyncio.sleep(0.02)
            ex.disconnect.set()
            await task
    finally:
        ex.disconnect.set()
        if not task.done():
            task.cancel()
    return ex


BASE = [("host", "127.0.0.1:8000"), ("accept", ACCEPT), ("content-type", "application/json")]
INIT = orjson.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"},
        },
    }
)


async def open_session(app: Any) -> str:
    ex = await call(app, "POST", "/mcp", BASE, INIT)
    assert ex.status == 200, ex.body
    sid = ex.headers[b"mcp-session-id"].decode()
    note = orjson.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    session = [*BASE, ("mcp-session-id", sid), ("mcp-protocol-version", "2025-11-25")]
    assert (await call(app, "POST", "/mcp", session, note)).status == 202
    return sid


def check_answer(ex: Exchange) -> None:
    assert ex.status in STATUSES, (ex.status, ex.body)
    ctype = ex.headers.get(b"content-type", b"")
    if ctype.startswith(b"application/json") and ex.body:
        answer = orjson.loads(ex.body)
        items = answer if isinstance(answer, list) else [answer]
        for item in items:
            assert item["jsonrpc"] == "2.0"
            if "error" in item:
                assert item["error"]["code"] in CODES, item
                assert isinstance(item["error"]["message"], str)
        if ex.status >= 400:
            assert isinstance(answer, dict) and "error" in answer, answer


async def fuzz_once(request: dict[str, Any]) -> None:
    app = fuzz_server().http_app()
    try:
        sid = await open_session(app)
        headers = [(k, v.replace(SID, sid)) for k, v in request["headers"]]
        ex = await call(
            app, request["method"], request["path"], headers, request["body"], request["chunks"]
        )
        event(f"status {ex.status}")
        check_answer(ex)
        # The app stays usable: the session (unless the request ended it) and a new one.
        ping = orjson.dumps({"jsonrpc": "2.0", "id": "follow-up", "method": "ping"})
        session = [*BASE, ("mcp-session-id", sid), ("mcp-protocol-version", "2025-11-25")]
        follow = await call(app, "POST", "/mcp", session, ping)
        if follow.status == 200:
            assert b'"follow-up"' in follow.body and b'"result":{}' in follow.body, follow.body
        else:
            assert request["method"] == "DELETE" and follow.status == 404, follow.status
        await open_session(app)
    finally:
        await app.aclose()


@FUZZ
@given(http_requests)
def test_every_http_request_gets_a_spec_answer_and_the_app_stays_usable(
    request: dict[str, Any],
) -> None:
    asyncio.run(fuzz_once(request))
