"""Sealed requestState: binding, tampering, expiry, key rotation, size bound."""

from __future__ import annotations

import base64

import pytest

from mcpkit.errors import McpError
from mcpkit.server.request_state import (
    KEYS_ENV,
    KeyRing,
    RequestBinding,
    RequestStateSealer,
    arguments_digest,
    generate_key,
)

PARAMS = {"name": "book", "arguments": {"city": "Oslo", "nights": 2}}


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def binding(principal: str | None = "alice", params: dict[str, object] = PARAMS) -> RequestBinding:
    return RequestBinding.of("tools/call", params, principal)


def key() -> bytes:
    return base64.b64decode(generate_key())


def reject(sealer: RequestStateSealer, token: object, b: RequestBinding, fragment: str) -> None:
    with pytest.raises(McpError) as info:
        sealer.open(token, b)
    assert info.value.code == -32602
    assert info.value.message.startswith("Invalid requestState")
    assert fragment in info.value.message


def test_round_trip_keeps_everything() -> None:
    clock = Clock()
    sealer = RequestStateSealer(KeyRing([key()]), ttl=60, clock=clock)
    token = sealer.seal(
        binding(),
        questions=["q1", "q2"],
        answers={"q0": {"action": "accept", "content": {"x": "y"}}},
        data={"ticket": "T-1"},
        round=2,
    )
    assert isinstance(token, str) and "Oslo" not in token
    state = sealer.open(token, binding())
    assert state.questions == ("q1", "q2")
    assert state.answers == {"q0": {"action": "accept", "content": {"x": "y"}}}
    assert state.data == {"ticket": "T-1"}
    assert state.round == 2 and state.issued_at == clock.now and state.ttl == 60
    assert state.binding == binding()


def test_tampered_state_is_rejected() -> None:
    sealer = RequestStateSealer(KeyRing([key()]))
    token = sealer.seal(binding())
    reject(sealer, token + "-TAMPERED", binding(), "")
    raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    raw[-1] ^= 1
    flipped = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    reject(sealer, flipped, binding(), "failed verification")
    reject(sealer, "", binding(), "non-empty string")
    reject(sealer, 12, binding(), "non-empty string")
    reject(sealer, "AAAA", binding(), "not issued by this server")


def test_expired_state_is_rejected() -> None:
    clock = Clock()
    sealer = RequestStateSealer(KeyRing([key()]), ttl=30, clock=clock)
    token = sealer.seal(binding())
    clock.now += 29.9
    sealer.open(token, binding())
    clock.now += 0.2
    reject(sealer, token, binding(), "expired")


def test_state_from_the_future_is_rejected() -> None:
    clock = Clock()
    sealer = RequestStateSealer(KeyRing([key()]), clock=clock)
    token = sealer.seal(binding())
    clock.now -= 3600
    reject(sealer, token, binding(), "future")


def test_wrong_principal_is_rejected() -> None:
    sealer = RequestStateSealer(KeyRing([key()]))
    token = sealer.seal(binding("alice"))
    reject(sealer, token, binding("mallory"), "another principal")
    reject(sealer, token, binding(None), "another principal")
    anonymous = sealer.seal(binding(None))
    sealer.open(anonymous, binding(None))


def test_replay_on_another_request_is_rejected() -> None:
    sealer = RequestStateSealer(KeyRing([key()]))
    token = sealer.seal(binding())
    other_tool = RequestBinding.of("tools/call", {**PARAMS, "name": "cancel"}, "alice")
    reject(sealer, token, other_tool, "another request")
    other_method = RequestBinding.of("prompts/get", PARAMS, "alice")
    reject(sealer, token, other_method, "another request")
    other_args = binding(params={"name": "book", "arguments": {"city": "Paris", "nights": 2}})
    reject(sealer, token, other_args, "other arguments")
    same_args_reordered = binding(
        params={"name": "book", "arguments": {"nights": 2, "city": "Oslo"}}
    )
    sealer.open(token, same_args_reordered)


def test_resource_binding_uses_the_uri() -> None:
    b = RequestBinding.of("resources/read", {"uri": "file:///a"}, None)
    assert b.name == "file:///a" and b.arguments == arguments_digest({})
    sealer = RequestStateSealer(KeyRing([key()]))
    token = sealer.seal(b)
    reject(sealer, token, RequestBinding.of("resources/read", {"uri": "file:///b"}, None), "")


def test_key_rotation() -> None:
    old, new = key(), key()
    old_ring = KeyRing([old])
    old_token = RequestStateSealer(old_ring).seal(binding())
    rotated = old_ring.rotated(new)
    assert len(rotated) == 2
    sealer = RequestStateSealer(rotated)
    sealer.open(old_token, binding())
    new_token = sealer.seal(binding())
    reject(RequestStateSealer(old_ring), new_token, binding(), "unknown key")
    RequestStateSealer(KeyRing([new])).open(new_token, binding())
    dropped = rotated.rotated(key())
    reject(RequestStateSealer(dropped.rotated(key())), old_token, binding(), "unknown key")


def test_keys_from_the_environment_are_shared_by_replicas() -> None:
    k1, k2 = generate_key(), base64.urlsafe_b64encode(key()).decode().rstrip("=")
    env = {KEYS_ENV: f" {k1} , {k2} "}
    a = RequestStateSealer(KeyRing.from_env(env))
    b = RequestStateSealer(KeyRing.from_env(env))
    assert not a.ephemeral and len(a.keys) == 2
    b.open(a.seal(binding()), binding())
    only_second = RequestStateSealer(KeyRing.from_base64(k2))
    only_second.open(
        RequestStateSealer(KeyRing.from_base64(f"{k2},{k1}")).seal(binding()), binding()
    )


def test_ephemeral_key_when_nothing_is_configured() -> None:
    a = RequestStateSealer(KeyRing.from_env({}))
    b = RequestStateSealer(KeyRing.from_env({KEYS_ENV: "  "}))
    assert a.ephemeral and b.ephemeral
    reject(b, a.seal(binding()), binding(), "unknown key")


def test_bad_keys_are_refused() -> None:
    with pytest.raises(ValueError):
        KeyRing([])
    with pytest.raises(ValueError):
        KeyRing([b"short"])
    with pytest.raises(ValueError):
        KeyRing.from_base64("not base64!!")
    k = key()
    with pytest.raises(ValueError):
        KeyRing([k, k])


def test_size_is_bounded() -> None:
    sealer = RequestStateSealer(KeyRing([key()]), max_bytes=2048)
    with pytest.raises(ValueError):
        sealer.seal(binding(), data={"blob": "x" * 4096})
    reject(sealer, "A" * 10_000, binding(), "too large")
    with pytest.raises(ValueError):
        sealer.seal(binding(), data={"x": object()})
