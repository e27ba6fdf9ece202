"""DPoP-bound access tokens at the resource server (RFC 9449): the proof checks, the
``DPoP`` challenges, server nonces, and an mcpkit Client with DPoP talking to an mcpkit
Server over HTTP whose tokens are JWTs (keys from a JWKS) or introspected."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import OctKey
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcpkit import Client, Context, Server
from mcpkit.auth import (
    AccessToken,
    DPoPVerifier,
    IntrospectionVerifier,
    JWTVerifier,
    MemoryReplayCache,
    OAuthClientAuth,
    ResourceServer,
    headless_authorization_handler,
)
from mcpkit.auth.discovery import Challenge, parse_www_authenticate
from mcpkit.auth.dpop import DPoPKey
from mcpkit.auth.dpop_verifier import access_token_hash, normalize_htu
from mcpkit.auth.server import get_access_token
from mcpkit.transports.http import running
from tests.auth.mock_as import MockAS
from tests.auth.token_issuer import ISSUER, RESOURCE, TokenIssuer, b64, es256_key

URL = RESOURCE


class Env:
    """A resource server guarding a tiny ASGI app (no MCP traffic), reached in process."""

    def __init__(self, **dpop_options: Any) -> None:
        self.issuer = TokenIssuer()
        self.rs = ResourceServer(
            JWTVerifier(issuer=ISSUER, keys=self.issuer.jwks()),
            resource=URL,
            authorization_servers=[ISSUER],
            required_scopes=["mcp:read"],
            dpop=DPoPVerifier(**dpop_options),
        )
        self.seen: list[AccessToken | None] = []
        self.key = DPoPKey()

    async def _app(self, scope: Any, receive: Any, send: Any) -> None:
        self.seen.append(get_access_token())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.rs.handle(scope, receive, send, self._app)

    def bound(self, key: DPoPKey | None = None, **claims: Any) -> str:
        return self.issuer.mint(cnf={"jkt": (key or self.key).thumbprint}, **claims)

    async def post(self, headers: dict[str, str], url: str = URL) -> httpx.Response:
        transport = httpx.ASGITransport(app=self)
        async with httpx.AsyncClient(transport=transport) as http:
            return await http.post(url, content=b"{}", headers=headers)

    def dpop_headers(self, token: str, proof: str | None = None) -> dict[str, str]:
        proof = proof or self.key.proof("POST", URL, access_token=token)
        return {"authorization": f"DPoP {token}", "dpop": proof}


def challenges(r: httpx.Response) -> dict[str, Challenge]:
    return {c.scheme: c for c in parse_www_authenticate(r.headers.get_list("www-authenticate"))}


def craft(key: Any, claims: dict[str, Any], *, alg: str = "ES256", **header: Any) -> str:
    """A proof with hand-picked header and claims, signed by ``key`` (joserfc)."""
    head = {"typ": "dpop+jwt", "alg": alg, **header}
    return jwt.encode(head, claims, key, algorithms=[alg])


def claims_for(token: str, **overrides: Any) -> dict[str, Any]:
    claims = {
        "jti": f"j{time.monotonic_ns()}",
        "htm": "POST",
        "htu": URL,
        "iat": int(time.time()),
        "ath": access_token_hash(token),
        **overrides,
    }
    return {k: v for k, v in claims.items() if v is not None}


async def test_valid_proof_and_normalised_htu() -> None:
    env = Env()
    token = env.bound()
    r = await env.post(env.dpop_headers(token))
    assert r.status_code == 200, r.text
    [seen] = env.seen
    assert seen is not None and seen.jkt == env.key.thumbprint and seen.subject == "user-1"
    # htu is compared without query and fragment, normalised; the request may carry a query
    odd = "HTTPS://RS.Example.COM:443/%6dcp?x=1#frag"
    r = await env.post(env.dpop_headers(token, env.key.proof("POST", odd, access_token=token)))
    assert r.status_code == 200, r.text
    r = await env.post(env.dpop_headers(token), url=URL + "?page=2")
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"htm": "GET"}, "another HTTP method"),
        ({"htu": "https://rs.example.com/other"}, "another URL"),
        ({"htu": "https://evil.example.com/mcp"}, "another URL"),
        ({"ath": access_token_hash("another token")}, "ath"),
        ({"ath": None}, "ath"),
        ({"iat": int(time.time()) - 3600}, "too old"),
        ({"iat": int(time.time()) + 3600}, "too old or from the future"),
        ({"jti": None}, "jti"),
    ],
)
async def test_proof_claims_must_match_the_request(change: dict[str, Any], reason: str) -> None:
    env = Env()
    token = env.bound()
    key = env.key._key
    proof = craft(key, claims_for(token, **change), jwk=env.key.public_jwk)
    r = await env.post(env.dpop_headers(token, proof))
    assert r.status_code == 401
    found = challenges(r)
    assert set(found) == {"dpop"}  # a DPoP request hears only the DPoP challenge
    assert found["dpop"].error == "invalid_dpop_proof"
    assert reason in found["dpop"].params["error_description"]
    assert found["dpop"].params["algs"].startswith("ES256")
    assert found["dpop"].resource_metadata == env.rs.metadata_url
    assert env.seen == []


async def test_replayed_proof_is_refused() -> None:
    env = Env()
    token = env.bound()
    headers = env.dpop_headers(token)
    assert (await env.post(headers)).status_code == 200
    r = await env.post(headers)
    assert r.status_code == 401
    assert "already used" in challenges(r)["dpop"].params["error_description"]
    assert (await env.post(env.dpop_headers(token))).status_code == 200  # a fresh one is fine


async def test_proof_header_and_key_rules() -> None:
    env = Env()
    token = env.bound()
    key = env.key._key
    jwk = env.key.public_jwk
    cases = [
        craft(key, claims_for(token), jwk=jwk, typ="JWT"),
        craft(key, claims_for(token)),  # no jwk
        craft(key, claims_for(token), jwk=dict(key.as_dict(private=True))),  # private key
        craft(key, claims_for(token), jwk=DPoPKey().public_jwk),  # signed by another key
        craft(OctKey.import_key(b"k" * 32), claims_for(token), alg="HS256", jwk=jwk),
        f"{b64(json.dumps({'typ': 'dpop+jwt', 'alg': 'none', 'jwk': jwk}).encode())}."
        f"{b64(json.dumps(claims_for(token)).encode())}.",
        "not-a-jwt",
    ]
    for proof in cases:
        r = await env.post(env.dpop_headers(token, proof))
        assert r.status_code == 401, proof
        assert challenges(r)["dpop"].error == "invalid_dpop_proof"
    # a token that is not ASCII (headers are latin-1): refused, not a server error
    latin = [
        (b"authorization", "DPoP t\u00e9".encode("latin-1")),
        (b"dpop", env.key.proof("POST", URL, access_token="t").encode()),
    ]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=env)) as http:
        r = await http.post(URL, content=b"{}", headers=latin)
    # (the token is checked before the proof: the token is what is refused)
    assert r.status_code == 401 and challenges(r)["dpop"].error == "invalid_token"
    # no proof, or two
    r = await env.post({"authorization": f"DPoP {token}"})
    assert challenges(r)["dpop"].error == "invalid_dpop_proof"
    two = [("authorization", f"DPoP {token}")]
    two += [("dpop", env.key.proof("POST", URL, access_token=token)) for _ in range(2)]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=env)) as http:
        r = await http.post(URL, content=b"{}", headers=two)
    assert r.status_code == 401 and challenges(r)["dpop"].error == "invalid_dpop_proof"
    assert env.seen == []
    with pytest.raises(ValueError):
        DPoPVerifier(algorithms=["HS256"])
    with pytest.raises(ValueError):
        DPoPVerifier(algorithms=["none"])


async def test_token_binding() -> None:
    env = Env()
    # bound to another key than the proof's
    r = await env.post(env.dpop_headers(env.bound(DPoPKey())))
    assert r.status_code == 401
    assert challenges(r)["dpop"].error == "invalid_token"
    assert "another key" in challenges(r)["dpop"].params["error_description"]
    # an unbound token with the DPoP scheme
    plain = env.issuer.mint()
    r = await env.post(env.dpop_headers(plain))
    assert r.status_code == 401 and "not DPoP-bound" in r.text
    # a DPoP-bound token used as a bearer token
    r = await env.post({"authorization": f"Bearer {env.bound()}"})
    assert r.status_code == 401
    found = challenges(r)
    assert found["bearer"].error == "invalid_token"
    assert "DPoP scheme" in found["bearer"].params["error_description"]
    assert "dpop" in found and found["dpop"].error is None
    # plain bearer tokens still work (dpop not required)
    assert (await env.post({"authorization": f"Bearer {plain}"})).status_code == 200
    # a bound token with an invalid signature is refused before its binding counts
    head, body, _sig = env.bound().split(".")
    r = await env.post(env.dpop_headers(f"{head}.{body}.AAAA"))
    assert r.status_code == 401 and challenges(r)["dpop"].error == "invalid_token"
    assert len(env.seen) == 1


async def test_descriptions_quoting_the_request_are_sanitised() -> None:
    from mcpkit.auth import InvalidTokenError

    def verify(token: str) -> AccessToken:  # a verifier quoting what it was sent
        raise InvalidTokenError("Unknown token " + token)

    env = Env()
    env.rs._verify = env.rs._adapt(verify)
    evil = 'x"\\\tSet-Cookie: a=b \u00e9' + "y" * 500
    r = await env.post({"authorization": f"Bearer {evil}".encode()})  # type: ignore[dict-item]
    assert r.status_code == 401
    [bearer, _dpop] = r.headers.get_list("www-authenticate")
    assert bearer.isascii() and "\t" not in bearer
    described = challenges(r)["bearer"].params["error_description"]
    assert described.startswith("Unknown token x???Set-Cookie: a=b ??yy") and len(described) == 200


async def test_missing_scope_with_dpop() -> None:
    env = Env()
    token = env.bound(scope="other")
    r = await env.post(env.dpop_headers(token))
    assert r.status_code == 403
    found = challenges(r)
    assert set(found) == {"dpop"}
    assert found["dpop"].error == "insufficient_scope" and found["dpop"].scope == "mcp:read other"


async def test_dpop_required_and_metadata() -> None:
    env = Env(required=True)
    r = await env.post({"authorization": f"Bearer {env.issuer.mint()}"})
    assert r.status_code == 401
    found = challenges(r)
    assert set(found) == {"dpop"} and found["dpop"].error == "invalid_token"
    assert (await env.post(env.dpop_headers(env.bound()))).status_code == 200
    r = await env.post({})
    assert set(challenges(r)) == {"dpop"} and challenges(r)["dpop"].scope == "mcp:read"
    assert env.rs.metadata["dpop_bound_access_tokens_required"] is True
    assert "ES256" in env.rs.metadata["dpop_signing_alg_values_supported"]
    # without required: both challenges when unauthenticated
    open_env = Env()
    r = await open_env.post({})
    assert set(challenges(r)) == {"bearer", "dpop"}
    assert "dpop_bound_access_tokens_required" not in open_env.rs.metadata


async def test_server_nonces() -> None:
    env = Env(nonce=True, nonce_lifetime=300)
    token = env.bound()
    r = await env.post(env.dpop_headers(token))
    assert r.status_code == 401
    assert challenges(r)["dpop"].error == "use_dpop_nonce"
    nonce = r.headers["dpop-nonce"]
    proof = env.key.proof("POST", URL, access_token=token, nonce=nonce)
    assert (await env.post(env.dpop_headers(token, proof))).status_code == 200
    wrong = env.key.proof("POST", URL, access_token=token, nonce=nonce[:-2] + "xx")
    assert (await env.post(env.dpop_headers(token, wrong))).status_code == 401
    other = DPoPVerifier(nonce=True)  # another secret: its nonces are not ours
    assert not env.rs.dpop.nonce_ok(other.current_nonce())  # type: ignore[union-attr]
    shared = DPoPVerifier(nonce=True, nonce_secret=b"s" * 32)
    assert DPoPVerifier(nonce=True, nonce_secret=b"s" * 32).nonce_ok(shared.current_nonce())


async def test_a_shared_replay_cache_is_used() -> None:
    shared = MemoryReplayCache()
    one, two = Env(replay_cache=shared), Env(replay_cache=shared)
    assert one.rs.dpop is not None and one.rs.dpop.replay_cache is shared
    two.key = one.key
    token = one.bound()
    headers = one.dpop_headers(token)
    assert (await one.post(headers)).status_code == 200
    assert (await two.post(headers)).status_code == 401  # seen by the other instance
    assert len(shared) == 1


async def test_replay_cache_keeps_each_entry_for_its_own_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Entries leave when their own time is up, never to make room: a full cache refuses
    new entries (the verifier answers 503) rather than forgetting a proof id early."""
    import mcpkit.auth.dpop_verifier as module
    from mcpkit.auth.verification import VerifierUnavailableError

    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    cache = MemoryReplayCache(max_entries=3)
    assert await cache.add("a", 30) and not await cache.add("a", 30)
    assert await cache.add("b", 10) and await cache.add("c", 20)
    with pytest.raises(VerifierUnavailableError):
        await cache.add("d", 10)
    assert not await cache.add("a", 30)  # still remembered: nothing was evicted
    now[0] += 11  # b's time is up, not a's (inserted first, kept longest)
    assert await cache.add("d", 10) and not await cache.add("a", 30)
    now[0] += 100
    assert await cache.add("e", 10) and len(cache) == 1  # the rest expired


