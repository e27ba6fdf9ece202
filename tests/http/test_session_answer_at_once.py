"""A session's ``tools/call`` of a tool that cannot suspend is answered at once, without a
request stream, and answers exactly as the stream would: the same events, stored for
resumption, the same errors, the same refusals."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from mcpkit import Server
from mcpkit.transports.http.session_transport import HttpSessionTransport
from tests.http import raw


def make_server() -> Server:
    server = Server("at-once", version="1.0")

    @server.tool()
    async def echo(text: str) -> str:
        """Answered at once: its body cannot suspend."""
        return text

    @server.tool()
    async def echo_later(text: str) -> str:
        """The same answer through a request stream: its body can suspend."""
        await asyncio.sleep(0)
        return text

    return server


@pytest.fixture
def streams(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The request streams opened (a spy on the transport)."""
    opened: list[Any] = []
    original = HttpSessionTransport.open_request_stream

    def spy(self: HttpSessionTransport, ids: Any, conn: Any) -> Any:
        opened.append(ids)
        return original(self, ids, conn)

    monkeypatch.setattr(HttpSessionTransport, "open_request_stream", spy)
    return opened


async def _client(**options: Any) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    app = make_server().http_app(**options)
    async with app.lifespan():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            yield http, "http://127.0.0.1/mcp"


@pytest.fixture
async def client() -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    async for pair in _client():
        yield pair


def _events(body: bytes) -> list[tuple[str | None, bytes]]:
    """(id, data) of each event of an SSE body."""
    out = []
    for block in body.decode().split("\n\n"):
        if not block:
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        out.append((fields.get("id"), fields.get("data", "").encode()))
    return out


async def _call(http: httpx.AsyncClient, url: str, sid: str, message: Any) -> httpx.Response:
    return await http.post(url, content=orjson.dumps(message), headers=raw.headers(sid))


async def test_answered_without_a_stream_as_the_stream_answers(
    client: tuple[httpx.AsyncClient, str], streams: list[Any]
) -> None:
    http, url = client
    sid = await raw.open_session(http, url)
    quick = await _call(http, url, sid, raw.tool_call(1, "echo", text="hi"))
    assert streams == []  # no request stream: answered at once
    slow = await _call(http, url, sid, raw.tool_call(1, "echo_later", text="hi"))
    assert streams == [[1]]
    for r in (quick, slow):
        assert r.status_code == 200
        assert r.headers["mcp-session-id"] == sid
        assert r.headers["content-type"] == "text/event-stream"
        assert r.headers["content-length"] == str(len(r.content))
    assert {k: v for k, v in quick.headers.items() if k != "content-length"} == {
        k: v for k, v in slow.headers.items() if k != "content-length"
    }
    (prime_id, prime), (answer_id, answer) = _events(quick.content)
    assert prime == b"" and answer_id == prime_id[:-2] + "-1"  # type: ignore[index]
    assert [data for _, data in _events(slow.content)] == [prime, answer]
    assert orjson.loads(answer) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"content": [{"type": "text", "text": "hi"}]},
    }
    # Stored for resumption: a client cut off after the priming event gets the answer.
    r = await http.get(url, headers={**raw.headers(sid), "last-event-id": prime_id})  # type: ignore[dict-item]
    assert r.status_code == 200
    assert _events(r.content) == [(answer_id, answer)]


@pytest.mark.parametrize(
    "arguments",
    [{}, {"text": 3}, {"text": "x", "extra": 1}],
    ids=["missing", "wrong type", "unknown argument"],
)
async def test_refused_arguments_answered_as_the_stream_answers(
    client: tuple[httpx.AsyncClient, str], streams: list[Any], arguments: dict[str, Any]
) -> None:
    http, url = client
    sid = await raw.open_session(http, url)
    answers = []
    for rid, name in enumerate(["echo", "echo_later"]):
        message = {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
        r = await _call(http, url, sid, message)
        assert r.status_code == 200
        (answers.append(orjson.loads(_events(r.content)[-1][1])))
    assert streams == [[1]]
    quick, slow = answers
    assert quick["id"] == 0 and slow["id"] == 1
    assert orjson.dumps(quick["result"]).replace(b"'echo'", b"'echo_later'") == orjson.dumps(
        slow["result"]
    )


async def test_a_call_before_the_handshake_ends_is_refused_as_the_stream_refuses(
    client: tuple[httpx.AsyncClient, str],
) -> None:
    http, url = client
    r = await http.post(url, json=raw.init_message(), headers=raw.headers())
    sid = r.headers["mcp-session-id"]
    answers = []
    for rid, name in enumerate(["echo", "echo_later"]):
        r = await _call(http, url, sid, raw.tool_call(rid, name, text="early"))
        body = r.content
        answers.append(
            (r.status_code, orjson.loads(_events(body)[-1][1]) if r.status_code == 200 else body)
        )
    (quick_status, quick), (slow_status, slow) = answers
    assert quick_status == slow_status
    if quick_status == 200:
        assert type(quick) is dict and type(slow) is dict
        assert quick.keys() == slow.keys()
        if "result" in quick:
            assert quick["result"] == {"content": [{"type": "text", "text": "early"}]}
        else:
            assert quick["error"] == slow["error"]


async def test_json_mode_answers_one_json_body(streams: list[Any]) -> None:
    async for http, url in _client(json_response=True):
        sid = await raw.open_session(http, url)
        quick = await _call(http, url, sid, raw.tool_call(5, "echo", text="json"))
        slow = await _call(http, url, sid, raw.tool_call(6, "echo_later", text="json"))
        for r in (quick, slow):
            assert r.status_code == 200
            assert r.headers["content-type"] == "application/json"
            assert r.headers["mcp-session-id"] == sid
        assert quick.json()["result"] == slow.json()["result"]
        assert quick.json()["id"] == 5
        assert streams == []  # JSON mode opens no request stream for either


async def test_the_session_stays_alive_for_its_idle_timeout(streams: list[Any]) -> None:
    """An answer at once counts as use of the session, as an answer on a stream does."""
    # Calls 0.1 s apart for 1.6 s, the session ending after 1 s unused (swept every 0.25 s):
    # ten times the gap between two calls, so a loaded machine does not end it early.
    async for http, url in _client(session_idle_timeout=1.0):
        sid = await raw.open_session(http, url)
        for rid in range(16):
            await asyncio.sleep(0.1)
            r = await _call(http, url, sid, raw.tool_call(rid, "echo", text="still here"))
            assert r.status_code == 200, r.text
        assert streams == []
