"""JWTVerifier: JWT access tokens signed by a mock authorization server (real ES256 and
RS256 signatures), keys from its JWKS (over an httpx mock transport and over HTTP on
127.0.0.1) or given up front; and the resource server's answers over HTTP."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import OctKey

from mcpkit import Client, Context, McpError, Server
from mcpkit.auth import (
    InvalidTokenError,
    JWTVerifier,
    ResourceServer,
    StaticKeys,
    VerifierUnavailableError,
)
from mcpkit.auth.discovery import parse_www_authenticate
from mcpkit.transports.http import running
from tests.auth.token_issuer import (
    ISSUER,
    RESOURCE,
    TokenIssuer,
    es256_key,
    hmac_signed,
    rs256_key,
    unsigned,
)

JWKS_URL = ISSUER + "/jwks"


def verifier(issuer: TokenIssuer, **options: Any) -> JWTVerifier:
    options.setdefault("audience", RESOURCE)
    return JWTVerifier(issuer=ISSUER, jwks_url=JWKS_URL, http_client=issuer.client(), **options)


async def refused(v: JWTVerifier, token: str) -> str:
    with pytest.raises(InvalidTokenError) as info:
        await v.verify_token(token)
    assert info.value.error == "invalid_token"
    return str(info.value)


async def test_valid_es256_and_rs256_tokens() -> None:
    issuer = TokenIssuer()
    v = verifier(issuer)
    token = issuer.mint()
    at = await v.verify_token(token)
    assert at.token == token
    assert at.subject == "user-1" and at.client_id == "client-1"
    assert at.scopes == {"mcp:read", "mcp:write"}
    assert at.resource == RESOURCE and at.jkt is None
    assert at.expires_at == at.claims["exp"] + v.leeway
    # RS256, scopes as an scp list, client from azp, several audiences
    rsa = issuer.mint(
        rs256_key("rsa-1"),
        scope=None,
        scp=["a", "b"],
        client_id=None,
        azp="other",
        aud=["https://x.example", RESOURCE + "/"],
    )
    at = await v.verify_token(rsa)
    assert at.scopes == {"a", "b"} and at.client_id == "other"
    assert issuer.jwks_fetches == 1  # cached


async def test_expiry_and_not_before_with_leeway() -> None:
    issuer = TokenIssuer()
    v = verifier(issuer, leeway=30)
    now = int(time.time())
    await v.verify_token(issuer.mint(exp=now - 10))  # expired, within the leeway
    assert "expired" in await refused(v, issuer.mint(exp=now - 60))
    await v.verify_token(issuer.mint(nbf=now + 10))
    assert "not valid yet" in await refused(v, issuer.mint(nbf=now + 120))
    assert "future" in await refused(v, issuer.mint(iat=now + 120))
    assert "no expiry" in await refused(v, issuer.mint(exp=None))
    assert "not a number" in await refused(v, issuer.mint(exp="soon"))
    strict = verifier(issuer, leeway=0)
    await refused(strict, issuer.mint(exp=now - 1))


async def test_issuer_and_audience() -> None:
    issuer = TokenIssuer()
    v = verifier(issuer)
    assert "issuer" in await refused(v, issuer.mint(iss="https://evil.example.com"))
    assert "issuer" in await refused(v, issuer.mint(iss=None))
    assert "audience" in await refused(v, issuer.mint(aud="https://other.example.com/mcp"))
    assert "audience" in await refused(v, issuer.mint(aud=None))
    # no audience configured: the claim is the token's resource (the resource server checks)
    loose = verifier(issuer, audience=None)
    at = await loose.verify_token(issuer.mint(aud="https://other.example.com/mcp"))
    assert at.resource == "https://other.example.com/mcp"


class Clock:
    """Stands in for the time module of mcpkit.auth.jwks (monotonic time moved by hand)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


