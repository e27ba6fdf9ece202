"""The memory event store keeps priming events compactly; replay and bounds are unchanged."""

from __future__ import annotations

from mcpkit.transports.http.event_store import MemoryEventStore


def test_a_primed_stream_is_known_until_its_priming_event_is_dropped() -> None:
    store = MemoryEventStore(max_events_per_session=4)
    store.store_event("s", "a", 0, None)
    assert store.replay("s", "a", 0) == []  # known, nothing to replay yet
    store.store_event("s", "a", 1, b"a1")
    store.store_event("s", "b", 0, None)
    store.store_event("s", "b", 1, b"b1")
    assert store.count("s") == 4 and store.size == 4
    store.store_event("s", "c", 0, None)  # drops a's priming event: a's data event remains
    assert store.replay("s", "a", 0) == [(1, b"a1")]
    store.store_event("s", "c", 1, b"c1")  # drops a's last event: a is forgotten
    assert store.replay("s", "a", 0) is None
    assert store.replay("s", "b", 0) == [(1, b"b1")]
    assert store.replay("s", "c", 0) == [(1, b"c1")]
    assert store.count("s") == 4 and store.size == 4  # bytes of dropped events released
