"""The embedded authorization server: mcpkit's OAuth client runs the whole flow against it
(registration, PKCE, code, token, a tool call, refresh), its tokens pass the existing
JWTVerifier for their resource only, and the security rules hold: PKCE S256 required,
exact redirect URIs, codes single-use (a replay revokes what the code gave) and short-lived,
refresh tokens rotated with replay detection, revocation, client authentication."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mcpkit import Client, Context, Server
from mcpkit.auth import (
    ClientMetadata,
    InvalidTokenError,
    OAuthClientAuth,
    headless_authorization_handler,
)
from mcpkit.auth.as_store import AuthStore, MemoryAuthStore, SQLiteAuthStore
from mcpkit.auth.as_store_redis import RedisAuthStore
from mcpkit.auth.authorization_server import AuthorizationRequest, AuthorizationServer
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.scaleout.cluster import Redis as RedisProcess

REDIRECT = "http://127.0.0.1:3999/callback"


@dataclass
class Env:
    base: str
    url: str
    issuer: AuthorizationServer
    http: httpx.AsyncClient
    clock: list[float]


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AuthStore]:
    """Each store the server may keep its state in."""
    if request.param == "memory":
        yield MemoryAuthStore()
    elif request.param == "sqlite":
        sqlite = SQLiteAuthStore(tmp_path / "as.sqlite3")
        yield sqlite
        sqlite.close()
    else:
        redis = RedisProcess(tmp_path)
        redis.start()
        shared = RedisAuthStore(redis.url)
        try:
            yield shared
        finally:
            await shared.aclose()
            redis.stop()


@pytest.fixture
async def env(store: AuthStore) -> AsyncIterator[Env]:
    late = Late()
    clock = [time.time()]  # issued tokens are checked against the real time
    async with running(late) as base, httpx.AsyncClient() as http:
        url = base + "/mcp"

        def approve(request: AuthorizationRequest) -> str | None:
            return None if request.http.query_params.get("deny") else "ada"

        issuer = AuthorizationServer(
            base,
            resource=url,
            approve=approve,
            scopes_supported=["mcp", "admin"],
            default_scopes=["mcp"],
            store=store,
            clock=lambda: clock[0],
        )
        app = Server("as", auth=issuer.resource_server())

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {' '.join(sorted(ctx.auth.scopes))}"

        issuer.install(app)
        late.app = app.http_app()
        yield Env(base, url, issuer, http, clock)
        await late.app.aclose()


async def test_mcpkit_client_full_flow(env: Env) -> None:
    flow = OAuthClientAuth(
        env.url,
        authorization_handler=headless_authorization_handler(),
        client_metadata=ClientMetadata(client_name="t", redirect_uris=[REDIRECT]),
    )
    async with Client(env.url, auth=flow) as c:
        # the client asks for the scopes_supported of the protected resource metadata
        assert (await c.call_tool("whoami")).content[0].text == "ada admin mcp"
    meta = (await env.http.get(env.base + "/.well-known/oauth-authorization-server")).json()
    assert meta["issuer"] == env.base and meta["code_challenge_methods_supported"] == ["S256"]
    assert "keys" in (await env.http.get(meta["jwks_uri"])).json()


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )
    return verifier, challenge


async def register(env: Env, method: str = "none") -> dict[str, Any]:
    r = await env.http.post(
        env.base + "/register",
        json={
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": method,
            "grant_types": ["authorization_code", "refresh_token"],
        },
    )
    assert r.status_code == 201, r.text
    return dict(r.json())


async def authorize(env: Env, client_id: str, challenge: str | None, **extra: str) -> Any:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "state": "s1",
        **extra,
    }
    if challenge is not None:
        params |= {"code_challenge": challenge, "code_challenge_method": "S256"}
    r = await env.http.get(env.base + "/authorize", params=params)
    if r.status_code != 302:
        return r
    location = r.headers["location"]
    assert location.startswith(REDIRECT + "?")
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


async def token(env: Env, client: dict[str, Any], **form: str) -> httpx.Response:
    form = {"client_id": client["client_id"], **form}
    if "client_secret" in client and client["token_endpoint_auth_method"] == "client_secret_post":
        form["client_secret"] = client["client_secret"]
    return await env.http.post(env.base + "/token", data=form)


async def code_for(env: Env, client: dict[str, Any], **extra: str) -> tuple[str, str]:
    verifier, challenge = pkce()
    got = await authorize(env, client["client_id"], challenge, **extra)
    assert got["state"] == "s1" and got["iss"] == env.base
    return got["code"], verifier


async def test_tokens_are_bound_to_the_resource(env: Env) -> None:
    client = await register(env)
    code, verifier = await code_for(env, client, scope="mcp admin")
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT,
    )
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    body = r.json()
    assert body["scope"] == "mcp admin" and body["token_type"] == "Bearer"
    at = await env.issuer.verifier().verify_token(body["access_token"])
    assert at.subject == "ada" and at.client_id == client["client_id"]
    assert at.resource == env.url
    other = AuthorizationServer(
        env.base,
        resource=[env.url, "https://other.example/mcp"],
        approve=lambda r: "x",
        signing_key=env.issuer._key,
    )
    with pytest.raises(InvalidTokenError, match="audience"):
        await other.verifier("https://other.example/mcp").verify_token(body["access_token"])
    got = await authorize(env, client["client_id"], pkce()[1], resource="https://evil.example/")
    assert got["error"] == "invalid_target"


async def test_pkce_is_required_and_checked(env: Env) -> None:
    client = await register(env)
    got = await authorize(env, client["client_id"], None)
    assert got["error"] == "invalid_request" and got["state"] == "s1"
    verifier, _ = pkce()
    got = await authorize(
        env, client["client_id"], None, code_challenge=verifier, code_challenge_method="plain"
    )
    assert got["error"] == "invalid_request"
    code, _ = await code_for(env, client)
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=pkce()[0],
        redirect_uri=REDIRECT,
    )
    assert r.status_code == 400 and r.json()["error"] == "invalid_grant"


async def test_redirect_uris_match_exactly(env: Env) -> None:
    client = await register(env)
    for uri in (REDIRECT + "/x", REDIRECT.replace("3999", "4000"), REDIRECT + "?a=1"):
        r = await env.http.get(
            env.base + "/authorize",
            params={
                "response_type": "code",
                "client_id": client["client_id"],
                "redirect_uri": uri,
                "code_challenge": pkce()[1],
                "code_challenge_method": "S256",
            },
        )
        assert r.status_code == 400 and "location" not in r.headers  # never redirected there
        assert r.headers["x-frame-options"] == "DENY"
    code, verifier = await code_for(env, client)
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT + "/other",
    )
    assert r.json()["error"] == "invalid_grant"
    r = await env.http.post(
        env.base + "/register", json={"redirect_uris": ["http://evil.example/cb"]}
    )
    assert r.status_code == 400 and r.json()["error"] == "invalid_redirect_uri"


async def test_codes_are_single_use_and_expire(env: Env) -> None:
    client = await register(env)
    code, verifier = await code_for(env, client)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT,
    }
    first = await token(env, client, **form)
    assert first.status_code == 200
    again = await token(env, client, **form)
    assert again.json()["error"] == "invalid_grant"
    # the replay revoked what the code gave
    r = await token(
        env, client, grant_type="refresh_token", refresh_token=first.json()["refresh_token"]
    )
    assert r.json()["error"] == "invalid_grant"
    code, verifier = await code_for(env, client)
    env.clock[0] += 61
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT,
    )
    assert r.json() == {"error": "invalid_grant", "error_description": "The code has expired"}
    got = await authorize(env, client["client_id"], pkce()[1], deny="1")
    assert got["error"] == "access_denied"


async def test_refresh_rotation_and_replay_detection(env: Env) -> None:
    client = await register(env)
    code, verifier = await code_for(env, client)
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT,
    )
    first = r.json()["refresh_token"]
    r = await token(env, client, grant_type="refresh_token", refresh_token=first)
    assert r.status_code == 200
    second = r.json()["refresh_token"]
    assert second != first
    # the old one again: a replay, and the family (the new one too) is revoked
    r = await token(env, client, grant_type="refresh_token", refresh_token=first)
    assert r.json()["error"] == "invalid_grant"
    r = await token(env, client, grant_type="refresh_token", refresh_token=second)
    assert r.json()["error"] == "invalid_grant"
    # revocation ends a family too; a refresh cannot widen the scopes
    code, verifier = await code_for(env, client)
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT,
    )
    refresh = r.json()["refresh_token"]
    r = await token(
        env, client, grant_type="refresh_token", refresh_token=refresh, scope="mcp admin"
    )
    assert r.json()["error"] == "invalid_scope"
    r = await env.http.post(
        env.base + "/revoke", data={"client_id": client["client_id"], "token": refresh}
    )
    assert r.status_code == 200
    r = await token(env, client, grant_type="refresh_token", refresh_token=refresh)
    assert r.json()["error"] == "invalid_grant"


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_confidential_clients_authenticate(env: Env, method: str) -> None:
    client = await register(env, method)
    code, verifier = await code_for(env, client)
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT,
    }
    # without the secret: refused (and the code is not spent)
    r = await env.http.post(env.base + "/token", data={"client_id": client["client_id"], **form})
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"
    auth = None
    if method == "client_secret_basic":
        auth = httpx.BasicAuth(client["client_id"], "wrong")
        r = await env.http.post(env.base + "/token", data=form, auth=auth)
        assert r.status_code == 401
        auth = httpx.BasicAuth(client["client_id"], client["client_secret"])
        r = await env.http.post(env.base + "/token", data=form, auth=auth)
    else:
        r = await token(env, client, **form)
    assert r.status_code == 200, r.text


async def test_three_replicas_share_one_redis(tmp_path: Path) -> None:
    """A code issued by one replica is redeemed at a second, refreshed at a third, and a
    replay at the first is detected: the state is the store's, not a process's."""
    redis = RedisProcess(tmp_path)
    redis.start()
    stores = [RedisAuthStore(redis.url) for _ in range(3)]
    lates = [Late() for _ in range(3)]
    key = AuthorizationServer(
        "https://as.example", resource="https://x/mcp", approve=lambda r: "x"
    )._key
    try:
        async with contextlib.AsyncExitStack() as stack:
            bases = [await stack.enter_async_context(running(late)) for late in lates]
            issuer_url = bases[0]  # one public URL in front of the replicas
            servers = []
            for late, shared in zip(lates, stores, strict=True):
                issuer = AuthorizationServer(
                    issuer_url,
                    resource=issuer_url + "/mcp",
                    approve=lambda r: "ada",
                    store=shared,
                    signing_key=key,
                )
                app = Server("replica", auth=issuer.resource_server())
                issuer.install(app)
                late.app = app.http_app()
                servers.append(issuer)
            async with httpx.AsyncClient() as http:
                r = await http.post(
                    bases[0] + "/register",
                    json={
                        "redirect_uris": [REDIRECT],
                        "token_endpoint_auth_method": "none",
                        "grant_types": ["authorization_code", "refresh_token"],
                    },
                )
                client_id = r.json()["client_id"]
                verifier, challenge = pkce()
                r = await http.get(
                    bases[1] + "/authorize",
                    params={
                        "response_type": "code",
                        "client_id": client_id,
                        "redirect_uri": REDIRECT,
                        "code_challenge": challenge,
                        "code_challenge_method": "S256",
                    },
                )
                code = parse_qs(urlsplit(r.headers["location"]).query)["code"][0]
                form = {
                    "client_id": client_id,
                    "grant_type": "authorization_code",
                    "code": code,
                    "code_verifier": verifier,
                    "redirect_uri": REDIRECT,
                }
                r = await http.post(bases[2] + "/token", data=form)
                assert r.status_code == 200, r.text
                tokens = r.json()
                for issuer in servers:  # every replica accepts the token
                    assert (
                        await issuer.verifier().verify_token(tokens["access_token"])
                    ).subject == "ada"
                r = await http.post(
                    bases[0] + "/token",
                    data={
                        "client_id": client_id,
                        "grant_type": "refresh_token",
                        "refresh_token": tokens["refresh_token"],
                    },
                )
                assert r.status_code == 200
                r = await http.post(bases[1] + "/token", data=form)  # the code again, elsewhere
                assert r.json()["error"] == "invalid_grant"
                r = await http.post(
                    bases[2] + "/token",
                    data={
                        "client_id": client_id,
                        "grant_type": "refresh_token",
                        "refresh_token": tokens["refresh_token"],
                    },
                )
                assert r.json()["error"] == "invalid_grant"  # used (and revoked by the replay)
            for late in lates:
                await late.app.aclose()
    finally:
        for shared in stores:
            await shared.aclose()
        redis.stop()


async def test_bad_requests_get_clear_oauth_errors(env: Env) -> None:
    http, base = env.http, env.base
    r = await http.post(
        base + "/register", content=b"{", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["error"] == "invalid_client_metadata"
    r = await http.post(base + "/register", json=["x"])
    assert r.json()["error"] == "invalid_client_metadata"
    r = await http.post(base + "/register", json={"redirect_uris": [REDIRECT + "#frag"]})
    assert r.json()["error"] == "invalid_redirect_uri"
    r = await http.post(
        base + "/register",
        json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "tls_client_auth"},
    )
    assert r.json()["error"] == "invalid_client_metadata"
    r = await http.post(
        base + "/register", json={"redirect_uris": [REDIRECT], "grant_types": ["password"]}
    )
    assert r.json()["error"] == "invalid_client_metadata"
    client = await register(env)
    r = await http.post(base + "/token", json={"grant_type": "authorization_code"})
    assert r.status_code == 400 and r.json()["error"] == "invalid_request"
    r = await http.post(
        base + "/token",
        content=b"grant_type=a&grant_type=b",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert r.json() == {
        "error": "invalid_request",
        "error_description": "Parameter 'grant_type' is repeated",
    }
    r = await token(env, client, grant_type="password")
    assert r.json()["error"] == "unsupported_grant_type"
    r = await http.post(base + "/token", data={"client_id": "nobody", "grant_type": "x"})
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"
    r = await http.post(
        base + "/token", data={"grant_type": "x"}, headers={"authorization": "Basic !!!"}
    )
    assert r.status_code == 401 and r.json()["error"] == "invalid_client"
    r = await http.get(base + "/authorize", params={"client_id": "nobody"})
    assert r.status_code == 400 and "text/html" in r.headers["content-type"]
    got = await authorize(env, client["client_id"], pkce()[1], response_type="token")
    assert got["error"] == "unsupported_response_type"
    got = await authorize(env, client["client_id"], pkce()[1], scope="root")
    assert got["error"] == "invalid_scope"
    r = await http.get(
        base + "/authorize",
        params=[("client_id", client["client_id"]), ("client_id", client["client_id"])],
    )
    assert r.status_code == 400


async def test_consent_page_resists_clickjacking_and_forgery(tmp_path: Path) -> None:
    late = Late()
    clock = [time.time()]
    async with running(late) as base, httpx.AsyncClient() as http:
        issuer = AuthorizationServer(
            base,
            resource=base + "/mcp",
            approve=lambda r: "ada",
            consent=True,
            scopes_supported=["mcp"],
            clock=lambda: clock[0],
        )
        app = Server("consent", auth=issuer.resource_server())
        issuer.install(app)
        late.app = app.http_app()
        r = await http.post(
            base + "/register",
            json={
                "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none",
                "client_name": "<script>alert(1)</script>",
            },
        )
        client_id = r.json()["client_id"]
        verifier, challenge = pkce()
        params = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": "st",
        }

        async def consent_page() -> tuple[str, str, str]:
            r = await http.get(base + "/authorize", params=params)
            assert r.status_code == 200 and "text/html" in r.headers["content-type"]
            assert r.headers["x-frame-options"] == "DENY"
            assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
            assert "<script>alert" not in r.text and "&lt;script&gt;" in r.text
            cookie = r.headers["set-cookie"].lower()
            assert "httponly" in cookie and "samesite=strict" in cookie
            assert "path=/authorize/consent" in cookie
            ticket = r.text.split('name=ticket value="')[1].split('"')[0]
            csrf = r.text.split('name=csrf value="')[1].split('"')[0]
            assert http.cookies.get("mcpkit_consent") == csrf
            return ticket, csrf, r.text

        ticket, csrf, _ = await consent_page()
        answer = base + "/authorize/consent"
        # a cross-site form: no cookie (SameSite), or a token that is not the cookie's
        async with httpx.AsyncClient() as elsewhere:  # no cookie (SameSite)
            r = await elsewhere.post(
                answer, data={"ticket": ticket, "csrf": csrf, "decision": "allow"}
            )
        assert r.status_code == 403 and r.headers["x-frame-options"] == "DENY"
        r = await http.post(answer, data={"ticket": ticket, "csrf": "guess", "decision": "allow"})
        assert r.status_code == 403
        # a ticket changed on the way (another redirect, another subject): refused
        body, tag = ticket.split(".")
        forged = (
            base64.urlsafe_b64encode(
                base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).replace(b"ada", b"eve")
            )
            .rstrip(b"=")
            .decode()
            + "."
            + tag
        )
        r = await http.post(answer, data={"ticket": forged, "csrf": csrf, "decision": "allow"})
        assert r.status_code == 400
        # denied
        r = await http.post(answer, data={"ticket": ticket, "csrf": csrf, "decision": "deny"})
        assert r.status_code == 303
        assert parse_qs(urlsplit(r.headers["location"]).query)["error"] == ["access_denied"]
        # expired
        ticket, csrf, _ = await consent_page()
        clock[0] += 601
        r = await http.post(answer, data={"ticket": ticket, "csrf": csrf, "decision": "allow"})
        assert r.status_code == 400
        clock[0] -= 601
        # allowed: the code comes back to the client, and is redeemed
        ticket, csrf, _ = await consent_page()
        r = await http.post(answer, data={"ticket": ticket, "csrf": csrf, "decision": "allow"})
        assert r.status_code == 303
        got = {k: v[0] for k, v in parse_qs(urlsplit(r.headers["location"]).query).items()}
        assert got["state"] == "st" and got["iss"] == base
        r = await http.post(
            base + "/token",
            data={
                "client_id": client_id,
                "grant_type": "authorization_code",
                "code": got["code"],
                "code_verifier": verifier,
                "redirect_uri": REDIRECT,
            },
        )
        assert r.status_code == 200, r.text
        await late.app.aclose()


async def test_user_scopes_narrow_what_a_user_is_granted(env: Env) -> None:
    """``user_scopes`` decides per user: asked for "mcp admin", a user allowed "mcp" only
    gets "mcp" (in the token response and the access token), and a refresh cannot widen
    it; a user allowed both gets both."""
    seen: list[str] = []

    async def user_scopes(subject: str, claims: Any) -> list[str]:
        seen.append(subject)
        return ["mcp", "admin"] if env.issuer.approve is admin else ["mcp"]

    def admin(request: AuthorizationRequest) -> str:
        return "root"

    plain = env.issuer.approve
    env.issuer.user_scopes = user_scopes
    client = await register(env)
    code, verifier = await code_for(env, client, scope="mcp admin")
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT,
    )
    body = r.json()
    assert body["scope"] == "mcp"
    at = await env.issuer.verifier().verify_token(body["access_token"])
    assert at.subject == "ada" and at.scopes == frozenset({"mcp"})
    r = await token(
        env,
        client,
        grant_type="refresh_token",
        refresh_token=body["refresh_token"],
        scope="mcp admin",
    )
    assert r.status_code == 400 and r.json()["error"] == "invalid_scope"
    env.issuer.approve = admin
    try:
        code, verifier = await code_for(env, client, scope="mcp admin")
    finally:
        env.issuer.approve = plain
    r = await token(
        env,
        client,
        grant_type="authorization_code",
        code=code,
        code_verifier=verifier,
        redirect_uri=REDIRECT,
    )
    assert r.json()["scope"] == "mcp admin" and seen == ["ada", "root"]


async def test_first_use_is_once_per_key(store: AuthStore) -> None:
    """What makes a client assertion's jti single-use, in each store (concurrent uses of
    one key: exactly one wins)."""
    import asyncio

    results = await asyncio.gather(*(store.first_use("jti-1", 60) for _ in range(5)))
    assert results.count(True) == 1
    assert await store.first_use("jti-2", 60) is True
    assert await store.first_use("jti-1", 60) is False
