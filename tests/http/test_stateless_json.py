"""The 2025-era stateless JSON mode: one request per POST on a StatelessJsonTransport, its
session copied from a per-version prototype (mcpkit.server.request_sessions) when the app
serves a Server's own sessions. Each copy is what ``server.session(transport,
era="legacy")`` plus ``assume_initialized(version)`` makes, and the answers are the same as
with any other factory."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import orjson

from mcpkit import Context, Server, versions
from mcpkit.server.request_sessions import legacy_request_session
from mcpkit.transports.http import StreamableHTTPApp
from mcpkit.transports.http.options import HttpServerOptions
from mcpkit.transports.http.stateless import StatelessJsonTransport


def _server() -> Server:
    server = Server("stateless-json", version="1")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    @server.tool()
    async def slow(text: str, ctx: Context) -> str:
        await ctx.info("working")  # no stream in this mode: the log goes nowhere
        await asyncio.sleep(0.01)
        return text.upper()

    return server


def _normalised(value: Any) -> Any:
    if isinstance(value, types.MethodType):
        return ("method", value.__func__)
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items()}
    return value


async def test_a_legacy_copy_equals_an_assumed_legacy_session() -> None:
    server = _server()
    for version in (versions.V2025_11_25, versions.V2025_03_26):
        copy = legacy_request_session(server, StatelessJsonTransport(1), version)
        plain = server.session(StatelessJsonTransport(1), era="legacy")
        plain.assume_initialized(version)
        assert type(copy) is type(plain)
        assert vars(copy).keys() == vars(plain).keys()
        for name, value in vars(plain).items():
            if name in ("lifecycle", "transport", "_notification_handlers"):
                continue
            assert _normalised(vars(copy)[name]) == _normalised(value), name
        for slot in type(plain.lifecycle).__slots__:
            assert getattr(copy.lifecycle, slot) == getattr(plain.lifecycle, slot), slot
        assert copy.era == "legacy" and copy.protocol_version is version
        assert copy.lifecycle.peer_capabilities is not plain.lifecycle.peer_capabilities


async def test_a_new_tool_is_served_by_the_next_copy() -> None:
    server = _server()
    first = legacy_request_session(server, StatelessJsonTransport(1), versions.V2025_11_25)

    @server.tool()
    async def later() -> str:
        return "later"

    second = legacy_request_session(server, StatelessJsonTransport(2), versions.V2025_11_25)
    assert "tools/call" in first._handlers and second.handler_table is server.handler_table()
    assert first.handler_table is not second.handler_table


def _scope(version: bytes | None) -> dict[str, Any]:
    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"accept", b"application/json, text/event-stream"),
        (b"content-type", b"application/json"),
    ]
    if version is not None:
        headers.append((b"mcp-protocol-version", version))
    return {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "query_string": b"",
        "server": ("127.0.0.1", 8000),
        "headers": headers,
    }


async def _post(app: Any, body: Any, version: bytes | None = b"2025-11-25") -> list[Any]:
    data = orjson.dumps(body)
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": data, "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    await app(_scope(version), receive, send)
    return sent


def _call(rid: Any, name: str, text: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "tools/call",
        "params": {"name": name, "arguments": {"text": text}},
    }


async def test_answers_equal_those_of_an_ordinary_factory(wire: Any) -> None:
    server = _server()
    checker = wire()
    copied = server.http_app(stateless=True, json_response=True)
    ordinary = StreamableHTTPApp(
        lambda t: server.session(t, tracer=checker),
        options=HttpServerOptions(stateless=True, json_response=True),
    )
    for app in (copied, ordinary):
        for rid, name, text, expected in (
            (1, "echo", "hi", "hi"),
            ("s", "slow", "hi", "HI"),  # a tool that waits: answered once it is done
        ):
            sent = await _post(app, _call(rid, name, text))
            start, body = sent
            assert start["status"] == 200
            headers = dict(start["headers"])
            assert headers[b"content-type"] == b"application/json"
            assert int(headers[b"content-length"]) == len(body["body"])
            answer = orjson.loads(body["body"])
            assert answer["id"] == rid
            assert answer["result"]["content"] == [{"type": "text", "text": expected}]
        # A version the app does not know, an unknown tool, and no version header (2025-03-26).
        sent = await _post(app, _call(2, "echo", "x"), b"1999-01-01")
        assert sent[0]["status"] == 400
        sent = await _post(app, _call(3, "nope", "x"))
        assert orjson.loads(sent[1]["body"])["error"]["code"] == -32602
        sent = await _post(app, {"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, None)
        names = {t["name"] for t in orjson.loads(sent[1]["body"])["result"]["tools"]}
        assert names == {"echo", "slow"}
    assert not server.sessions  # every request's session ended with it
