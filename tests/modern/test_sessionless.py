"""2026-07-28 requests served with no session of their own
(``mcpkit.server.request_sessions.sessionless_context``): a quick ``tools/call`` is answered
by the prototype's engine, byte for byte as a per-request session answers it, and leaves the
prototype as it was; every request that could reach a session still gets one."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import orjson
import pytest

from mcpkit import Context, Server
from mcpkit.errors import McpError
from mcpkit.server import request_sessions
from mcpkit.transports.http import StreamableHTTPApp
from mcpkit.transports.http.options import HttpServerOptions
from tests.modern.asgi import post as _post
from tests.modern.asgi import post_scope
from tests.wire import WireChecker

V = "2026-07-28"
_META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "sessionless-test", "version": "1"},
}


def _server() -> Server:
    server = Server("sessionless", version="1")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    @server.tool()
    async def add(a: int, b: int) -> dict[str, int]:
        return {"sum": a + b}

    @server.tool()
    async def fails(text: str) -> str:
        raise RuntimeError(f"no {text}")

    @server.tool()
    async def refuses(text: str) -> str:
        raise McpError(-32602, f"refused {text}", {"why": text})

    @server.tool()
    async def unsendable(text: str) -> object:
        return object()

    @server.tool()
    async def with_context(text: str, ctx: Context) -> str:
        return f"{text} from {ctx.request_id}"

    @server.tool(max_concurrency=1)
    async def limited(text: str) -> str:
        return text

    @server.tool()
    async def suspends(text: str) -> str:
        await asyncio.sleep(0)
        return text

    @server.tool()
    def sync_echo(text: str) -> str:
        return text

    @server.tool()
    def sync_fails(text: str) -> str:
        raise RuntimeError(f"no {text}")

    return server


def _scope(name: str | None, accept: bytes = b"application/json, text/event-stream") -> Any:
    routing = [(b"mcp-protocol-version", V.encode()), (b"mcp-method", b"tools/call")]
    if name is not None:
        routing.append((b"mcp-name", name.encode()))
    return post_scope(*routing, accept=accept)


def _body(name: str, arguments: Any, meta: Any = None, rid: Any = 7) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments, "_meta": meta or _META}
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})


class _Copies:
    """Counts the per-request sessions made (modern_request_session calls)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = request_sessions.modern_request_session

        def counting(server: Server, transport: Any) -> Any:
            self.count += 1
            return real(server, transport)

        monkeypatch.setattr(request_sessions, "modern_request_session", counting)


#: (tool, arguments): every outcome of a quick call: a result, structured content, a tool
#: error, an McpError, a value that cannot be sent, invalid arguments, an unknown tool; and
#: the same of a ``def`` tool (run in the worker pool, no session either).
CASES = [
    ("echo", {"text": "hi"}),
    ("add", {"a": 2, "b": 3}),
    ("fails", {"text": "luck"}),
    ("refuses", {"text": "this"}),
    ("unsendable", {"text": "x"}),
    ("echo", {"text": 5}),
    ("echo", {}),
    ("nope", {"text": "hi"}),
    ("sync_echo", {"text": "hi"}),
    ("sync_fails", {"text": "luck"}),
    ("sync_echo", {"text": 5}),
]


#: The one part of an answer that differs between two runs: a masked failure's error id.
_ERROR_ID = re.compile(rb"error id [0-9a-f]{12}")


def _same(answer: Any) -> Any:
    """``answer`` (status, body, headers) with error ids blanked."""
    status, body, headers = answer
    return status, _ERROR_ID.sub(b"error id <id>", body), headers


