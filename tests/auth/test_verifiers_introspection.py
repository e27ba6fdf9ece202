"""IntrospectionVerifier (RFC 7662) against the mock authorization server: client
authentication, active and inactive tokens, the checks of the response, and the cache
(keyed by the token's hash, bounded, never past ``exp`` or the maximum TTL)."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

import pytest

import mcpkit.auth.introspection
from mcpkit.auth import IntrospectionVerifier, InvalidTokenError, VerifierUnavailableError
from tests.auth.token_issuer import ISSUER, RESOURCE, TokenIssuer

ENDPOINT = ISSUER + "/introspect"


class Clock:
    """Stands in for the time module of mcpkit.auth.introspection."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(mcpkit.auth.introspection, "time", c)
    return c


def active(issuer: TokenIssuer, token: str, **fields: Any) -> None:
    doc = {
        "active": True,
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": "user-1",
        "client_id": "client-1",
        "scope": "mcp:read",
        "exp": int(time.time()) + 300,
        **fields,
    }
    issuer.introspection[token] = {k: v for k, v in doc.items() if v is not None}


def verifier(mock: TokenIssuer, **options: Any) -> IntrospectionVerifier:
    options.setdefault("client_id", "rs")
    options.setdefault("client_secret", "rs-secret")
    return IntrospectionVerifier(ENDPOINT, http_client=mock.client(), **options)


async def refused(v: IntrospectionVerifier, token: str) -> str:
    with pytest.raises(InvalidTokenError) as info:
        await v.verify_token(token)
    return str(info.value)


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_active_token_and_client_authentication(method: str) -> None:
    issuer = TokenIssuer(clients={"rs:1": "s&cret"})
    active(issuer, "t1", cnf={"jkt": "thumb"})
    v = verifier(
        issuer, client_id="rs:1", client_secret="s&cret", auth_method=method, issuer=ISSUER
    )
    at = await v.verify_token("t1")
    assert at.subject == "user-1" and at.client_id == "client-1"
    assert at.scopes == {"mcp:read"} and at.resource == RESOURCE and at.jkt == "thumb"
    [call] = issuer.introspection_calls
    assert call["method"] == method
    assert call["form"]["token"] == "t1"
    assert call["form"]["token_type_hint"] == "access_token"
    if method == "client_secret_basic":
        assert "client_secret" not in call["form"] and call["authorization"].startswith("Basic ")
    else:
        assert call["form"]["client_secret"] == "s&cret" and call["authorization"] is None


async def test_inactive_and_refused_answers() -> None:
    issuer = TokenIssuer()
    v = verifier(issuer, issuer=ISSUER, audience=RESOURCE, negative_cache_ttl=0)
    assert "not active" in await refused(v, "unknown")
    active(issuer, "off", active=False)
    assert "not active" in await refused(v, "off")
    active(issuer, "str", active="true")  # only the JSON true is active
    assert "not active" in await refused(v, "str")
    active(issuer, "old", exp=int(time.time()) - 5)
    assert "expired" in await refused(v, "old")
    active(issuer, "iss", iss="https://evil.example.com")
    assert "issuer" in await refused(v, "iss")
    active(issuer, "aud", aud=["https://other.example.com/mcp"])
    assert "audience" in await refused(v, "aud")
    active(issuer, "mtls", cnf={"x5t#S256": "x"})
    assert "confirmation" in await refused(v, "mtls")
    active(issuer, "noaud", aud=None)  # no aud: left to the resource server
    assert (await v.verify_token("noaud")).resource is None


async def test_endpoint_failures_are_not_cached() -> None:
    issuer = TokenIssuer()
    active(issuer, "t1")
    wrong_secret = verifier(issuer, client_secret="nope")
    with pytest.raises(VerifierUnavailableError, match="HTTP 401"):
        await wrong_secret.verify_token("t1")
    v = verifier(issuer)
    issuer.down = True
    with pytest.raises(VerifierUnavailableError, match="HTTP 503"):
        await v.verify_token("t1")
    issuer.down = False
    assert (await v.verify_token("t1")).subject == "user-1"
    assert v.calls == 2


