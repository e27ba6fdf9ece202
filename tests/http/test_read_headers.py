"""``read_headers``: a head read before is not read again (one hash finds its
``RequestHeaders``), and what it gives is always what ``RequestHeaders`` reads of that
very head: Content-Length, its position, duplicates, order and size all count."""

from __future__ import annotations

import itertools

import pytest

from mcpkit.transports.http import asgi
from mcpkit.transports.http.asgi import RequestHeaders, read_headers

_READ = ("accept", "content_length", "content_type", "count", "fields", "host")
_MORE = ("last_event_id", "mcp", "origin", "protocol_version", "session_id", "size")


def _fresh(raw: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    # What an ASGI server gives: a new list of new bytes objects for every request.
    return [(bytes(bytearray(k)), bytes(bytearray(v))) for k, v in raw]


def _same(h: RequestHeaders, raw: list[tuple[bytes, bytes]]) -> None:
    want = RequestHeaders(raw)
    for name in _READ + _MORE:
        assert getattr(h, name) == getattr(want, name), name


@pytest.fixture(autouse=True)
def _empty() -> None:
    asgi._HEADS.clear()
    asgi._LENGTH_AT.clear()


def _head(length: bytes | None, *mcp: tuple[bytes, bytes]) -> list[tuple[bytes, bytes]]:
    raw = [(b"host", b"127.0.0.1:8000"), (b"accept", b"application/json")]
    if length is not None:
        raw.append((b"content-length", length))
    raw += [(b"content-type", b"application/json"), *mcp]
    return raw


def test_a_head_seen_before_is_found_not_read() -> None:
    raw = _head(b"57", (b"mcp-protocol-version", b"2026-07-28"), (b"mcp-method", b"tools/call"))
    first = read_headers(_fresh(raw))
    again = read_headers(_fresh(raw))
    assert again is first  # shared: nothing changes a RequestHeaders
    _same(again, raw)
    # Another Content-Length is another head, its own value read.
    other = read_headers(_fresh(_head(b"1234", *raw[4:])))
    assert other is not first and other.content_length == "1234"
    _same(other, _head(b"1234", *raw[4:]))
    assert read_headers(_fresh(_head(b"1234", *raw[4:]))) is other


def test_every_head_reads_as_request_headers_reads_it() -> None:
    # Content-Length anywhere, twice, or not at all; names repeated; values that differ by
    # one byte; the same headers in another order: each is read as RequestHeaders reads it,
    # however the heads before it were.
    heads = [
        _head(b"10"),
        _head(b"11"),
        _head(None),
        [(b"content-length", b"10"), (b"host", b"127.0.0.1:8000"), (b"accept", b"*/*")],
        [(b"host", b"127.0.0.1:8000"), (b"content-length", b"10"), (b"accept", b"*/*")],
        [(b"host", b"127.0.0.1:8000"), (b"accept", b"*/*"), (b"content-length", b"10")],
        [(b"content-length", b"5"), (b"content-length", b"7"), (b"host", b"h")],
        [(b"content-length", b"7"), (b"host", b"h"), (b"content-length", b"5")],
        [(b"content-length", b"7"), (b"content-length", b"5"), (b"host", b"h")],
        _head(b"10", (b"mcp-method", b"tools/call"), (b"mcp-method", b"tools/list")),
        _head(b"10", (b"mcp-method", b"tools/list"), (b"mcp-method", b"tools/call")),
        _head(b"10", (b"mcp-session-id", b"a")),
        _head(b"10", (b"mcp-session-id", b"b")),
        _head(b"10", (b"origin", b"http://x"), (b"accept", b"text/event-stream")),
    ]
    for order in itertools.permutations(range(len(heads)), 3):
        for i in order * 2:
            _same(read_headers(_fresh(heads[i])), heads[i])


def test_what_is_kept_is_bounded() -> None:
    for i in range(3 * asgi._HEADS_MAX):
        raw = _head(b"10", (b"mcp-session-id", b"%d" % i))
        _same(read_headers(_fresh(raw)), raw)
        assert len(asgi._HEADS) <= asgi._HEADS_MAX
    for n in range(3 * asgi._LENGTHS_MAX):
        raw = _head(b"%d" % n)
        _same(read_headers(_fresh(raw)), raw)
        assert all(len(by) <= asgi._LENGTHS_MAX for by in asgi._HEADS.values())
    big = _head(b"10", (b"x-big", b"x" * asgi._HEAD_BYTES))
    asgi._HEADS.clear()
    _same(read_headers(_fresh(big)), big)
    assert not asgi._HEADS  # a large head is read, not kept


def test_headers_that_are_not_a_list_are_read_as_they_come() -> None:
    raw = _head(b"10", (b"mcp-method", b"tools/call"))
    h = read_headers(iter(_fresh(raw)))
    _same(h, raw)
    assert not asgi._HEADS