@pytest.mark.parametrize(("tool", "arguments"), CASES)
async def test_the_answer_is_the_per_request_sessions_answer(
    tool: str, arguments: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _server()
    quick = server.http_app(stateless=True, json_response=True)
    # A factory that is not the server's own session is always served by a session.
    ordinary = StreamableHTTPApp(
        lambda t: server.session(t),
        options=HttpServerOptions(stateless=True, json_response=True),
    )
    copies = _Copies(monkeypatch)
    body = _body(tool, arguments, meta={**_META, "progressToken": "p1", "vendor/x": 1})
    status, answer, headers = await _post(quick, _scope(tool), body)
    quick_copies = copies.count
    expected = await _post(ordinary, _scope(tool), body)
    assert _same((status, answer, headers)) == _same(expected)
    known = tool != "nope"
    assert quick_copies == (0 if known else 1)  # an unknown tool is the session path's
    checker = WireChecker(V)
    checker("recv", orjson.loads(body))
    checker("send", orjson.loads(answer))
    assert not checker.errors


async def test_the_prototype_is_left_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server()
    app = server.http_app(stateless=True, json_response=True)
    copies = _Copies(monkeypatch)
    for rid in (1, 1, "same", 2):  # one id over and over: nothing is kept per request
        status, answer, _ = await _post(app, _scope("echo"), _body("echo", {"text": "a"}, rid=rid))
        assert status == 200
        assert orjson.loads(answer) == {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {
                "content": [{"type": "text", "text": "a"}],
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": server.server_info},
            },
        }
    assert copies.count == 0
    proto = server.session_prototypes["modern"].session
    assert proto._in_flight == {} and not proto.closed
    assert not server.sessions  # the prototype never joins the server's sessions


async def test_what_may_reach_a_session_gets_one(monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server()
    app = server.http_app(stateless=True, json_response=True)
    copies = _Copies(monkeypatch)

    # A tool taking a Context (it may notify, ask the client, be cancelled).
    status, answer, _ = await _post(
        app, _scope("with_context"), _body("with_context", {"text": "hi"})
    )
    assert status == 200 and orjson.loads(answer)["result"]["content"][0]["text"] == "hi from 7"
    assert copies.count == 1
    # A tool with a concurrency limit (its queue may wait).
    status, _, _ = await _post(app, _scope("limited"), _body("limited", {"text": "hi"}))
    assert status == 200 and copies.count == 2
    # An async tool that suspends (the session path serves what waits on the loop).
    status, _, _ = await _post(app, _scope("suspends"), _body("suspends", {"text": "hi"}))
    assert status == 200 and copies.count == 3
    # A client that takes only SSE (its answer is a stream).
    status, answer, _ = await _post(
        app, _scope("echo", accept=b"text/event-stream"), _body("echo", {"text": "hi"})
    )
    assert status == 200 and answer.startswith(b"event: message") and copies.count == 4
    # A malformed envelope and an unsupported version: the session path's errors.
    bad = {**_META, "io.modelcontextprotocol/clientCapabilities": []}
    status, answer, _ = await _post(app, _scope("echo"), _body("echo", {"text": "hi"}, bad))
    assert status == 400 and orjson.loads(answer)["error"]["code"] == -32602
    assert copies.count == 5
    # A logging bridge (a tool's log records go to the client it serves), for a def tool too.
    server.log_handler(logging.INFO)
    status, _, _ = await _post(app, _scope("echo"), _body("echo", {"text": "hi"}))
    assert status == 200 and copies.count == 6
    status, _, _ = await _post(app, _scope("sync_echo"), _body("sync_echo", {"text": "hi"}))
    assert status == 200 and copies.count == 7


async def test_mismatched_param_headers_are_refused_before_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = Server("headers", version="1")
    calls: list[str] = []

    async def region(where: str) -> str:
        calls.append(where)
        return where

    server.add_tool(
        region,
        name="region",
        input_schema={
            "type": "object",
            "properties": {"where": {"type": "string", "x-mcp-header": "Region"}},
            "required": ["where"],
        },
    )
    app = server.http_app(stateless=True, json_response=True)
    copies = _Copies(monkeypatch)
    scope = _scope("region")
    scope["headers"].append((b"mcp-param-region", b"north"))
    status, answer, _ = await _post(app, scope, _body("region", {"where": "south"}))
    assert status == 400 and orjson.loads(answer)["error"]["code"] == -32020
    assert calls == []
    status, answer, _ = await _post(app, scope, _body("region", {"where": "north"}))
    assert status == 200 and calls == ["north"] and copies.count == 0


# -- the 2025-era stateless JSON mode ----------------------------------------------------------


def _legacy_scope(version: str | None) -> Any:
    extra = [] if version is None else [(b"mcp-protocol-version", version.encode())]
    return post_scope(*extra)


def _legacy_body(name: str, arguments: Any, rid: Any = 7) -> bytes:
    params = {"name": name, "arguments": arguments, "_meta": {"progressToken": 3}}
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})


