"""Property tests of the lifecycle table: verdict() and next_phase() are total, and random
sequences of messages and events obey the spec's ordering rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpkit.jsonrpc import CONNECTION_CLOSED, INVALID_REQUEST
from mcpkit.lifecycle import Direction, Event, Kind, Lifecycle, Phase, Role, next_phase, verdict
from tests.reliability.strategies import METHODS

FUZZ = settings(max_examples=300, derandomize=True, deadline=None)
ORDER = {Phase.NEW: 0, Phase.INITIALIZING: 1, Phase.OPERATING: 2, Phase.CLOSED: 3}
method_names = st.sampled_from(METHODS) | st.text(max_size=24)


@FUZZ
@given(
    st.sampled_from(Direction),
    st.sampled_from(Role),
    st.sampled_from(Phase),
    st.sampled_from(Kind),
    method_names,
)
def test_verdict_is_total_and_answers_with_a_spec_code(
    direction: Direction, role: Role, phase: Phase, kind: Kind, method: str
) -> None:
    refusal = verdict(direction, role, phase, kind, method)
    if refusal is not None:
        assert refusal.code in (INVALID_REQUEST, CONNECTION_CLOSED)
        error = refusal.error(method)
        assert error.code == refusal.code and "{method}" not in str(error)
    if direction is Direction.INCOMING and phase is Phase.CLOSED:
        assert refusal is not None and refusal.code == CONNECTION_CLOSED
    if direction is Direction.INCOMING and kind is Kind.REQUEST and method == "ping":
        # ping may be sent at any time before the connection closes.
        assert (refusal is None) == (phase is not Phase.CLOSED)
    if (direction, role, phase, kind) == (Direction.INCOMING, Role.SERVER, Phase.NEW, Kind.REQUEST):
        assert (refusal is None) == (method in ("initialize", "ping"))
    if role is Role.SERVER and kind is Kind.REQUEST and method == "initialize":
        if direction is Direction.INCOMING and phase in (Phase.INITIALIZING, Phase.OPERATING):
            assert refusal is not None and refusal.code == INVALID_REQUEST


@FUZZ
@given(st.sampled_from(Role), st.lists(st.sampled_from(Event), max_size=12))
def test_phases_only_move_forward_and_closed_is_final(role: Role, events: list[Event]) -> None:
    phase = Phase.NEW
    life = Lifecycle(role)
    for event in events:
        after = next_phase(role, phase, event)
        assert ORDER[after] >= ORDER[phase]
        if phase is Phase.CLOSED:
            assert after is Phase.CLOSED
        if event is Event.CLOSED:
            assert after is Phase.CLOSED
        assert life.apply(event) is after
        phase = after
    assert life.phase is phase


@FUZZ
@given(st.lists(st.sampled_from(Event), max_size=12))
def test_a_server_operates_only_after_initialize_then_initialized(events: list[Event]) -> None:
    phase = Phase.NEW
    seen: list[Event] = []
    for event in events:
        phase = next_phase(Role.SERVER, phase, event)
        seen.append(event)
        if phase is Phase.OPERATING:
            accepted = Event.INITIALIZE_ACCEPTED in seen
            initialized = (
                accepted
                and Event.INITIALIZED_RECEIVED in seen[seen.index(Event.INITIALIZE_ACCEPTED) :]
            )
            assert initialized or Event.ASSUMED in seen


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(Kind), method_names), max_size=10))
def test_incoming_traffic_before_initialize_is_refused_but_ping(
    messages: list[tuple[Kind, str]],
) -> None:
    # Whatever arrives before initialize, a server stays NEW and refuses all requests but
    # initialize and ping; afterwards initialize moves it on.
    for kind, method in messages:
        refusal = verdict(Direction.INCOMING, Role.SERVER, Phase.NEW, kind, method)
        if kind is Kind.REQUEST and method not in ("initialize", "ping"):
            assert refusal is not None and refusal.code == INVALID_REQUEST
        if kind is Kind.NOTIFICATION and method == "notifications/initialized":
            assert refusal is not None
    assert next_phase(Role.SERVER, Phase.NEW, Event.INITIALIZE_ACCEPTED) is Phase.INITIALIZING