async def test_unknown_kid_refreshes_the_jwks_at_a_bounded_rate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mcpkit.auth.jwks

    clock = Clock()
    monkeypatch.setattr(mcpkit.auth.jwks, "time", clock)
    issuer = TokenIssuer(published=[es256_key("ec-1")])
    v = verifier(issuer, min_refresh_interval=30)
    await v.verify_token(issuer.mint())
    assert issuer.jwks_fetches == 1
    # the authorization server rotates to a new key: refused until the interval has passed
    issuer.published = [es256_key("ec-2"), es256_key("ec-1")]
    await refused(v, issuer.mint(es256_key("ec-2")))
    assert issuer.jwks_fetches == 1
    clock.now += 31
    at = await v.verify_token(issuer.mint(es256_key("ec-2")))
    assert at.subject == "user-1" and issuer.jwks_fetches == 2
    # a flood of made-up kids right after: no more fetches
    bogus = [issuer.mint(header={"kid": f"nope-{i}"}) for i in range(50)]
    results = await asyncio.gather(*(v.verify_token(t) for t in bogus), return_exceptions=True)
    assert all(isinstance(r, InvalidTokenError) for r in results)
    assert issuer.jwks_fetches == 2
    clock.now += 31  # then one more look, for the next one
    results = await asyncio.gather(*(v.verify_token(t) for t in bogus), return_exceptions=True)
    assert all(isinstance(r, InvalidTokenError) for r in results)
    assert issuer.jwks_fetches == 3
    # the cached set expires after cache_ttl (an hour): the keys at hand serve while it is
    # fetched again in the background
    clock.now += 3600
    issuer.published = [es256_key("ec-3")]
    await v.verify_token(issuer.mint(es256_key("ec-1")))
    source: Any = v.source
    assert source._background is not None
    await source._background
    assert issuer.jwks_fetches == 4 and source._background is None
    await refused(v, issuer.mint(es256_key("ec-1")))  # gone from the new set
    assert (await v.verify_token(issuer.mint(es256_key("ec-3")))).subject == "user-1"
    # a key the set no longer has is refused after the next refresh
    issuer.published = [es256_key("ec-2")]
    v2 = verifier(issuer, min_refresh_interval=0)
    await refused(v2, issuer.mint(es256_key("ec-1")))


async def test_concurrent_unknown_kids_share_one_refresh() -> None:
    issuer = TokenIssuer(published=[es256_key("ec-1")])
    v = verifier(issuer, min_refresh_interval=0)
    await v.verify_token(issuer.mint())
    issuer.published = [es256_key("ec-2")]
    tokens = [issuer.mint(es256_key("ec-2")) for _ in range(20)]
    results = await asyncio.gather(*(v.verify_token(t) for t in tokens))
    assert len(results) == 20
    assert issuer.jwks_fetches == 2


async def test_algorithm_allow_list() -> None:
    issuer = TokenIssuer()
    v = verifier(issuer)
    claims = issuer.claims()
    assert "'none'" in await refused(v, unsigned({"alg": "none", "kid": "ec-1"}, claims))
    # HS256 "signed" with the RSA public key's bytes (the classic confusion): refused
    confused = hmac_signed({"alg": "HS256", "kid": "rsa-1"}, claims, rs256_key("rsa-1").public_pem)
    assert "HS256" in await refused(v, confused)
    # an allowed alg whose key type does not match the kid's key: no key verifies it
    es_as_rsa = issuer.mint(es256_key("ec-1"), header={"kid": "rsa-1"})
    assert "signature" in await refused(v, es_as_rsa)
    only_rs = verifier(issuer, algorithms=["RS256"])
    assert "ES256" in await refused(only_rs, issuer.mint())
    with pytest.raises(ValueError, match="none"):
        verifier(issuer, algorithms=["ES256", "none"])
    with pytest.raises(ValueError, match="HMAC"):
        verifier(issuer, algorithms=["HS256"])
    with pytest.raises(ValueError, match="HMAC"):
        JWTVerifier(issuer=ISSUER, keys=issuer.jwks(), algorithms=["HS256", "RS256"])


