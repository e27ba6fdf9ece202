"""Bad input never kills a session: each case gets its JSON-RPC error and the session goes on."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcpkit.jsonrpc import INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from tests.test_session import CLIENT_INFO, call, raw, text_of


async def ready(connect: Any, **kwargs: Any) -> Any:
    pair = await connect(**kwargs)
    await pair.client.initialize(CLIENT_INFO)
    return pair


async def test_malformed_json_is_a_parse_error(connect: Any) -> None:
    pair = await ready(connect)
    slow = asyncio.create_task(call(pair, "sleep", steps=2, delay=0.1))
    reply = await raw(pair, None, data=b'{"jsonrpc": "2.0", "id": 9, "method": \n', expect=None)
    assert reply["error"]["code"] == PARSE_ERROR and reply["id"] is None
    assert text_of(await slow) == "slept 2"  # the request in flight is undisturbed
    assert text_of(await call(pair, "echo", text="alive")) == "alive"


@pytest.mark.parametrize(
    ("message", "reply_id"),
    [
        ([1, 2], None),  # a batch on 2025-11-25: refused (see below)
        ("just a string", None),
        (42, None),
        ({"id": 1, "method": "ping"}, 1),  # no jsonrpc member
        ({"jsonrpc": "1.0", "id": 2, "method": "ping"}, 2),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),  # null id
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, None),  # float id
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, None),  # boolean id
        ({"jsonrpc": "2.0", "id": 3, "method": 7}, 3),
        ({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": [1]}, 4),
        ({"jsonrpc": "2.0"}, None),
    ],
)
async def test_not_a_jsonrpc_message_is_invalid_request(
    connect: Any, message: Any, reply_id: Any
) -> None:
    pair = await ready(connect)
    reply = await raw(pair, message, expect=reply_id)
    assert reply["error"]["code"] == INVALID_REQUEST
    assert reply["id"] == reply_id
    assert text_of(await call(pair, "echo", text="alive")) == "alive"


async def test_batch_refused_outside_2025_03_26(connect: Any) -> None:
    pair = await ready(connect)
    reply = await raw(pair, [{"jsonrpc": "2.0", "id": "b1", "method": "ping"}], expect=None)
    assert reply["error"]["code"] == INVALID_REQUEST
    assert "2025-03-26" in reply["error"]["message"]


async def test_batch_accepted_on_2025_03_26(connect: Any, wire: Any) -> None:
    pair = await connect(tracer=wire("2025-03-26"))
    await pair.client.initialize(CLIENT_INFO, protocol_version="2025-03-26")
    batch = [
        {
            "jsonrpc": "2.0",
            "id": "b1",
            "method": "tools/call",
            "params": {"name": "sleep", "arguments": {"steps": 1, "delay": 0.05}},
        },
        {"jsonrpc": "2.0", "id": "b2", "method": "ping"},
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "x", "progress": 1},
        },
        {"jsonrpc": "2.0", "id": "b3", "method": "no/such/method"},
    ]
    reply = await raw(pair, batch, expect=None)
    assert isinstance(reply, list)
    by_id = {r["id"]: r for r in reply}
    assert set(by_id) == {"b1", "b2", "b3"}
    assert text_of(by_id["b1"]["result"]) == "slept 1"
    assert by_id["b2"]["result"] == {}
    assert by_id["b3"]["error"]["code"] == METHOD_NOT_FOUND


async def test_unknown_method(connect: Any) -> None:
    pair = await ready(connect)
    reply = await raw(pair, {"jsonrpc": "2.0", "id": "u", "method": "does/not/exist"})
    assert reply["error"]["code"] == METHOD_NOT_FOUND
    assert "does/not/exist" in reply["error"]["message"]


async def test_response_to_unknown_id_is_dropped(connect: Any, caplog: Any) -> None:
    pair = await ready(connect)
    pair.transport.write({"jsonrpc": "2.0", "id": 12345, "result": {}})
    pair.transport.write({"jsonrpc": "2.0", "id": 12346, "error": {"code": 1, "message": "x"}})
    assert text_of(await call(pair, "echo", text="alive")) == "alive"
    if pair.server is not None:
        assert "unknown request" in caplog.text


async def test_duplicate_in_flight_id(connect: Any) -> None:
    pair = await ready(connect)
    msg = {
        "jsonrpc": "2.0",
        "id": "dup",
        "method": "tools/call",
        "params": {"name": "sleep", "arguments": {"steps": 1, "delay": 0.3}},
    }
    pair.transport.write(msg)
    await asyncio.sleep(0.05)
    reply = await raw(pair, msg)
    assert (
        reply["error"]["code"] == INVALID_REQUEST and "already in use" in reply["error"]["message"]
    )


async def test_notification_with_bad_params_is_ignored(connect: Any) -> None:
    pair = await ready(connect)
    for params in (None, [], {"requestId": None}, {"progressToken": {}}):
        pair.transport.write(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
            if params is not None
            else {"jsonrpc": "2.0", "method": "notifications/cancelled"}
        )
        pair.transport.write(
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": params or {}}
        )
    pair.transport.write({"jsonrpc": "2.0", "method": "notifications/whatever"})
    assert text_of(await call(pair, "echo", text="alive")) == "alive"


@pytest.mark.parametrize("kind", ["stdio"])
async def test_oversized_message_is_rejected_without_buffering(connect: Any, kind: str) -> None:
    pair = await ready(
        connect,
        server_env_extra={"MAX_MESSAGE_SIZE": "100000"},
    )
    big = (
        b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"echo","arguments":{"text":"'
        + b"x" * 300_000
        + b'"}}}\n'
    )
    # Sent in pieces, as a pipe would deliver it.
    reply = None
    checker = pair.client._tracer
    before = len(checker.messages)
    for i in range(0, len(big), 16384):
        pair.transport.write_bytes(big[i : i + 16384])
        await asyncio.sleep(0)
    for _ in range(200):
        await asyncio.sleep(0.01)
        got = [m for d, m in checker.messages[before:] if d == "recv"]
        if got:
            reply = got[0]
            break
    assert reply is not None and reply["error"]["code"] == INVALID_REQUEST
    assert "size limit" in reply["error"]["message"]
    assert text_of(await call(pair, "echo", text="alive")) == "alive"


def test_line_framer_discards_oversized_lines_as_they_arrive() -> None:
    from mcpkit.transports.stdio import LineFramer

    got: list[bytes] = []
    oversize: list[int] = []

    class Sink:
        def receive_bytes(self, data: bytes) -> None:
            got.append(data)

        def receive(self, message: Any) -> None:  # pragma: no cover - unused
            raise AssertionError

        def connection_lost(self, exc: BaseException | None) -> None:  # pragma: no cover
            raise AssertionError

    framer = LineFramer(Sink(), 100, lambda head: oversize.append(1))
    framer.feed(b'{"a":1}\n{"b"')
    framer.feed(b":2}\n\n  \n")
    assert got == [b'{"a":1}', b'{"b":2}']
    for _ in range(50):  # 5000 bytes without a newline: never more than the limit buffered
        framer.feed(b"x" * 100)
        assert len(framer._buf) <= 100
    assert oversize == [1]
    framer.feed(b'xxx\n{"c":3}\n')
    assert got[-1].strip() == b'{"c":3}' and oversize == [1]
    framer.feed(b"y" * 150 + b"\n")  # a whole oversized line in one chunk
    assert oversize == [1, 1] and got[-1].strip() == b'{"c":3}'
