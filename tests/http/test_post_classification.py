"""Every POSTed message is told request, notification, response or invalid as
``mcpkit.jsonrpc.classify`` tells it, on both eras' stateless JSON POST (the usual request
is recognised inline there, everything else asks ``classify``): an invalid message answers
400 with classify's reason and the id it carried when that id is valid."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mcpkit import Server
from mcpkit.jsonrpc import MessageKind, classify
from tests.modern.asgi import post, post_scope

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
}
CALL = {"name": "echo", "arguments": {"text": "hi"}}

#: Messages around the usual request, one member off each time.
MESSAGES: list[Any] = [
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": CALL},
    {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": CALL},
    {"jsonrpc": "2.0", "id": True, "method": "tools/call", "params": CALL},
    {"jsonrpc": "2.0", "id": 1.5, "method": "tools/call", "params": CALL},
    {"jsonrpc": "2.0", "id": None, "method": "tools/call", "params": CALL},
    {"jsonrpc": "2.0", "id": [1], "method": "tools/call", "params": CALL},
    {"jsonrpc": "2.0", "method": "tools/call", "params": CALL},
    {"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": CALL},
    {"id": 1, "method": "tools/call", "params": CALL},
    {"jsonrpc": 2.0, "id": 1, "method": "tools/call", "params": CALL},
    {"jsonrpc": "2.0", "id": 1, "method": 5, "params": CALL},
    {"jsonrpc": "2.0", "id": 1, "method": None, "params": CALL},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": None},
    {"jsonrpc": "2.0", "id": 1, "result": {}},
    {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}},
    {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}},
    {"jsonrpc": "2.0", "id": 1},
    {"jsonrpc": "2.0"},
    "tools/call",
    7,
    None,
]


def _server() -> Server:
    server = Server("classify", version="1")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    return server


def _modern(msg: Any) -> Any:
    # The modern wire's message: the envelope in params where params is an object.
    if type(msg) is not dict:
        return msg
    params = msg.get("params", {})
    if type(params) is dict:
        msg = {**msg, "params": {**params, "_meta": META}}
    return msg


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("index", range(len(MESSAGES)))
async def test_each_message_is_what_classify_says(modern: bool, index: int) -> None:
    msg = _modern(MESSAGES[index]) if modern else MESSAGES[index]
    app = _server().http_app(stateless=True, json_response=True)
    if modern:
        params = msg.get("params") if type(msg) is dict else None
        name = params.get("name") if type(params) is dict else None
        routing = [(b"mcp-protocol-version", V.encode())]
        method = msg.get("method") if type(msg) is dict else None
        if type(method) is str:
            routing.append((b"mcp-method", method.encode()))
        if type(name) is str:
            routing.append((b"mcp-name", name.encode()))
        scope = post_scope(*routing)
    else:
        scope = post_scope((b"mcp-protocol-version", b"2025-11-25"))
    status, body, _ = await post(app, scope, orjson.dumps(msg))
    kind, why = classify(msg)
    if kind is MessageKind.REQUEST and modern and msg.get("params") is None:
        assert status == 400  # no envelope: -32602
        assert orjson.loads(body)["error"]["code"] == -32602
        return
    if kind is MessageKind.REQUEST:
        assert status == 200, body
        answer = orjson.loads(body)
        assert answer["id"] == msg["id"]
        assert ("result" in answer) == (msg["method"] in ("tools/call", "tools/list"))
        return
    if kind is MessageKind.NOTIFICATION or (kind is not MessageKind.INVALID and not modern):
        assert status == 202  # (a client's response goes to no session here)
        return
    assert status == 400
    error = orjson.loads(body)
    if modern and type(msg) is not dict:
        assert error["error"]["message"] == "Invalid request: the modern wire takes no batch"
    elif kind is MessageKind.INVALID:
        assert error["error"]["message"] == f"Invalid request: {why}"
        rid = msg.get("id") if type(msg) is dict else None
        assert error["id"] == (rid if type(rid) in (str, int) else None)
    else:  # a response: the modern wire takes none from a client
        assert modern
