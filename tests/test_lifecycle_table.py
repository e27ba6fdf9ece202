"""The lifecycle table, walked cell by cell, and the transitions between phases."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from mcpkit import versions
from mcpkit.errors import McpError, RequestRefused, UnsupportedProtocolVersion
from mcpkit.lifecycle import (
    ANY,
    RULES,
    TRANSITIONS,
    Direction,
    Event,
    Kind,
    Lifecycle,
    Phase,
    Refusal,
    Role,
    next_phase,
    verdict,
)

INIT_PARAMS = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
#: Methods no capability gates, so a Lifecycle's answer is the table's alone.
UNGATED = ["initialize", "ping", "custom/method", "notifications/initialized"]


def in_phase(role: Role, phase: Phase) -> Lifecycle:
    lc = Lifecycle(role)
    lc.phase = phase
    return lc


def test_the_table_is_complete() -> None:
    for key in itertools.product(Direction, Role, Phase, Kind):
        assert key in RULES, key
        assert ANY in RULES[key], key
    assert len(RULES) == len(Direction) * len(Role) * len(Phase) * len(Kind)


@pytest.mark.parametrize("role", list(Role))
@pytest.mark.parametrize("phase", list(Phase))
def test_lifecycle_follows_every_request_cell(role: Role, phase: Phase) -> None:
    lc = in_phase(role, phase)
    for method in [*UNGATED, *RULES[(Direction.INCOMING, role, phase, Kind.REQUEST)]]:
        if method == ANY:
            continue
        expected = verdict(Direction.INCOMING, role, phase, Kind.REQUEST, method)
        got = lc.check_incoming_request(method)
        if expected is None:
            assert got is None, (method, got)
        else:
            assert got is not None and got.code == expected.code, method
            assert not isinstance(got, RequestRefused)  # it is answered to the peer
        expected = verdict(Direction.OUTGOING, role, phase, Kind.REQUEST, method)
        if expected is None:
            lc.check_outgoing_request(method)
        else:
            with pytest.raises(RequestRefused) as info:
                lc.check_outgoing_request(method)
            assert info.value.code == expected.code
        assert lc.check_incoming_notification(method) == verdict(
            Direction.INCOMING, role, phase, Kind.NOTIFICATION, method
        )


def test_some_cells_say_what_the_spec_says() -> None:
    v = verdict
    s, c = Role.SERVER, Role.CLIENT
    inc, out, req = Direction.INCOMING, Direction.OUTGOING, Kind.REQUEST
    assert v(inc, s, Phase.NEW, req, "initialize") is None
    assert v(inc, s, Phase.NEW, req, "ping") is None
    assert v(inc, s, Phase.NEW, req, "tools/list") == Refusal(
        -32600, "Session not initialized: send 'initialize' before {method}"
    )
    assert v(inc, s, Phase.OPERATING, req, "initialize").code == -32600  # type: ignore[union-attr]
    assert v(out, c, Phase.NEW, req, "initialize") is None
    assert v(out, c, Phase.NEW, req, "tools/list").code == -32600  # type: ignore[union-attr]
    assert v(out, s, Phase.NEW, req, "roots/list").code == -32600  # type: ignore[union-attr]
    assert v(inc, s, Phase.INITIALIZING, Kind.NOTIFICATION, "notifications/initialized") is None
    assert v(inc, s, Phase.NEW, Kind.NOTIFICATION, "notifications/initialized") is not None
    for role, phase in itertools.product(Role, Phase):
        assert v(out, role, phase, req, "ping") is None


def test_transitions() -> None:
    s, c = Role.SERVER, Role.CLIENT
    assert next_phase(s, Phase.NEW, Event.INITIALIZE_ACCEPTED) is Phase.INITIALIZING
    assert next_phase(s, Phase.INITIALIZING, Event.INITIALIZED_RECEIVED) is Phase.OPERATING
    assert next_phase(c, Phase.NEW, Event.INITIALIZE_ANSWERED) is Phase.OPERATING
    # `initialized` before `initialize` does not skip the handshake.
    assert next_phase(s, Phase.NEW, Event.INITIALIZED_RECEIVED) is Phase.NEW
    for role, event in itertools.product(Role, Event):
        assert next_phase(role, Phase.CLOSED, event) is Phase.CLOSED  # closed stays closed
    for role, phase in itertools.product(Role, Phase):
        assert next_phase(role, phase, Event.CLOSED) is Phase.CLOSED
    assert all(target in Phase for target in TRANSITIONS.values())


def test_pipelined_handshake() -> None:
    lc = Lifecycle(Role.SERVER, {"tools": {}})
    assert lc.check_incoming_request("initialize") is None
    lc.server_initialize(INIT_PARAMS)
    assert lc.phase is Phase.INITIALIZING
    # What the client wrote right after initialize is judged with the handshake done.
    assert lc.check_incoming_notification("notifications/initialized") is None
    lc.server_initialized()
    assert lc.phase is Phase.OPERATING
    assert lc.check_incoming_request("tools/list") is None
    err = lc.check_incoming_request("initialize")
    assert err is not None and err.message == "Session is already initialized"
    assert lc.check_incoming_notification("notifications/initialized") is not None


def test_bad_initialize_params_keep_the_session_new() -> None:
    lc = Lifecycle(Role.SERVER)
    for params in (None, {}, {"protocolVersion": 1}, {**INIT_PARAMS, "capabilities": []}):
        with pytest.raises(McpError) as info:
            lc.server_initialize(params)  # type: ignore[arg-type]
        assert info.value.code == -32602
        assert lc.phase is Phase.NEW


def test_a_modern_only_server_names_its_versions_to_initialize() -> None:
    lc = Lifecycle(Role.SERVER)
    with pytest.raises(UnsupportedProtocolVersion) as info:
        lc.server_initialize(INIT_PARAMS, versions.MODERN_SUPPORTED)
    assert info.value.supported == ["2026-07-28"] and info.value.requested == "2025-11-25"
    assert lc.phase is Phase.NEW


def test_client_refuses_a_modern_answer_to_initialize() -> None:
    lc = Lifecycle(Role.CLIENT)
    both = (*versions.MODERN_SUPPORTED, *versions.LEGACY_SUPPORTED)
    with pytest.raises(McpError):
        lc.client_initialize_result({"protocolVersion": "2026-07-28"}, both)
    assert lc.phase is Phase.NEW


def test_closing() -> None:
    lc = Lifecycle(Role.SERVER)
    lc.server_initialize(INIT_PARAMS)
    lc.close()
    assert lc.phase is Phase.CLOSED
    err = lc.check_incoming_request("tools/list")
    assert err is not None and err.code == -32000
    lc.assume(versions.LATEST)
    assert lc.phase is Phase.CLOSED


async def test_initialized_counts_once_and_only_after_initialize() -> None:
    from mcpkit.session import ServerSession
    from mcpkit.transports.memory import MemoryTransport

    a, b = MemoryTransport.pair()
    seen: list[object] = []
    server = ServerSession(a, server_info={"name": "s"}, on_initialized=seen.append)
    await server.start()

    class Peer:
        def __init__(self) -> None:
            self.received: list[bytes] = []

        def receive_bytes(self, data: bytes) -> None:
            self.received.append(data)

        def connection_lost(self, exc: BaseException | None) -> None:
            pass

    peer = Peer()
    await b.start(peer)  # type: ignore[arg-type]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    b.write(note)  # before initialize: dropped
    b.write({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT_PARAMS})
    b.write(note)
    b.write(note)  # a second one: dropped
    for _ in range(50):
        if peer.received and seen:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.02)
    assert seen == [server]
    assert server.lifecycle.phase is Phase.OPERATING
    assert b'"protocolVersion":"2025-11-25"' in peer.received[0]
    await server.close()


def _answers(lc: Lifecycle, method: str) -> tuple[object, ...]:
    """Everything ``lc`` says about ``method`` now, as comparable values."""
    incoming = lc.check_incoming_request(method)
    try:
        lc.check_outgoing_request(method)
        outgoing = None
    except RequestRefused as exc:
        outgoing = (exc.code, str(exc))
    try:
        lc.check_outgoing_notification(method)
        announce = None
    except RequestRefused as exc:
        announce = (exc.code, str(exc))
    return (
        None if incoming is None else (incoming.code, str(incoming)),
        lc.check_incoming_notification(method),
        outgoing,
        announce,
    )


#: Every method the tables name, the gated ones included.
ALL_METHODS = sorted(
    {m for cell in RULES.values() for m in cell if m != ANY}
    | set(UNGATED)
    | {"tools/call", "sampling/createMessage", "tasks/list", "completion/complete"}
    | {"notifications/message", "notifications/tools/list_changed"}
)


@pytest.mark.parametrize("role", list(Role))
@pytest.mark.parametrize("phase", list(Phase))
@pytest.mark.parametrize("version", [None, versions.V2024_11_05, versions.LATEST_LEGACY])
@pytest.mark.parametrize("peer", [{}, {"tools": {}, "sampling": {}}])
def test_a_copy_is_in_the_same_state_and_moves_alone(
    role: Role, phase: Phase, version: versions.ProtocolVersion | None, peer: dict[str, object]
) -> None:
    lc = Lifecycle(role, {"tools": {"listChanged": True}, "logging": {}})
    lc.version = version
    lc.peer_capabilities = dict(peer)
    lc.peer_info = {"name": "peer"} if peer else {}
    lc.phase = phase
    copy = lc.copy()
    for slot in Lifecycle.__slots__:  # every slot, so a new one is not forgotten
        assert getattr(copy, slot) == getattr(lc, slot), slot
    assert copy.capabilities is lc.capabilities  # this side's: never changed in place
    assert copy.peer_capabilities is not lc.peer_capabilities
    assert copy.peer_info is not lc.peer_info
    for method in ALL_METHODS:
        assert _answers(copy, method) == _answers(lc, method), method
    # The copy's peer facts and phase are its own.
    copy.peer_capabilities["roots"] = {}
    copy.peer_info["name"] = "other"
    assert lc.peer_capabilities == peer
    assert lc.peer_info == ({"name": "peer"} if peer else {})
    for event in Event:
        moved = lc.copy()
        assert moved.apply(event) is next_phase(role, phase, event)
        assert lc.phase is phase
