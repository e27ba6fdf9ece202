"""``RequestHeaders``: the ``Mcp-*`` headers as raw fields when no name repeats (the
2026-07-28 quick check reads them there), else None; the rest as before."""

from __future__ import annotations

from mcpkit.transports.http.asgi import RequestHeaders

HEAD = [
    (b"host", b"example.com"),
    (b"content-type", b"application/json"),
    (b"content-length", b"42"),
    (b"mcp-protocol-version", b" 2026-07-28 "),
    (b"mcp-method", b"tools/call"),
    (b"x-other", b"1"),
    (b"mcp-name", b"echo"),
    (b"mcp-param-region", b"\xe9u"),
    (b"mcp-session-id", b"abc"),
    (b"origin", b"http://localhost"),
    (b"last-event-id", b" 7 "),
]


def test_a_head_is_read_in_one_pass() -> None:
    h = RequestHeaders(HEAD)
    assert h.fields == {k: v for k, v in HEAD if k.startswith(b"mcp-")}
    assert h.mcp == [(k, v) for k, v in HEAD if k.startswith(b"mcp-")]
    assert (h.host, h.content_type, h.content_length, h.origin) == (
        "example.com",
        "application/json",
        "42",
        "http://localhost",
    )
    assert h.protocol_version == "2026-07-28" and h.last_event_id == "7"
    assert h.session_id == "abc" and h.accept is None
    assert h.size == sum(len(k) + len(v) for k, v in HEAD) and h.count == 11
    plain = RequestHeaders([(b"host", b"a"), (b"accept", b"application/json")])
    assert plain.mcp is None and plain.fields is None


def test_a_repeated_mcp_name_leaves_no_fields() -> None:
    raw = [
        (b"accept", b"application/json"),
        (b"host", b"a"),
        (b"accept", b"text/event-stream"),
        (b"mcp-method", b"tools/call"),
        (b"mcp-method", b"tools/list"),
    ]
    h = RequestHeaders(raw)
    assert h.fields is None  # the 2026-07-28 quick check is not taken
    assert h.accept == "application/json,text/event-stream"
    assert h.host == "a" and h.count == 5
    assert h.mcp == [(b"mcp-method", b"tools/call"), (b"mcp-method", b"tools/list")]
