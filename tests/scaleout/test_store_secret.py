"""The deployment secret of a Redis store (``MCPKIT_STORE_SECRET``): what Redis holds gives
nobody a usable sealing key, and two deployments on one Redis with default settings share
neither sessions nor keys."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from mcpkit import Context, Server
from mcpkit.errors import McpError
from mcpkit.redis import RedisBackend, StoreSecretMissing
from mcpkit.redis.keys import rotate_shared_keys
from mcpkit.server.request_state import KeyRing, RequestBinding, RequestStateSealer
from mcpkit.transports.http import running
from tests.modern.peer import ModernPeer
from tests.scaleout.cluster import Redis

SECRET_A = "a-deployment-secret-0123456789abcdef"
SECRET_B = "another-deployment-secret-9876543210"
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Redis]:
    server = Redis(tmp_path_factory.mktemp("store-secret"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def store(redis_server: Redis, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An empty Redis and no sealing keys in the environment."""
    monkeypatch.delenv("MCPKIT_REQUEST_STATE_KEYS", raising=False)
    monkeypatch.delenv("MCPKIT_STORE_SECRET", raising=False)
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    try:
        yield redis_server.url
    finally:
        client.close()


def dump(url: str) -> dict[bytes, bytes]:
    """Every string value in Redis, by key: what an attacker reading Redis sees."""
    client = redis.Redis.from_url(url)
    try:
        out = {}
        for key in client.scan_iter(count=1000):
            if client.type(key) == b"string":
                out[key] = client.get(key)
        return out
    finally:
        client.close()


def rings_in(value: bytes) -> list[KeyRing]:
    """Every key ring an attacker could read out of ``value`` (the value itself, or any
    part of it after a separator, as base64)."""
    text = value.decode("ascii", "replace")
    rings = []
    for candidate in {text, *text.split(":"), *text.split(",")}:
        with contextlib.suppress(ValueError):
            rings.append(KeyRing.from_base64(candidate))
        with contextlib.suppress(ValueError):  # a raw 32-byte key
            raw = base64.urlsafe_b64decode(candidate + "=" * (-len(candidate) % 4))
            rings.append(KeyRing([raw[i : i + 32] for i in range(0, len(raw) - 31, 32)][:1]))
    return rings


def make(name: str, url: str) -> tuple[Server[Any], list[str]]:
    app: Server[Any] = Server(name, store=url)
    paid: list[str] = []

    @app.tool()
    async def pay(ctx: Context) -> str:
        """Pays once the user confirms."""
        answer = await ctx.elicit("Pay 100 EUR?", CONFIRM, key="confirm")
        if answer.accepted and answer.data and answer.data.get("ok"):
            paid.append("paid")
            return "paid"
        return "not paid"

    @app.tool()
    def whoami() -> str:
        """This deployment's name."""
        return name

    return app, paid


