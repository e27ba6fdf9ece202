"""A finished stateless request (the 2025 stateless mode or a 2026-07-28 request) leaves
nothing for the cyclic garbage collector: its session and transport are freed by reference
counting as soon as the response is sent."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import orjson

from mcpkit import Server
from mcpkit.transports.http import StreamableHTTPApp
from mcpkit.transports.http.options import HttpServerOptions


async def test_a_stateless_session_is_freed_without_the_cyclic_collector(wire: Any) -> None:
    app = Server("stateless")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    made: list[weakref.ref[Any]] = []
    checker = wire()

    def factory(transport: Any) -> Any:
        session = app.session(transport, tracer=checker)
        made.append(weakref.ref(session))
        made.append(weakref.ref(transport))
        return session

    asgi = StreamableHTTPApp(factory, options=HttpServerOptions(stateless=True, json_response=True))
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        }
    )
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "query_string": b"",
        "server": ("127.0.0.1", 8000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"accept", b"application/json, text/event-stream"),
            (b"content-type", b"application/json"),
            (b"mcp-protocol-version", b"2025-11-25"),
        ],
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    gc.collect()
    gc.disable()
    try:
        await asgi(scope, receive, send)
        assert sent[0]["status"] == 200
        result = orjson.loads(sent[1]["body"])["result"]
        assert result["content"] == [{"type": "text", "text": "hi"}]
        assert made and all(ref() is None for ref in made)
    finally:
        gc.enable()


async def test_a_modern_request_session_is_freed_without_the_cyclic_collector(wire: Any) -> None:
    app = Server("modern-stateless")

    @app.tool()
    async def echo(text: str) -> str:
        return text

    made: list[weakref.ref[Any]] = []
    checker = wire()

    def factory(transport: Any) -> Any:
        session = app.session(transport, tracer=checker)
        made.append(weakref.ref(session))
        made.append(weakref.ref(transport))
        return session

    asgi = StreamableHTTPApp(factory, options=HttpServerOptions(stateless=True, json_response=True))
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {
                "name": "echo",
                "arguments": {"text": "hi"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                },
            },
        }
    )
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "query_string": b"",
        "server": ("127.0.0.1", 8000),
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"accept", b"application/json, text/event-stream"),
            (b"content-type", b"application/json"),
            (b"mcp-protocol-version", b"2026-07-28"),
            (b"mcp-method", b"tools/call"),
            (b"mcp-name", b"echo"),
        ],
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asgi(scope, receive, send)  # the app's first modern POST probes its factory once
    made.clear()
    sent.clear()
    gc.collect()
    gc.disable()
    try:
        await asgi(scope, receive, send)
        assert sent[0]["status"] == 200
        result = orjson.loads(sent[1]["body"])["result"]
        assert result["content"] == [{"type": "text", "text": "hi"}]
        assert made and all(ref() is None for ref in made)
    finally:
        gc.enable()
