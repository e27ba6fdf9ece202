"""Hostile input answers a clear client error, never a 500 or -32603 with a traceback.

A ``Last-Event-ID`` whose sequence number is no plain decimal (too long to convert, or
digits Python's ``int`` refuses) is 400; tool arguments nested deeper than the validators
follow are invalid arguments (-32602, or an ``isError`` result where the revision makes
argument errors tool results), not an internal error.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Server
from mcpkit.transports.http import running
from tests.http import raw
from tests.scaleout.cluster import Redis


def _server(store: Any = None) -> Server:
    server = Server("hostile-input", store=store)

    @server.tool()
    def shout(text: str) -> str:
        return text.upper()

    @server.tool()
    def count(items: list[int]) -> int:
        return len(items)

    return server


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = Redis(tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
async def endpoint() -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    app = _server().http_app()
    async with running(app) as base, httpx.AsyncClient(timeout=10) as http:
        yield http, base + "/mcp"


@pytest.fixture(params=["memory", "redis"])
async def sessions_in(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """The endpoint with sessions in process memory, or shared through Redis."""
    store = None
    if request.param == "redis":
        from mcpkit.redis import RedisBackend

        store = RedisBackend(
            request.getfixturevalue("redis_url"), prefix=f"t{id(tmp_path)}", secret="s" * 32
        )
    app = _server(store).http_app()
    try:
        async with running(app) as base, httpx.AsyncClient(timeout=10) as http:
            yield http, base + "/mcp"
    finally:
        if store is not None:
            await store.aclose()


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    logged = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not logged, [r.getMessage() for r in logged]


@pytest.mark.parametrize(
    "event_id",
    [
        b"abc-" + b"9" * 5000,  # int() refuses strings this long
        b"abc-\xb2",  # '2' superscript (latin-1): str.isdigit() says yes, int() says no
        b"abc-\xb9\xb2\xb3",
        b"-" + b"1" * 4301,
    ],
)
async def test_malformed_last_event_id_is_400(
    sessions_in: tuple[httpx.AsyncClient, str], event_id: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    http, url = sessions_in
    sid = await raw.open_session(http, url)
    headers = {**raw.headers(sid), "last-event-id": event_id}
    r = await http.get(url, headers=headers)  # type: ignore[arg-type]
    assert r.status_code == 400
    assert orjson.loads(r.content)["error"]["message"].startswith("Bad Request")
    _no_traceback(caplog)
    # The session still works.
    r = await http.post(url, json=raw.tool_call(2, "shout", text="ok"), headers=raw.headers(sid))
    assert r.status_code == 200 and b'"OK"' in r.content


def _deep(depth: int, opener: bytes, closer: bytes, leaf: bytes) -> bytes:
    return opener * depth + leaf + closer * depth


def _call(tool: str, name: str, value: bytes) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"'
        + tool.encode()
        + b'","arguments":{"'
        + name.encode()
        + b'":'
        + value
        + b"}}}"
    )


def _answer(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    if r.headers["content-type"].startswith("text/event-stream"):
        lines = [ln for ln in r.text.splitlines() if ln.startswith("data: {")]
        return orjson.loads(lines[-1][len("data: ") :])  # type: ignore[no-any-return]
    return orjson.loads(r.content)  # type: ignore[no-any-return]


NESTED = [
    ("shout", "text", _deep(1000, b"[", b"]", b"")),
    ("shout", "text", _deep(1000, b'{"a":', b"}", b"1")),
    ("count", "items", b"[" + _deep(999, b"[", b"]", b"") + b"]"),
    ("count", "items", b"[" + _deep(400, b'{"a":', b"}", b"1") + b"]"),
]


@pytest.mark.parametrize(("tool", "name", "value"), NESTED)
async def test_deeply_nested_arguments_are_invalid_params(
    endpoint: tuple[httpx.AsyncClient, str],
    tool: str,
    name: str,
    value: bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
    http, url = endpoint
    # 2025-06-18: invalid arguments are a protocol error, -32602.
    sid = await raw.open_session(http, url, version="2025-06-18")
    h = raw.headers(sid, mcp_protocol_version="2025-06-18")
    error = _answer(await http.post(url, content=_call(tool, name, value), headers=h))["error"]
    assert error["code"] == -32602
    assert f"Invalid arguments for tool '{tool}'" in error["message"]
    assert "Traceback" not in error["message"]
    # 2025-11-25: invalid arguments are a tool execution error the model can read.
    sid = await raw.open_session(http, url)
    r = await http.post(url, content=_call(tool, name, value), headers=raw.headers(sid))
    result = _answer(r)
    assert result["result"]["isError"] is True
    text = result["result"]["content"][0]["text"]
    assert text.startswith(f"Invalid arguments for tool '{tool}'") and "nested too deeply" in text
    _no_traceback(caplog)