async def test_bad_tokens() -> None:
    issuer = TokenIssuer()
    v = verifier(issuer)
    token = issuer.mint()
    head, _payload, sig = token.split(".")
    other = issuer.mint(sub="admin").split(".")[1]
    assert "signature" in await refused(v, f"{head}.{other}.{sig}")  # payload swapped
    assert "not a signed JWT" in await refused(v, "opaque-token")
    assert "valid JWT" in await refused(v, "a.b.c")
    assert "too large" in await refused(v, token + "A" * 20_000)
    proof_typ = issuer.mint(header={"typ": "dpop+jwt"})
    assert "DPoP proof" in await refused(v, proof_typ)
    strict = verifier(issuer, token_type="at+jwt")
    await strict.verify_token(token)
    assert "typ" in await refused(strict, issuer.mint(header={"typ": "JWT"}))
    mtls = issuer.mint(cnf={"x5t#S256": "abc"})
    assert "confirmation" in await refused(v, mtls)
    bound = await v.verify_token(issuer.mint(cnf={"jkt": "thumb"}))
    assert bound.jkt == "thumb"


async def test_static_keys() -> None:
    issuer = TokenIssuer()
    from_pem = JWTVerifier(issuer=ISSUER, keys=es256_key("ec-1").public_pem, audience=RESOURCE)
    at = await from_pem.verify_token(issuer.mint(header={"kid": None}))
    assert at.subject == "user-1"
    from_jwks = JWTVerifier(issuer=ISSUER, keys=issuer.jwks())
    await from_jwks.verify_token(issuer.mint(rs256_key("rsa-1")))
    await refused(from_jwks, issuer.mint(rs256_key("rsa-other")))
    # symmetric keys given up front may use HMAC, when allowed explicitly
    secret = OctKey.import_key(b"s" * 32, {"kid": "hs"})
    hs = JWTVerifier(issuer=ISSUER, keys=secret, algorithms=["HS256"])
    token = jwt.encode({"alg": "HS256", "kid": "hs"}, issuer.claims(), secret)
    assert (await hs.verify_token(token)).scopes == {"mcp:read", "mcp:write"}
    # a JWKS whose keys carry no kid: a token's kid is only a hint
    anonymous = {k: v for k, v in es256_key("ec-1").public_jwk.items() if k != "kid"}
    kidless = JWTVerifier(issuer=ISSUER, keys={"keys": [anonymous]})
    assert (await kidless.verify_token(issuer.mint(header={"kid": "whatever"}))).subject
    with pytest.raises(ValueError, match="not both"):
        JWTVerifier(issuer=ISSUER, keys=issuer.jwks(), jwks_url=JWKS_URL)
    with pytest.raises(ValueError, match="PEM"):
        StaticKeys("not a key")
    with pytest.raises(ValueError, match="HTTPS"):
        JWTVerifier(issuer=ISSUER, jwks_url="http://as.example.com/jwks")


async def test_verified_tokens_are_cached_and_their_claims_checked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mcpkit.auth.jwt_verifier

    class Now:
        value = time.time()

        def time(self) -> float:
            return self.value

    now = Now()
    monkeypatch.setattr(mcpkit.auth.jwt_verifier, "time", now)
    issuer = TokenIssuer()
    v = verifier(issuer, leeway=0, cache_size=2)
    a, b, c = (issuer.mint(sub=s, exp=int(now.value) + 60) for s in "abc")
    await v.verify_token(a)

    class NoKeys:
        async def candidates(self, kid: str | None, alg: str) -> list[Any]:
            return []

    v.source = NoKeys()  # from now on no signature can be checked
    assert (await v.verify_token(a)).subject == "a"  # served from the cache
    await refused(v, b)
    now.value += 61
    assert "expired" in await refused(v, a)  # the claims are checked every time
    # bounded: the oldest entry goes first
    now.value -= 61
    v2 = verifier(issuer, cache_size=2)
    for t in (a, b, c):
        await v2.verify_token(t)
    v2.source = NoKeys()
    await v2.verify_token(c)
    await v2.verify_token(b)
    assert "signature" in await refused(v2, a)


async def test_jwks_uri_discovered_from_the_issuer_metadata() -> None:
    issuer = TokenIssuer()
    v = JWTVerifier(issuer=ISSUER, http_client=issuer.client(), audience=RESOURCE)
    assert (await v.verify_token(issuer.mint())).subject == "user-1"
    assert issuer.metadata_fetches == 1 and issuer.jwks_fetches == 1
    # metadata naming another issuer is not used
    liar = TokenIssuer(metadata_issuer="https://evil.example.com")
    v = JWTVerifier(issuer=ISSUER, http_client=liar.client())
    with pytest.raises(VerifierUnavailableError):
        await v.verify_token(liar.mint())
    assert liar.jwks_fetches == 0


