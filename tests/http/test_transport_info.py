"""What the HTTP transports tell a session about themselves (TransportInfo)."""

from __future__ import annotations

from mcpkit.transports.http import HttpSessionTransport, HttpSseTransport, MemoryEventStore


def test_session_transport_with_a_store_has_closable_streams() -> None:
    transport = HttpSessionTransport("sid-1", event_store=MemoryEventStore())
    assert transport.info.kind == "http"
    assert transport.info.session_id == "sid-1"
    assert transport.info.closable_streams
    assert transport.close_response_stream(7) is False  # no such request: nothing to close


def test_stateless_transport_has_no_session_and_no_closable_streams() -> None:
    transport = HttpSessionTransport(None, event_store=MemoryEventStore())
    assert transport.info.kind == "http"
    assert transport.info.session_id is None
    assert not transport.info.closable_streams


def test_legacy_transport_never_closes_its_one_stream() -> None:
    transport = HttpSseTransport("legacy-1")
    assert transport.info.kind == "legacy-sse"
    assert transport.info.session_id == "legacy-1"
    assert not transport.info.closable_streams
    assert transport.close_response_stream(1) is False
    assert transport.close_sse_stream(1) is False
