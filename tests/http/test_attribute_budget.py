"""The objects every HTTP message reads keep their attributes inline: CPython (3.11 and
later) keeps at most 29 attributes of an instance out of a dict, and a read of one of them
specializes; one more and every read on the per-message path is a hashed lookup. A new
attribute on one of these objects has to fit (or go in a group read off the hot path)."""

from __future__ import annotations

from mcpkit import Server
from mcpkit.transports.http.event_store import MemoryEventStore
from mcpkit.transports.http.session_transport import _MAX_ATTRIBUTES, HttpSessionTransport


def test_a_session_transport_fits_with_what_it_sets_later() -> None:
    transport = HttpSessionTransport("sid", event_store=MemoryEventStore())
    transport.writing_paused = True  # set on the instance once a reader falls behind
    assert len(vars(transport)) <= _MAX_ATTRIBUTES, sorted(vars(transport))


def test_the_http_app_fits() -> None:
    app = Server("budget").http_app().app
    app.shutting_down = True  # set at shutdown
    assert len(vars(app)) <= _MAX_ATTRIBUTES, sorted(vars(app))
