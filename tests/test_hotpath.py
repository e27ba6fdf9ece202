"""Hot-path properties found while profiling the benchmark: things that are cheap
by construction and must stay so. No timings: only allocations and imports."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tracemalloc
from typing import Any

import orjson

from mcpkit.transports.http.event_store import MemoryEventStore


def test_event_store_keeps_right_sized_bytes() -> None:
    store = MemoryEventStore()
    messages = [
        orjson.dumps({"jsonrpc": "2.0", "id": i, "result": {"content": []}}) for i in range(500)
    ]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i, data in enumerate(messages):
            store.store_event("s", "k", i + 1, data)
        del messages, data
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # ~60 bytes of JSON per event: far below the 4 KiB orjson may allocate per output.
    assert retained < 500 * 1024
    assert [seq for seq, _ in store.replay("s", "k", 498) or []] == [499, 500]


def test_http_server_modules_do_not_import_the_http_client() -> None:
    code = (
        "import sys\n"
        "from mcpkit.transports.http import StreamableHTTPApp, MemoryEventStore\n"
        "import mcpkit.server\n"
        "print(','.join(m for m in ('httpx', 'rich') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# -- Streamable HTTP: a quick answer leaves as headers + one body write ----------------------


class _Asgi:
    """Drives a StreamableHTTPApp directly, recording every ASGI message it sends."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.session_id: bytes | None = None

    async def post(self, msg: dict[str, Any], on_send: Any = None) -> list[dict[str, Any]]:
        headers = [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"accept", b"application/json, text/event-stream"),
        ]
        if self.session_id is not None:
            headers += [
                (b"mcp-session-id", self.session_id),
                (b"mcp-protocol-version", b"2025-11-25"),
            ]
        scope = {
            "type": "http",
            "method": "POST",
            "path": "/mcp",
            "root_path": "",
            "headers": headers,
            "server": ("127.0.0.1", 8000),
        }
        body = orjson.dumps(msg)
        delivered = False
        never = asyncio.Event()
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await never.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)
            if on_send is not None:
                on_send(message)

        await self.app(scope, receive, send)
        start = sent[0]
        for k, v in start.get("headers", []):
            if k == b"mcp-session-id":
                self.session_id = v
        return sent


async def _initialized_app(wire: Any) -> tuple[Any, _Asgi]:
    from mcpkit.transports.http import StreamableHTTPApp
    from tests.http import server as test_server

    app = StreamableHTTPApp(test_server.factory(lambda: wire()))
    client = _Asgi(app)
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    await client.post(init)
    assert client.session_id is not None
    sent = await client.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert sent[0]["status"] == 202
    return app, client


async def test_quick_sse_answer_is_headers_plus_one_final_body(wire: Any) -> None:
    app, client = await _initialized_app(wire)
    try:
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}},
        }
        sent = await client.post(call)
        assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
        assert sent[1]["more_body"] is False
        body = sent[1]["body"]
        assert body.startswith(b"id: ")  # the priming event first, then the response
        assert b'"id":1' in body and b"event: message" in body
    finally:
        await app.aclose()


async def test_slow_sse_answer_streams_before_the_end(wire: Any) -> None:
    from tests.http import server as test_server

    test_server.EVENTS.clear()
    app, client = await _initialized_app(wire)
    try:
        gate = test_server.EVENTS.setdefault("gate", asyncio.Event())
        seen: list[dict[str, Any]] = []

        def on_send(message: dict[str, Any]) -> None:
            seen.append(message)
            if message["type"] == "http.response.body" and b"waiting" in message["body"]:
                assert message["more_body"] is True  # progress went out while the call runs
                gate.set()

        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "wait", "arguments": {}, "_meta": {"progressToken": "p"}},
        }
        sent = await client.post(call, on_send)
        assert gate.is_set()
        assert sent[0]["type"] == "http.response.start"
        assert sent[-1]["more_body"] is False
        assert b"released" in b"".join(m.get("body", b"") for m in sent)
    finally:
        await app.aclose()
        test_server.EVENTS.clear()


def test_a_server_that_never_imports_the_protocol_models_does_not_load_them() -> None:
    code = (
        "import sys\n"
        "from mcpkit import Server\n"
        "app = Server('t')\n"
        "@app.tool()\n"
        "def echo(text: str) -> str:\n"
        "    return text\n"
        "@app.tool()\n"
        "def late() -> object:\n"
        "    from mcpkit.types import CallToolResult, TextContent\n"
        "    return CallToolResult(content=[TextContent(type='text', text='model')])\n"
        "print('mcpkit.types' in sys.modules)\n"
        "print(app.tools.tools['late'].to_result(app.tools.tools['late'].fn()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, result = out.stdout.strip().splitlines()
    assert loaded == "False"
    assert "'text': 'model'" in result and "structuredContent" not in result