class _LegacyCopies:
    """Counts the 2025-era stateless sessions made (legacy_request_session calls)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = request_sessions.legacy_request_session

        def counting(server: Server, transport: Any, version: Any) -> Any:
            self.count += 1
            return real(server, transport, version)

        monkeypatch.setattr(request_sessions, "legacy_request_session", counting)


@pytest.mark.parametrize("version", ["2025-11-25", "2025-03-26", None])
@pytest.mark.parametrize(("tool", "arguments"), CASES)
async def test_a_legacy_stateless_answer_is_the_sessions_answer(
    tool: str, arguments: Any, version: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _server()
    quick = server.http_app(stateless=True, json_response=True)
    ordinary = StreamableHTTPApp(
        lambda t: server.session(t),
        options=HttpServerOptions(stateless=True, json_response=True),
    )
    copies = _LegacyCopies(monkeypatch)
    body = _legacy_body(tool, arguments)
    answer = await _post(quick, _legacy_scope(version), body)
    assert copies.count == (0 if tool != "nope" else 1)
    assert _same(answer) == _same(await _post(ordinary, _legacy_scope(version), body))
    checker = WireChecker(version or "2025-03-26")
    checker("recv", orjson.loads(body))
    checker("send", orjson.loads(answer[1]))
    assert not checker.errors


async def test_a_legacy_request_that_may_reach_a_session_gets_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = _server()
    app = server.http_app(stateless=True, json_response=True)
    copies = _LegacyCopies(monkeypatch)
    for tool in ("with_context", "limited", "suspends"):
        status, answer, _ = await _post(
            app, _legacy_scope("2025-11-25"), _legacy_body(tool, {"text": "hi"})
        )
        assert status == 200 and "result" in orjson.loads(answer)
    assert copies.count == 3
    proto = server.session_prototypes["legacy 2025-11-25"].session
    assert proto._in_flight == {} and not server.sessions


async def test_a_prototype_knows_whether_its_session_dispatches_tool_calls() -> None:
    from mcpkit import versions

    server = _server()
    assert request_sessions._modern_prototype(server).quick_calls
    assert request_sessions._legacy_prototype(server, versions.V2025_11_25).quick_calls
    bare = Server("no-tools", version="1")  # no tools capability: tools/call is -32601
    assert not request_sessions._modern_prototype(bare).quick_calls
    assert not request_sessions._legacy_prototype(bare, versions.V2025_11_25).quick_calls
    app = bare.http_app(stateless=True, json_response=True)
    status, answer, _ = await _post(app, _scope("echo"), _body("echo", {"text": "hi"}))
    assert status == 404 and orjson.loads(answer)["error"]["code"] == -32601


async def test_a_meta_read_before_is_not_read_again_and_any_other_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The envelope of the last _meta read whole is taken again for an equal _meta (each
    # request's own decoded JSON); any other _meta is read and judged as ever, a bad one
    # after a good one included, and the answers are what a first reading answers.
    server = _server()
    app = server.http_app(stateless=True, json_response=True)
    reads: list[Any] = []
    real = request_sessions.parse_request_envelope

    def counting(params: Any, supported: Any = None) -> Any:
        reads.append(params["_meta"])
        return real(params, supported)

    monkeypatch.setattr(request_sessions, "parse_request_envelope", counting)
    copies = _Copies(monkeypatch)
    traced = {**_META, "progressToken": "t1", "vendor/x": [1]}
    other_client = {**_META, "io.modelcontextprotocol/clientInfo": {"name": "b", "version": "2"}}
    bad_caps = {**_META, "io.modelcontextprotocol/clientCapabilities": {"sampling": []}}
    bad_info = {**_META, "io.modelcontextprotocol/clientInfo": {"name": "b", "version": 2}}
    unsupported = {**_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    answers = []
    for meta in (_META, _META, traced, traced, bad_caps, _META, bad_info, other_client, _META):
        answers.append(await _post(app, _scope("echo"), _body("echo", {"text": "a"}, meta)))
    for meta in (unsupported, unsupported):
        answers.append(await _post(app, _scope("echo"), _body("echo", {"text": "a"}, meta)))
    statuses = [status for status, _, _ in answers]
    assert statuses == [200, 200, 200, 200, 400, 200, 400, 200, 200, 400, 400]
    # Read: the first of each run of equal _meta that was served here (the bad ones, which
    # the session path answers, each time; a version its routing header does not name is
    # refused before).
    assert reads == [_META, traced, bad_caps, _META, bad_info, other_client, _META]
    assert copies.count == 2  # the bad envelopes took the session path
    ok = orjson.loads(answers[0][1])
    assert all(orjson.loads(a[1]) == ok for a in (answers[1], answers[5], answers[8]))
    fresh = _server().http_app(stateless=True, json_response=True)
    refused = zip((bad_caps, bad_info, unsupported), (answers[4], answers[6], answers[9]))
    for meta, answer in refused:
        assert answer == await _post(fresh, _scope("echo"), _body("echo", {"text": "a"}, meta))