async def test_replay_cache_flush_attack_fails() -> None:
    """An attacker with a token of its own sends many fresh proofs to push a victim's used
    proof out of the cache, then replays it: it stays refused."""
    env = Env(replay_cache=MemoryReplayCache(max_entries=5))
    victim = env.dpop_headers(env.bound())
    assert (await env.post(victim)).status_code == 200
    attacker = DPoPKey()
    token = env.bound(attacker)
    for _ in range(10):
        proof = attacker.proof("POST", URL, access_token=token)
        r = await env.post({"authorization": f"DPoP {token}", "dpop": proof})
        assert r.status_code in (200, 503)
    r = await env.post(victim)
    assert r.status_code != 200
    assert len(env.seen) == 5  # the victim's request and the proofs that fit


async def test_refused_tokens_consume_no_proof_ids() -> None:
    """The token is checked before the proof id is recorded: proofs that come with a token
    that is invalid, or bound to another key, leave the replay cache untouched (an
    unauthenticated flood cannot fill it)."""
    cache = MemoryReplayCache()
    env = Env(replay_cache=cache)
    # signed by a key the issuer never published, under a published key's kid
    forged = env.issuer.mint(
        es256_key("forger"), header={"kid": "ec-1"}, cnf={"jkt": env.key.thumbprint}
    )
    for token in (forged, "not-a-token", env.bound(DPoPKey())):  # the last: another key
        r = await env.post(env.dpop_headers(token))
        assert r.status_code == 401
        assert challenges(r)["dpop"].params["error"] == "invalid_token"
    assert len(cache) == 0 and env.seen == []
    assert (await env.post(env.dpop_headers(env.bound()))).status_code == 200
    assert len(cache) == 1