async def test_a_redis_read_alone_forges_no_request_state(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPKIT_STORE_SECRET", SECRET_A)
    app, paid = make("shop", store)
    assert app.store_backend is not None
    contents = dump(store)
    assert any(k.endswith(b":request-state-keys") for k in contents), contents.keys()
    binding = RequestBinding.of("tools/call", {"name": "pay", "arguments": {}}, None)
    genuine = app.request_state.seal(binding)
    assert app.request_state.open(genuine, binding).binding == binding
    forged: list[str] = []
    for value in contents.values():
        for ring in rings_in(value):
            forged.append(
                RequestStateSealer(ring).seal(
                    binding, answers={"confirm": {"action": "accept", "content": {"ok": True}}}
                )
            )
    assert forged  # what Redis holds was tried
    async with app.running(), ModernPeer(app) as peer:
        for token in forged:
            with pytest.raises(McpError, match="Invalid requestState"):
                app.request_state.open(token, binding)
            answer = await peer.request(
                "tools/call", {"name": "pay", "arguments": {}, "requestState": token}
            )
            assert answer["error"]["code"] == -32602, answer
        assert paid == []
    await app.store_backend.aclose()


async def test_two_deployments_on_one_redis_share_nothing(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Same server name, default settings, each deployment with its own secret.
    monkeypatch.setenv("MCPKIT_STORE_SECRET", SECRET_A)
    a, _ = make("notes", store)
    monkeypatch.setenv("MCPKIT_STORE_SECRET", SECRET_B)
    b, _ = make("notes", store)
    assert a.store_backend is not None and b.store_backend is not None
    async with (
        running(a.http_app("/mcp")) as base_a,
        running(b.http_app("/mcp")) as base_b,
        httpx.AsyncClient(timeout=20) as http,
    ):
        first = await http.post(f"{base_a}/mcp", json=INIT, headers=HEADERS)
        sid = first.headers["mcp-session-id"]
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
        call["params"] = {"name": "whoami", "arguments": {}}
        await http.post(
            f"{base_a}/mcp",
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=session,
        )
        mine = await http.post(f"{base_a}/mcp", json=call, headers=session)
        assert mine.status_code == 200 and '"text":"notes"' in mine.text
        other = await http.post(f"{base_b}/mcp", json=call, headers=session)
        assert other.status_code == 404, other.text  # A's session does not exist for B
        stream = await http.get(f"{base_b}/mcp", headers={**session, "accept": "text/event-stream"})
        assert stream.status_code == 404
        gone = await http.delete(f"{base_b}/mcp", headers=session)
        assert gone.status_code == 404
        still = await http.post(f"{base_a}/mcp", json={**call, "id": 3}, headers=session)
        assert still.status_code == 200 and '"text":"notes"' in still.text
    assert a.store_backend.keys.prefix != b.store_backend.keys.prefix
    binding = RequestBinding.of("tools/call", {"name": "pay", "arguments": {}}, None)
    with pytest.raises(McpError, match="Invalid requestState"):
        b.request_state.open(a.request_state.seal(binding), binding)
    for app in (a, b):
        assert app.store_backend is not None
        await app.store_backend.aclose()


def test_other_names_with_one_secret_do_not_collide(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPKIT_STORE_SECRET", SECRET_A)
    one, _ = make("billing", store)
    two, _ = make("search", store)
    again, _ = make("billing", store)  # a second replica of billing
    assert one.store_backend is not None and two.store_backend is not None
    assert again.store_backend is not None
    assert one.store_backend.keys.prefix.startswith("mcpkit:billing:")
    assert one.store_backend.keys.prefix != two.store_backend.keys.prefix
    assert again.store_backend.keys.prefix == one.store_backend.keys.prefix
    binding = RequestBinding.of("tools/call", {"name": "pay", "arguments": {}}, None)
    token = one.request_state.seal(binding)
    assert again.request_state.open(token, binding).binding == binding  # replicas share
    with pytest.raises(McpError, match="Invalid requestState"):
        two.request_state.open(token, binding)


def test_no_secret_refuses_to_start_with_a_clear_message(store: str) -> None:
    with pytest.raises(StoreSecretMissing, match="MCPKIT_STORE_SECRET"):
        Server("notes", store=store)
    with pytest.raises(StoreSecretMissing, match="MCPKIT_STORE_SECRET"):
        Server("notes", store=RedisBackend(store, prefix="notes"))
    # Explicit prefix and keys: nothing to derive from a secret, nothing key-like stored.
    keys = base64.b64encode(b"k" * 32).decode()
    app: Server[Any] = Server(
        "notes", store=RedisBackend(store, prefix="notes"), request_state_keys=keys
    )
    assert app.store_backend is not None and app.store_backend.keys.prefix == "notes"
    assert not any(k.endswith(b"request-state-keys") for k in dump(store))
    with pytest.raises(ValueError, match="at least 16"):
        RedisBackend(store, secret="short")


def test_a_replica_with_another_secret_refuses_to_start(
    store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    Server("notes", store=RedisBackend(store, prefix="shared", secret=SECRET_A))
    with pytest.raises(StoreSecretMissing, match="do not open"):
        Server("notes", store=RedisBackend(store, prefix="shared", secret=SECRET_B))
    # A ring an older version kept in clear is not trusted either.
    client = redis.Redis.from_url(store)
    try:
        client.set("clear:request-state-keys", base64.b64encode(b"c" * 32))
    finally:
        client.close()
    with pytest.raises(StoreSecretMissing, match="not wrapped"):
        Server("notes", store=RedisBackend(store, prefix="clear", secret=SECRET_A))


def test_rotation_keeps_opening_the_old_key(store: str, tmp_path: Path) -> None:
    backend = RedisBackend(store, prefix="rot", secret=SECRET_A)
    before = backend.key_ring()
    rotated = rotate_shared_keys(backend)
    after = RedisBackend(store, prefix="rot", secret=SECRET_A).key_ring()
    assert after._raw == rotated._raw and len(after) == 2 and after._raw[1] == before._raw[0]
    binding = RequestBinding.of("tools/call", {"name": "pay", "arguments": {}}, None)
    old = RequestStateSealer(before).seal(binding)
    assert RequestStateSealer(after).open(old, binding).binding == binding
