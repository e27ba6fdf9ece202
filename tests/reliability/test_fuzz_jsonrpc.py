"""Property tests of the JSON-RPC layer: classify, peek and the id rule agree with JSON-RPC
2.0 as MCP uses it, for any input; and a server session answers every message the way the
spec says and stays usable after it."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpkit.jsonrpc import (
    INVALID_REQUEST,
    PARSE_ERROR,
    MessageKind,
    classify,
    is_valid_id,
    peek,
)
from mcpkit.transports import MemoryTransport
from tests.reliability.strategies import (
    any_ids,
    fuzz_server,
    json_values,
    message_dicts,
    requests,
    valid_ids,
    wire_bytes,
)

FUZZ = settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def spec_kind(msg: Any) -> MessageKind:
    """What JSON-RPC 2.0 (with MCP's id rule) says ``msg`` is, written from the spec."""
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        return MessageKind.INVALID
    valid_id = "id" in msg and type(msg["id"]) in (str, int)
    if "method" in msg:
        if not isinstance(msg["method"], str):
            return MessageKind.INVALID
        if msg.get("params") is not None and not isinstance(msg["params"], dict):
            return MessageKind.INVALID
        if "id" not in msg:
            return MessageKind.NOTIFICATION
        return MessageKind.REQUEST if valid_id else MessageKind.INVALID
    if "id" not in msg or ("result" in msg) == ("error" in msg):
        return MessageKind.INVALID
    return MessageKind.RESULT if "result" in msg else MessageKind.ERROR


@FUZZ
@given(any_ids | json_values)
def test_is_valid_id_takes_only_strings_and_integers(value: Any) -> None:
    assert is_valid_id(value) == (type(value) is str or type(value) is int)


@FUZZ
@given(message_dicts | json_values)
def test_classify_agrees_with_the_spec(msg: Any) -> None:
    kind, why = classify(msg)
    assert kind is spec_kind(msg)
    assert (why is not None) == (kind is MessageKind.INVALID)


@FUZZ
@given(st.binary(max_size=200) | wire_bytes)
def test_peek_never_fails_and_reads_only_valid_ids(head: bytes) -> None:
    kind, rid = peek(head)
    assert isinstance(kind, MessageKind)
    assert rid is None or is_valid_id(rid)


@FUZZ
@given(valid_ids, st.sampled_from(["request", "result", "error"]), json_values, st.data())
def test_peek_reads_the_id_of_a_cut_message(rid: Any, kind: str, value: Any, data: Any) -> None:
    # The envelope as JSON-RPC libraries write it: jsonrpc, id, then the rest.
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
    if kind == "request":
        msg.update(method="tools/call", params={"big": value, "pad": "x" * 50})
    elif kind == "result":
        msg["result"] = {"big": value, "pad": "x" * 50}
    else:
        msg["error"] = {"code": -32603, "message": "x" * 50, "data": value}
    encoded = orjson.dumps(msg)
    # Cut anywhere after the opening of the member that tells the kind.
    key = {"request": b'"params":{', "result": b'"result":{', "error": b'"error":{'}[kind]
    prefix = encoded.index(key) + len(key)
    cut = data.draw(st.integers(min_value=prefix, max_value=len(encoded)))
    got_kind, got_id = peek(encoded[:cut])
    assert got_id == rid and type(got_id) is type(rid)
    assert got_kind is spec_kind(msg)


class Collect:
    """A sink for the client end: the decoded messages the server sent."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    def receive_bytes(self, data: bytes) -> None:
        self.messages.append(orjson.loads(data))

    def receive(self, message: Any) -> None:
        self.messages.append(message)

    def connection_lost(self, exc: BaseException | None) -> None:
        pass


APP = fuzz_server()
INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "fuzz", "version": "1"},
    },
}
#: Codes a server may answer a request with (JSON-RPC's own, and MCP's resource not found).
ANSWER_CODES = {-32700, -32600, -32601, -32602, -32603, -32002}


async def settle(until: Any = None, limit: float = 2.0) -> None:
    """Let the server run: until ``until()`` is true (at most ``limit`` seconds), or for a
    few rounds of the loop when there is nothing to wait for."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while True:
        for _ in range(20):
            await asyncio.sleep(0)
        if until is None or until() or loop.time() > deadline:
            return
        await asyncio.sleep(0.001)


def answers_to(sink: Collect, rid: Any) -> list[Any]:
    return [
        m
        for m in sink.messages
        if isinstance(m, dict)
        and "method" not in m
        and m.get("id") == rid
        and type(m.get("id")) is type(rid)
    ]


async def exchange(data: bytes, initialized: bool) -> None:
    client, server_end = MemoryTransport.pair()
    session = APP.session(server_end)
    await session.start()
    sink = Collect()
    await client.start(sink)
    try:
        if initialized:
            client.write(INIT)
            client.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
            await settle(lambda: answers_to(sink, "init"))
            assert "result" in answers_to(sink, "init")[0]
        before = len(sink.messages)
        client.write_bytes(data)
        try:
            msg: Any = orjson.loads(data)
        except orjson.JSONDecodeError:
            parsed = False
        else:
            parsed = True
        if parsed and spec_kind(msg) is MessageKind.REQUEST:
            rid = msg["id"]
            await settle(lambda: answers_to(sink, rid))
            got = answers_to(sink, rid)
            assert len(got) == 1, (msg, sink.messages[before:])
            answer = got[0]
            assert answer.get("jsonrpc") == "2.0"
            assert ("result" in answer) != ("error" in answer)
            if "error" in answer:
                assert answer["error"]["code"] in ANSWER_CODES, answer
                assert isinstance(answer["error"]["message"], str)
        else:
            await settle()
            replies = [m for m in sink.messages[before:] if "method" not in m]
            if not parsed:
                assert [r["error"]["code"] for r in replies] == [PARSE_ERROR]
                assert replies[0]["id"] is None
            elif spec_kind(msg) is MessageKind.INVALID and not _is_response_shaped(msg):
                assert [r["error"]["code"] for r in replies] == [INVALID_REQUEST], (msg, replies)
            else:
                # Notifications, responses to nothing, malformed responses: no answer.
                assert replies == [], (msg, replies)
        # The peer stays usable: a valid follow-up request is served.
        follow = {"jsonrpc": "2.0", "id": "follow-up", "method": "ping"}
        client.write(follow)
        await settle(lambda: answers_to(sink, "follow-up"))
        assert answers_to(sink, "follow-up") == [
            {"jsonrpc": "2.0", "id": "follow-up", "result": {}}
        ]
        if initialized:
            call = {
                "jsonrpc": "2.0",
                "id": "call",
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "still here"}},
            }
            client.write(call)
            await settle(lambda: answers_to(sink, "call"))
            assert answers_to(sink, "call")[0]["result"]["content"][0]["text"] == "still here"
    finally:
        await client.close()
        await session.close()


def _is_response_shaped(msg: Any) -> bool:
    return isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg)


@FUZZ
@given(wire_bytes | requests.map(orjson.dumps))
def test_an_operating_server_answers_every_input_and_stays_usable(data: bytes) -> None:
    asyncio.run(exchange(data, initialized=True))


@settings(FUZZ, max_examples=150)
@given(wire_bytes | requests.map(orjson.dumps))
def test_a_new_server_answers_every_input_and_stays_usable(data: bytes) -> None:
    asyncio.run(exchange(data, initialized=False))