async def test_cache_respects_exp_and_the_maximum_ttl(clock: Clock) -> None:
    issuer = TokenIssuer()
    now = clock.now
    active(issuer, "long", exp=int(now) + 3600)
    active(issuer, "short", exp=int(now) + 10)
    v = verifier(issuer, cache_ttl=60)
    for _ in range(3):
        await v.verify_token("long")
        await v.verify_token("short")
    assert v.calls == 2  # cached
    # the cache is keyed by the token's hash, never the token
    assert hashlib.sha256(b"long").digest() in v._cache
    assert all(b"long" not in k for k in v._cache)
    clock.now = now + 11  # past short's exp: not served from the cache, and expired
    assert "expired" in await refused(v, "short")
    await v.verify_token("long")
    assert v.calls == 3
    clock.now = now + 61  # past the maximum TTL: asked again
    await v.verify_token("long")
    assert v.calls == 4
    v.clear_cache()
    await v.verify_token("long")
    assert v.calls == 5


async def test_inactive_answers_are_cached_briefly(clock: Clock) -> None:
    issuer = TokenIssuer()
    v = verifier(issuer, negative_cache_ttl=5)
    for _ in range(10):
        await refused(v, "bogus")
    assert v.calls == 1
    clock.now += 6
    await refused(v, "bogus")
    assert v.calls == 2


async def test_cache_is_bounded() -> None:
    issuer = TokenIssuer()
    for t in ("a", "b", "c"):
        active(issuer, t)
    v = verifier(issuer, max_cache_size=2)
    for t in ("a", "b", "c"):
        await v.verify_token(t)
    assert len(v._cache) == 2
    await v.verify_token("c")
    await v.verify_token("b")
    assert v.calls == 3
    await v.verify_token("a")  # evicted first
    assert v.calls == 4


async def test_concurrent_checks_share_one_call() -> None:
    issuer = TokenIssuer()
    active(issuer, "t1")
    v = verifier(issuer)
    results = await asyncio.gather(*(v.verify_token("t1") for _ in range(20)))
    assert {r.subject for r in results} == {"user-1"} and v.calls == 1


async def test_endpoint_discovered_from_the_issuer_metadata() -> None:
    issuer = TokenIssuer()
    active(issuer, "t1")
    v = IntrospectionVerifier(
        issuer=ISSUER, client_id="rs", client_secret="rs-secret", http_client=issuer.client()
    )
    await v.verify_token("t1")
    assert v.endpoint == ENDPOINT and issuer.metadata_fetches == 1
    liar = TokenIssuer(metadata_issuer="https://evil.example.com")
    v = IntrospectionVerifier(
        issuer=ISSUER, client_id="rs", client_secret="rs-secret", http_client=liar.client()
    )
    with pytest.raises(VerifierUnavailableError, match="discovery"):
        await v.verify_token("t1")
    assert liar.introspection_calls == []


async def test_own_http_client_is_reused_and_closed() -> None:
    v = IntrospectionVerifier(ENDPOINT, client_id="rs", client_secret="rs-secret")
    first = v._client()
    assert v._client() is first
    await v.aclose()
    assert first.is_closed and v._client() is not first
    await v.aclose()


def test_configuration_errors() -> None:
    with pytest.raises(ValueError, match="HTTPS"):
        IntrospectionVerifier("http://as.example.com/introspect", client_id="a", client_secret="b")
    with pytest.raises(ValueError, match="client_secret"):
        IntrospectionVerifier(ENDPOINT, client_id="a")
    with pytest.raises(ValueError, match="unsupported"):
        IntrospectionVerifier(ENDPOINT, client_id="a", client_secret="b", auth_method="tls")
