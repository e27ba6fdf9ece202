"""Pure parts: SSE framing, event stores, and the session transport's bounds and routing."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mcpkit.transports.http import (
    EventStore,
    HttpSessionTransport,
    MemoryEventStore,
    SQLiteEventStore,
    SSEConnection,
)
from mcpkit.transports.http.sse import KEEPALIVE, SSEDecoder, encode_event, encode_retry


def test_sse_round_trip_in_any_chunking() -> None:
    stream = (
        encode_event(None, "s-0", retry=500)
        + KEEPALIVE
        + encode_event(b'{"a":1}', "s-1")
        + encode_event(b"two\nlines", None, event="other")
        + encode_retry(250)
    )
    for size in (1, 2, 3, 7, len(stream)):
        decoder = SSEDecoder()
        events = []
        for i in range(0, len(stream), size):
            events += decoder.feed(stream[i : i + size])
        assert [(e.event, e.data, e.id, e.retry) for e in events] == [
            ("message", "", "s-0", 500),
            ("message", '{"a":1}', "s-1", None),
            ("other", "two\nlines", None, None),
        ]
        assert decoder.last_event_id == "s-1" and decoder.retry == 250


def test_sse_decoder_handles_crlf_cr_bom_and_comments() -> None:
    decoder = SSEDecoder()
    data = b"\xef\xbb\xbfdata: x\r\n\r\n: comment\rdata:y\r\rid: 7\ndata: z\n\n"
    events = decoder.feed(data)
    assert [(e.data, e.id) for e in events] == [("x", None), ("y", None), ("z", "7")]


def test_sse_decoder_bounds_a_line() -> None:
    decoder = SSEDecoder(max_line=100)
    with pytest.raises(ValueError):
        decoder.feed(b"data: " + b"x" * 200)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: Any, tmp_path: Any) -> Any:
    if request.param == "memory":
        yield MemoryEventStore(max_events_per_session=8)
    else:
        s = SQLiteEventStore(str(tmp_path / "ev.db"), max_events_per_session=8)
        yield s
        s.close()


def test_store_replays_one_stream_after_an_id(store: EventStore) -> None:
    store.store_event("s1", "a", 0, None)
    store.store_event("s1", "b", 0, None)
    for seq in range(1, 4):
        store.store_event("s1", "a", seq, b"a%d" % seq)
        store.store_event("s1", "b", seq, b"b%d" % seq)
    assert store.replay("s1", "a", 1) == [(2, b"a2"), (3, b"a3")]
    assert store.replay("s1", "a", 0) == [(1, b"a1"), (2, b"a2"), (3, b"a3")]
    assert store.replay("s1", "b", 3) == []
    assert store.replay("s2", "a", 0) is None  # another session's stream
    assert store.replay("s1", "zz", 0) is None
    store.delete_session("s1")
    assert store.count() == 0 and store.replay("s1", "a", 0) is None


def test_store_retention_is_bounded(store: EventStore) -> None:
    for seq in range(100):
        store.store_event("s", "a", seq, b"x")
    assert store.count("s") <= 8 + 8 // 4
    replay = store.replay("s", "a", 0)
    assert replay is not None and replay[-1][0] == 99


def test_memory_store_bounds_sessions() -> None:
    store = MemoryEventStore(max_sessions=3)
    for i in range(10):
        store.store_event(f"s{i}", "a", 1, b"x")
    assert store.count() == 3


async def test_slow_connection_is_dropped_not_buffered() -> None:
    transport = HttpSessionTransport("sid", event_store=MemoryEventStore(), max_buffer=4096)
    conn = SSEConnection(4096)
    transport.open_standalone(conn)
    for i in range(1000):  # nobody drains conn: it is dropped once over the limit
        transport.write({"jsonrpc": "2.0", "method": "notifications/message", "params": {"i": i}})
    assert conn.aborted and conn.size == 0 and not conn.frames
    # Everything is still in the (bounded) store for a resumption.
    assert transport.store is not None and transport.store.count("sid") <= 1024 + 256


async def test_backlog_without_a_get_stream_is_bounded() -> None:
    transport = HttpSessionTransport("sid", backlog=16)
    for i in range(100):
        transport.write({"jsonrpc": "2.0", "method": "notifications/message", "params": {"i": i}})
    conn = SSEConnection(1 << 20)
    transport.open_standalone(conn)
    frames = conn.take().split(b"\n\n")
    got = [orjson.loads(f.split(b"data: ", 1)[1])["params"]["i"] for f in frames if b"data: {" in f]
    assert got == list(range(84, 100))


async def test_responses_never_go_to_the_standalone_stream() -> None:
    transport = HttpSessionTransport("sid")
    conn = SSEConnection(1 << 20)
    transport.open_standalone(conn)
    transport.write({"jsonrpc": "2.0", "id": 5, "result": {}}, 5)  # no stream for request 5
    assert not conn.frames


async def test_messages_follow_their_request() -> None:
    transport = HttpSessionTransport("sid")
    get, post = SSEConnection(1 << 20), SSEConnection(1 << 20)
    transport.open_standalone(get)
    transport.open_request_stream([1], post)
    transport.write({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}, 1)
    transport.write({"jsonrpc": "2.0", "method": "notifications/message", "params": {}})
    transport.write({"jsonrpc": "2.0", "id": 1, "result": {}}, 1)
    post_data, get_data = post.take(), get.take()
    assert b"progress" in post_data and b'"id":1' in post_data and post.finished
    assert b"notifications/message" in get_data and b"progress" not in get_data
    assert transport.idle() is True


def test_jsonrpc_batch_and_cancellation_rules() -> None:
    from mcpkit.jsonrpc import batch_refusal, cancelled_request_id, initialize_in_batch

    assert batch_refusal([{}], True, "2025-03-26") is None
    assert batch_refusal([], True, "2025-03-26") == "Invalid request: empty batch"
    refused = batch_refusal([{}], False, "2025-06-18")
    assert refused is not None and "protocol version 2025-06-18" in refused
    assert "(not negotiated yet)" in (batch_refusal([{}], False, None) or "")
    assert initialize_in_batch({"jsonrpc": "2.0", "id": 1, "method": "initialize"})
    assert not initialize_in_batch({"jsonrpc": "2.0", "method": "initialize"})
    assert cancelled_request_id({"requestId": 3}) == 3
    assert cancelled_request_id({"requestId": "a"}) == "a"
    assert cancelled_request_id({"requestId": True}) is None
    assert cancelled_request_id(None) is None


def _notify(transport: HttpSessionTransport, i: int, pad: str = "") -> None:
    transport.write(
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"i": i, "pad": pad}}
    )


async def test_a_get_cut_inside_its_backlog_resumes_before_it() -> None:
    """Messages for the standalone stream while no GET is open wait in the backlog; a GET
    then gets them after its priming event, whose id names the event before them: a client
    cut off right after the priming event resumes with that id and gets them all."""
    from mcpkit.versions import V2025_11_25

    transport = HttpSessionTransport("sid", event_store=MemoryEventStore())
    transport.protocol_version = V2025_11_25
    first = SSEConnection(1 << 20)
    transport.open_standalone(first)
    _notify(transport, 0)
    transport.detach(first)  # the GET went away: what follows waits in the backlog
    for i in (1, 2, 3):
        _notify(transport, i)
    conn = SSEConnection(1 << 20)
    transport.open_standalone(conn)
    events = SSEDecoder().feed(conn.take())
    priming, backlog = events[0], events[1:]
    assert priming.data == "" and priming.id is not None
    assert [orjson.loads(e.data)["params"]["i"] for e in backlog] == [1, 2, 3]
    # Cut right after the priming event: the resumption replays the backlog.
    transport.detach(conn)
    again = SSEConnection(1 << 20)
    assert transport.resume(priming.id, again)
    replayed = SSEDecoder().feed(again.take())
    assert [orjson.loads(e.data)["params"]["i"] for e in replayed] == [1, 2, 3]


async def test_a_backlog_over_the_buffer_does_not_drop_the_new_get() -> None:
    transport = HttpSessionTransport("sid", event_store=MemoryEventStore(), backlog=16)
    for i in range(16):
        _notify(transport, i, "x" * 1024)
    conn = SSEConnection(4096)
    transport.open_standalone(conn)
    assert not conn.aborted
    frames = conn.take().split(b"\n\n")
    got = [orjson.loads(f.split(b"data: ", 1)[1])["params"]["i"] for f in frames if b"data: {" in f]
    assert got == list(range(16))