def test_request_url_of_an_asgi_scope() -> None:
    rs = Env().rs
    scope: dict[str, Any] = {"path": "/mcp", "raw_path": b"/mcp?x=1", "root_path": ""}
    assert rs.request_url(scope) == URL
    # behind a proxy that strips /api (uvicorn --root-path /api): the public path counts
    proxied = ResourceServer(
        rs._verify, resource="https://rs.example.com/api/mcp", authorization_servers=[ISSUER]
    )
    scope = {"path": "/api/mcp", "raw_path": b"/mcp", "root_path": "/api"}
    assert proxied.request_url(scope) == "https://rs.example.com/api/mcp"
    assert proxied.request_url({"path": "/api/m cp", "root_path": "/api"}).endswith("/api/m%20cp")


def test_normalize_htu() -> None:
    assert normalize_htu("HTTPS://Example.COM:443/a/./b/../c?q#f") == "https://example.com/a/c"
    assert normalize_htu("http://example.com") == "http://example.com/"
    assert (
        normalize_htu("http://example.com:8080/%7euser/%2f") == "http://example.com:8080/~user/%2F"
    )
    assert normalize_htu("http://[::1]:80/mcp") == "http://[::1]/mcp"
    assert normalize_htu("https://example.com:8443/mcp") != normalize_htu("https://example.com/mcp")


