"""A scripted Streamable HTTP MCP server (raw ASGI) whose ``tools/call`` misbehaves as the
tool's name says: ``status-500``, ``status-400``, ``status-502-html``, ``garbage-json``,
``wrong-id``, ``wrong-type`` (text/plain), ``cut-sse`` (the stream ends before the
response), ``cut-sse-resumable`` (event ids, but resuming is refused), ``silent`` (the
response never starts), ``silent-sse`` (the stream opens and never sends), ``ok``."""

from __future__ import annotations

import asyncio
import json
from typing import Any

SID = b"fake-session"


async def _body(receive: Any) -> bytes:
    data = b""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return data
        data += message.get("body", b"")
        if not message.get("more_body"):
            return data


async def _respond(send: Any, status: int, body: bytes, ctype: bytes = b"application/json") -> None:
    headers = [(b"content-type", ctype), (b"mcp-session-id", SID)]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _ok(rid: Any) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "ok"}]}}
    ).encode()


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    method = scope["method"]
    if method == "DELETE":
        await _respond(send, 200, b"")
        return
    if method == "GET":
        await _respond(send, 405, b"")
        return
    msg = json.loads(await _body(receive))
    rid = msg.get("id")
    if rid is None:
        await _respond(send, 202, b"")
        return
    name = msg["method"]
    if name == "initialize":
        result = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"},
        }
        await _respond(
            send, 200, json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()
        )
        return
    if name != "tools/call":
        error = {"code": -32601, "message": f"Method not found: {name}"}
        await _respond(
            send, 200, json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}).encode()
        )
        return
    mode = msg["params"]["name"]
    if mode == "ok":
        await _respond(send, 200, _ok(rid))
    elif mode == "status-500":
        await _respond(send, 500, b"Internal Server Error", b"text/plain")
    elif mode == "status-400":
        await _respond(send, 400, b"")
    elif mode == "status-502-html":
        await _respond(send, 502, b"<html><body>Bad Gateway</body></html>", b"text/html")
    elif mode == "garbage-json":
        await _respond(send, 200, b'{"jsonrpc": "2.0", "id": ')
    elif mode == "wrong-id":
        await _respond(send, 200, _ok(f"not-{rid}"))
    elif mode == "wrong-type":
        await _respond(send, 200, b"ok", b"text/plain")
    elif mode in ("cut-sse", "cut-sse-resumable", "silent-sse"):
        headers = [(b"content-type", b"text/event-stream"), (b"mcp-session-id", SID)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if mode == "silent-sse":
            await asyncio.sleep(3600)
        event = b"id: e1\n" if mode == "cut-sse-resumable" else b""
        note = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "half"},
        }
        await send(
            {
                "type": "http.response.body",
                "body": event + b"data: " + json.dumps(note).encode() + b'\n\ndata: {"jsonr',
                "more_body": False,
            }
        )
    elif mode == "silent":
        await asyncio.sleep(3600)