async def test_jwks_unreachable() -> None:
    issuer = TokenIssuer(down=True)
    v = verifier(issuer, min_refresh_interval=3600)
    with pytest.raises(VerifierUnavailableError):
        await v.verify_token(issuer.mint())
    with pytest.raises(VerifierUnavailableError):
        await v.verify_token(issuer.mint())
    assert issuer.jwks_fetches == 0  # never answered, and asked only once
    v2 = verifier(issuer, min_refresh_interval=0)
    issuer.down = False
    await v2.verify_token(issuer.mint())
    issuer.down = True  # a failed refresh keeps the keys it had
    v2.source.cache_ttl = 0  # type: ignore[attr-defined]
    await v2.verify_token(issuer.mint())


# -- over HTTP: a protected mcpkit server, its JWKS served on 127.0.0.1 ----------------------


def protected_server(rs: ResourceServer) -> Server:
    app = Server("protected", auth=rs)

    @app.tool()
    def whoami(ctx: Context) -> str:
        assert ctx.auth is not None
        return f"{ctx.auth.subject} {' '.join(sorted(ctx.auth.scopes))}"

    @app.tool()
    def wipe() -> str:
        return "wiped"

    return app


async def test_resource_server_with_a_jwks_over_http(free_port: int) -> None:
    url = f"http://127.0.0.1:{free_port}/mcp"
    issuer = TokenIssuer(audience=url)
    async with running(issuer) as as_base:
        rs = ResourceServer(
            JWTVerifier(issuer=ISSUER, jwks_url=as_base + "/jwks"),
            resource=url,
            authorization_servers=[ISSUER],
            required_scopes=["mcp:read"],
            scopes_for=lambda m, p: ["admin"] if m == "tools/call" and p["name"] == "wipe" else [],
        )
        app = protected_server(rs)
        asgi = app.http_app()
        async with running(asgi, port=free_port):
            good = issuer.mint()
            async with Client(url, headers={"Authorization": f"Bearer {good}"}) as c:
                text = (await c.call_tool("whoami")).content[0].text  # type: ignore[union-attr]
                assert text == "user-1 mcp:read mcp:write"
                with pytest.raises(McpError) as info:
                    await c.call_tool("wipe")
                assert info.value.data == {"status": 403}
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "wipe", "arguments": {}}}  # fmt: skip
            accept = {"accept": "application/json, text/event-stream"}
            async with httpx.AsyncClient() as http:
                r = await http.post(
                    url, json=body, headers={**accept, "authorization": f"Bearer {good}"}
                )
                assert r.status_code == 403
                [challenge] = parse_www_authenticate(r.headers.get_list("www-authenticate"))
                assert challenge.scheme == "bearer"
                assert challenge.error == "insufficient_scope"
                assert challenge.scope == "mcp:read admin mcp:write"
                assert challenge.resource_metadata == rs.metadata_url
                # wrong audience, expired, unsigned: 401 invalid_token with the reason
                for bad, reason in [
                    (issuer.mint(aud="https://other.example.com/mcp"), "another resource"),
                    (issuer.mint(exp=int(time.time()) - 3600), "expired"),
                    (unsigned({"alg": "none"}, issuer.claims()), "algorithm"),
                ]:
                    r = await http.post(
                        url, json=body, headers={**accept, "authorization": f"Bearer {bad}"}
                    )
                    assert r.status_code == 401
                    [challenge] = parse_www_authenticate(r.headers["www-authenticate"])
                    assert challenge.error == "invalid_token"
                    assert reason in challenge.params["error_description"]
                # the JWKS endpoint goes down before the verifier ever fetched it: 503
                issuer.down = True
                rs2 = ResourceServer(
                    JWTVerifier(issuer=ISSUER, jwks_url=as_base + "/jwks"),
                    resource=url,
                    authorization_servers=[ISSUER],
                )
                rs._verify = rs2._verify
                r = await http.post(
                    url, json=body, headers={**accept, "authorization": f"Bearer {good}"}
                )
                assert r.status_code == 503 and r.headers["retry-after"] == "5"
        await asgi.aclose()


@pytest.fixture
def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