# -- end to end: mcpkit's Client with DPoP, an mcpkit Server with the verifiers, over HTTP ------


class JWTAS(MockAS):
    """The mock authorization server of the OAuth tests, issuing its tokens as JWTs (ES256)
    with ``cnf.jkt`` when DPoP-bound, its JWKS at ``/jwks`` and introspection at
    ``/introspect``."""

    def app(self) -> Any:
        app = super().app()
        app.routes.append(Route(self.prefix + "/jwks", self.jwks))
        app.routes.append(Route(self.prefix + "/introspect", self.introspect, methods=["POST"]))
        return app

    async def jwks(self, request: Request) -> Response:
        return JSONResponse({"keys": [es256_key("ec-1").public_jwk]})

    async def token(self, request: Request) -> Response:
        response = await super().token(request)
        doc = json.loads(bytes(response.body))
        opaque = doc.get("access_token")
        if response.status_code != 200 or opaque not in self.grants:
            return response
        g = self.grants.pop(opaque)
        now = int(time.time())
        claims: dict[str, Any] = {"iss": self.issuer, "sub": "user-1", "client_id": g.client_id,
                                  "aud": g.resource, "scope": g.scope or "", "iat": now,
                                  "exp": int(g.expires_at), "jti": opaque}  # fmt: skip
        if opaque in self.dpop_keys:
            claims["cnf"] = {"jkt": self.dpop_keys.pop(opaque)}
        key = es256_key("ec-1")
        token = jwt.encode({"alg": "ES256", "typ": "at+jwt", "kid": key.kid}, claims, key.key)
        self.grants[token] = g
        self.issued = {**getattr(self, "issued", {}), token: claims}
        doc["access_token"] = token
        return JSONResponse(doc)

    async def introspect(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        claims = getattr(self, "issued", {}).get(form.get("token"))
        return JSONResponse({"active": True, **claims} if claims else {"active": False})


def make_server() -> Server:
    app = Server("dpop-protected")

    @app.tool()
    def whoami(ctx: Context) -> str:
        assert ctx.auth is not None
        return f"{ctx.auth.subject} {ctx.auth.jkt}"

    return app


@pytest.mark.parametrize("kind", ["jwt", "introspection", "jwt+nonce"])
async def test_mcpkit_client_with_dpop_end_to_end(kind: str) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    mock = JWTAS(dpop=True)
    async with running(mock.app()) as as_base:
        mock.base = as_base
        verifier: Any
        if kind == "introspection":
            verifier = IntrospectionVerifier(
                as_base + "/introspect", auth_method="none", issuer=mock.issuer
            )
        else:
            verifier = JWTVerifier(issuer=mock.issuer, jwks_url=as_base + "/jwks", audience=url)
        rs = ResourceServer(
            verifier,
            resource=url,
            authorization_servers=[mock.issuer],
            dpop=DPoPVerifier(nonce=kind.endswith("nonce")),
        )
        server = make_server()
        server.auth = rs
        asgi = server.http_app()
        async with running(asgi, port=port):
            auth = OAuthClientAuth(url, authorization_handler=headless_authorization_handler())
            async with Client(url, auth=auth) as client:
                for _ in range(2):
                    result = await client.call_tool("whoami")
                    text = result.content[0].text  # type: ignore[union-attr]
                    assert auth._tokens.dpop_key is not None
                    assert text == f"user-1 {auth._tokens.dpop_key.thumbprint}"
            assert auth.token is not None and auth.token.token_type == "DPoP"
            [token_request] = mock.events("token")
            assert "dpop" in token_request
            if rs.dpop is not None and rs.dpop.use_nonce:
                assert auth._rs_nonce is not None and rs.dpop.nonce_ok(auth._rs_nonce)
            else:
                assert auth._rs_nonce is None
        await asgi.aclose()
