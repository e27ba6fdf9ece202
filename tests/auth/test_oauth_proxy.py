"""The OAuth proxy against a stand-in provider (tests/auth/standin_idp.py): MCP clients
register with mcpkit and are sent to the provider as its one registered client, with PKCE;
the provider's tokens stay server-side, encrypted (memory and Redis stores read raw), and
never reach the client; mcpkit's tokens carry the provider's user. Security: PKCE and exact
redirect URIs at mcpkit's /authorize, the provider's state used once and only by the browser
that started the login, the consent page unframeable and refused cross-site."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mcpkit import Client, Context, Server
from mcpkit.auth import (
    ClientMetadata,
    OAuthClientAuth,
    UpstreamError,
)
from mcpkit.auth.oauth_proxy import OAuthProxy
from mcpkit.auth.proxy_store import (
    MemoryProxyStore,
    ProxyStore,
    RedisProxyStore,
    SQLiteProxyStore,
)
from mcpkit.errors import AuthError, McpkitError
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.auth.standin_idp import StandIn
from tests.scaleout.cluster import Redis as RedisProcess

REDIRECT = "http://127.0.0.1:3999/callback"


@dataclass
class Env:
    base: str
    url: str
    proxy: OAuthProxy
    idp: StandIn
    browser: httpx.AsyncClient


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )
    return verifier, challenge


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def proxy_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ProxyStore]:
    if request.param == "memory":
        yield MemoryProxyStore()
        return
    if request.param == "sqlite":
        sqlite = SQLiteProxyStore(tmp_path / "proxy.sqlite3")
        yield sqlite
        sqlite.close()
        return
    redis = RedisProcess(tmp_path)
    redis.start()
    store = RedisProxyStore(redis.url)
    try:
        yield store
    finally:
        await store.aclose()
        redis.stop()


@pytest.fixture
async def env(proxy_store: ProxyStore) -> AsyncIterator[Env]:
    idp = StandIn(
        client_id="registered-once",
        client_secret=secrets.token_urlsafe(16),
        authorize="/oauth2/authorize",
        token="/oauth2/token",
        jwks="/oauth2/keys",
        userinfo="/oauth2/userinfo",
        revocation="/oauth2/revoke",
        id_claims={"sub": "u-42", "email": "ada@example.com", "name": "Ada"},
        user={"sub": "u-42", "email": "ada@example.com", "name": "Ada"},
    )
    late = Late()
    async with (
        running(late) as base,
        running(idp.app()) as origin,
        httpx.AsyncClient(timeout=30) as browser,
    ):
        idp.origin = origin
        idp.redirect_uri = base + "/oauth/callback"
        proxy = OAuthProxy(
            base,
            client_id=idp.client_id,
            client_secret=idp.client_secret,
            issuer=idp.issuer,
            discovery_url=idp.issuer + "/.well-known/openid-configuration",
            scopes_supported=["mcp"],
            secret="the deployment secret",
            proxy_store=proxy_store,
        )
        app = Server("proxied", auth=proxy)

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {ctx.auth.claims.get('email')}"

        late.app = app.http_app()
        yield Env(base, base + "/mcp", proxy, idp, browser)
        await late.app.aclose()


async def register(env: Env) -> str:
    r = await env.browser.post(
        env.base + "/register",
        json={
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
        },
    )
    assert r.status_code == 201, r.text
    return str(r.json()["client_id"])


async def start(env: Env, client_id: str, challenge: str | None, **extra: str) -> httpx.Response:
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT}
    params |= {"state": "s1", **extra}
    if challenge is not None:
        params |= {"code_challenge": challenge, "code_challenge_method": "S256"}
    return await env.browser.get(env.base + "/authorize", params=params)


async def to_callback(env: Env, client_id: str, challenge: str) -> str:
    """mcpkit's /authorize, then the provider: the callback URL it sends the browser to."""
    r = await start(env, client_id, challenge)
    assert r.status_code == 302, r.text
    upstream = r.headers["location"]
    assert upstream.startswith(env.idp.origin + env.idp.authorize + "?")
    r = await env.browser.get(upstream)
    assert r.status_code == 302, r.text
    return str(r.headers["location"])


async def consent(env: Env, page: httpx.Response, decision: str = "allow") -> dict[str, str]:
    """Answer mcpkit's consent page: the query the client's redirect URI receives."""
    import re

    ticket = re.search(r'name=ticket value="([^"]+)"', page.text)
    csrf = re.search(r'name=csrf value="([^"]+)"', page.text)
    assert ticket and csrf, page.text
    r = await env.browser.post(
        env.base + "/authorize/consent",
        data={"ticket": ticket.group(1), "csrf": csrf.group(1), "decision": decision},
    )
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert location.startswith(REDIRECT + "?")
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


async def test_a_login_through_the_proxy(env: Env) -> None:
    client_id = await register(env)
    verifier, challenge = pkce()
    callback = await to_callback(env, client_id, challenge)
    asked = env.idp.authorize_requests[-1]
    # the provider saw its one registered client, PKCE S256 of the proxy's own, a nonce
    assert asked["client_id"] == env.idp.client_id and asked["code_challenge"] != challenge
    assert asked["redirect_uri"] == env.base + "/oauth/callback"
    assert asked["scope"] == "openid email profile" and asked["nonce"]
    page = await env.browser.get(callback)
    assert page.status_code == 200 and "wants access" in page.text
    got = await consent(env, page)
    assert got["state"] == "s1" and got["iss"] == env.base
    r = await env.browser.post(
        env.base + "/token",
        data={
            "grant_type": "authorization_code",
            "code": got["code"],
            "code_verifier": verifier,
            "redirect_uri": REDIRECT,
            "client_id": client_id,
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    at = await env.proxy.server.verifier().verify_token(body["access_token"])
    assert at.subject == "u-42" and at.claims["email"] == "ada@example.com"
    assert at.claims["name"] == "Ada" and at.resource == env.url
    # the provider's tokens: kept, encrypted, never in what the client got
    upstream = env.idp.issued[-1]
    kept = await env.proxy.upstream_tokens(at)
    assert kept is not None and kept["access_token"] == upstream["access_token"]
    raw = await raw_store(env.proxy.proxy_store)
    assert raw  # something is stored
    for name in ("access_token", "refresh_token", "id_token"):
        value = upstream[name]
        assert value not in r.text and value not in page.text
        assert value.encode() not in raw
    # a refresh, then a revocation: the grant ends, upstream too
    r = await env.browser.post(
        env.base + "/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": body["refresh_token"],
            "client_id": client_id,
        },
    )
    assert r.status_code == 200, r.text
    refreshed = r.json()
    r = await env.browser.post(
        env.base + "/revoke", data={"token": refreshed["refresh_token"], "client_id": client_id}
    )
    assert r.status_code == 200
    assert env.idp.revoked == [upstream["refresh_token"]]
    assert await env.proxy.upstream_tokens(at) is None
    rs = env.proxy.resource_server()
    with pytest.raises(McpkitError, match="revoked"):
        await rs._verify(refreshed["access_token"])  # type: ignore[misc]


async def raw_store(store: ProxyStore) -> bytes:
    """Every byte the store holds, as read by anyone with access to it."""
    if isinstance(store, MemoryProxyStore):
        return b"".join(v for v, _ in store.values.values())
    if isinstance(store, SQLiteProxyStore):  # the database file and its write-ahead log
        return b"".join(p.read_bytes() for p in store.path.parent.glob(store.path.name + "*"))
    assert isinstance(store, RedisProxyStore)
    keys = await store.redis.keys("*")
    return b"".join([k for k in keys] + [await store.redis.get(k) or b"" for k in keys])


async def test_mcpkit_client_full_flow(env: Env) -> None:
    """The client's own flow; the authorization handler plays the browser (the consent page
    is answered as the user would)."""

    async def browser(url: str) -> str:
        r = await env.browser.get(url)
        assert r.status_code == 302
        r = await env.browser.get(r.headers["location"])  # the provider logs the user in
        page = await env.browser.get(r.headers["location"])  # the callback: consent page
        got = await consent(env, page)
        return REDIRECT + "?" + "&".join(f"{k}={v}" for k, v in got.items())

    flow = OAuthClientAuth(
        env.url,
        authorization_handler=browser,
        client_metadata=ClientMetadata(client_name="t", redirect_uris=[REDIRECT]),
    )
    async with Client(env.url, auth=flow) as c:
        assert (await c.call_tool("whoami")).content[0].text == "u-42 ada@example.com"


async def test_pkce_and_exact_redirect_uris_before_the_provider(env: Env) -> None:
    client_id = await register(env)
    r = await start(env, client_id, None)
    assert r.status_code == 302
    back = parse_qs(urlsplit(r.headers["location"]).query)
    assert r.headers["location"].startswith(REDIRECT) and back["error"] == ["invalid_request"]
    for wrong in (REDIRECT + "/x", REDIRECT + "?a=1", "http://127.0.0.1:3998/callback"):
        r = await start(env, client_id, pkce()[1], redirect_uri=wrong)
        assert r.status_code == 400 and "not registered" in r.text
    assert env.idp.authorize_requests == []  # nothing went to the provider


async def test_state_is_single_use_and_bound_to_the_browser(env: Env) -> None:
    client_id = await register(env)
    callback = await to_callback(env, client_id, pkce()[1])
    # another browser (an attacker's link to the victim) has no login cookie: refused
    async with httpx.AsyncClient() as other:
        r = await other.get(callback)
    assert r.status_code == 403
    # and the state is spent: the real browser cannot use it now either
    r = await env.browser.get(callback)
    assert r.status_code == 400 and "already used" in r.text
    callback = await to_callback(env, client_id, pkce()[1])
    r = await env.browser.get(callback)
    assert r.status_code == 200  # the consent page
    r = await env.browser.get(callback)  # replayed
    assert r.status_code == 400
    r = await env.browser.get(env.base + "/oauth/callback?state=forged&code=x")
    assert r.status_code == 400
    r = await env.browser.get(env.base + "/oauth/callback?code=x")
    assert r.status_code == 400


async def test_the_consent_page_resists_clickjacking_and_forgery(env: Env) -> None:
    client_id = await register(env)
    page = await env.browser.get(await to_callback(env, client_id, pkce()[1]))
    assert page.headers["x-frame-options"] == "DENY"
    csp = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp
    # the form goes here only, and its redirect to the client (browsers check both)
    assert "form-action 'self' http://127.0.0.1:3999;" in csp
    import re

    ticket = re.search(r'name=ticket value="([^"]+)"', page.text)
    csrf = re.search(r'name=csrf value="([^"]+)"', page.text)
    assert ticket and csrf
    async with httpx.AsyncClient() as attacker:  # a cross-site form: no consent cookie
        r = await attacker.post(
            env.base + "/authorize/consent",
            data={"ticket": ticket.group(1), "csrf": csrf.group(1), "decision": "allow"},
        )
    assert r.status_code == 403
    got = await consent(env, page, "deny")
    assert got["error"] == "access_denied"


async def test_a_provider_refusal_goes_back_to_the_client(env: Env) -> None:
    client_id = await register(env)
    callback = await to_callback(env, client_id, pkce()[1])
    env.idp.codes.clear()  # the provider no longer knows the code
    r = await env.browser.get(callback)
    assert r.status_code == 302
    back = parse_qs(urlsplit(r.headers["location"]).query)
    assert back["error"] == ["server_error"] and back["state"] == ["s1"]
    assert "invalid_grant" in back["error_description"][0]


async def test_an_id_token_for_another_client_is_refused(env: Env) -> None:
    env.idp.id_claims = {"sub": "u-42", "aud": "someone-else"}
    client_id = await register(env)
    r = await env.browser.get(await to_callback(env, client_id, pkce()[1]))
    back = parse_qs(urlsplit(r.headers["location"]).query)
    assert back["error"] == ["server_error"]
    assert "another client" in back["error_description"][0]


async def test_a_replayed_id_token_nonce_is_refused(env: Env) -> None:
    assert env.idp.id_claims is not None
    env.idp.id_claims = {**env.idp.id_claims, "nonce": "from another login"}
    client_id = await register(env)
    r = await env.browser.get(await to_callback(env, client_id, pkce()[1]))
    back = parse_qs(urlsplit(r.headers["location"]).query)
    assert back["error"] == ["server_error"] and "nonce" in back["error_description"][0]


async def test_an_id_token_signed_with_the_client_secret_is_refused(env: Env) -> None:
    env.idp.sign_with_secret = True
    client_id = await register(env)
    r = await env.browser.get(await to_callback(env, client_id, pkce()[1]))
    back = parse_qs(urlsplit(r.headers["location"]).query)
    assert (
        back["error"] == ["server_error"] and "ID token is invalid" in back["error_description"][0]
    )


async def test_a_refusal_at_the_provider_is_access_denied(env: Env) -> None:
    env.idp.refuse = "access_denied"
    client_id = await register(env)
    r = await env.browser.get(await to_callback(env, client_id, pkce()[1]))
    assert r.status_code == 302 and r.headers["location"].startswith(REDIRECT + "?")
    back = parse_qs(urlsplit(r.headers["location"]).query)
    assert back["error"] == ["access_denied"] and back["state"] == ["s1"]
    assert "code" not in back and env.idp.issued == []


async def test_a_run_out_upstream_token_is_refreshed_at_the_provider(env: Env) -> None:
    env.idp.expires_in = 0  # the provider's access token has run out at once
    client_id = await register(env)
    verifier, challenge = pkce()
    got = await consent(env, await env.browser.get(await to_callback(env, client_id, challenge)))
    r = await env.browser.post(
        env.base + "/token",
        data={
            "grant_type": "authorization_code",
            "code": got["code"],
            "code_verifier": verifier,
            "redirect_uri": REDIRECT,
            "client_id": client_id,
        },
    )
    at = await env.proxy.server.verifier().verify_token(r.json()["access_token"])
    first = env.idp.issued[0]
    stored = await env.proxy.upstream_tokens(at, refresh=False)
    assert stored is not None and stored["access_token"] == first["access_token"]
    fresh = await env.proxy.upstream_tokens(at)
    assert fresh is not None and len(env.idp.issued) == 2
    assert fresh["access_token"] == env.idp.issued[1]["access_token"] != first["access_token"]
    assert fresh["refresh_token"] == first["refresh_token"]  # kept: the provider sent none
    again = await env.proxy.upstream_tokens(at)  # fresh now: not refreshed again
    assert again is not None and again["access_token"] == fresh["access_token"]
    assert len(env.idp.issued) == 2
    raw = await raw_store(env.proxy.proxy_store)
    assert fresh["access_token"].encode() not in raw


async def test_sqlite_proxy_store_survives_a_restart(tmp_path: Path) -> None:
    """Values outlive the process (wall-clock expiry), ``take`` gives a value once, the
    file is the owner's only."""
    path = tmp_path / "proxy.sqlite3"
    first = SQLiteProxyStore(path)
    await first.put("login:a", b"sealed-a", 600)
    await first.put("login:b", b"sealed-b", 0)
    await first.put("upstream:f", b"sealed-f", None)
    first.close()
    assert path.stat().st_mode & 0o777 == 0o600
    second = SQLiteProxyStore(path)
    assert await second.get("upstream:f") == b"sealed-f"
    assert await second.get("login:b") is None  # expired
    results = await asyncio.gather(*(second.take("login:a") for _ in range(5)))
    assert results.count(b"sealed-a") == 1 and results.count(None) == 4
    assert await second.take("login:b") is None
    second.close()


def test_upstream_error_is_an_auth_error() -> None:
    assert issubclass(UpstreamError, AuthError)


async def test_a_proxy_on_sqlite_survives_restarts(tmp_path: Path) -> None:
    """Both of the proxy's stores in SQLite files: a login started before a restart is
    finished after it, the tokens it gave refresh after another restart, and the upstream
    tokens are still there, sealed, for the same deployment secret and signing key; a
    process that never read the provider's configuration finishes a login (the code
    exchange) and revokes upstream all the same (it reads the configuration first)."""
    from mcpkit.auth import SQLiteAuthStore

    idp = StandIn(
        client_id="registered-once",
        client_secret=secrets.token_urlsafe(16),
        authorize="/oauth2/authorize",
        token="/oauth2/token",
        jwks="/oauth2/keys",
        revocation="/oauth2/revoke",
        id_claims={"sub": "u-7", "email": "kim@example.com"},
    )
    late = Late()
    key = OAuthProxy(
        "https://x",
        client_id="c",
        client_secret="s",
        authorization_endpoint="https://x/a",
        token_endpoint="https://x/t",
        userinfo_endpoint="https://x/u",
    ).server._key
    opened: list[tuple[SQLiteAuthStore, SQLiteProxyStore]] = []

    def start(base: str) -> OAuthProxy:
        """A process starting: a proxy on the files, its app serving."""
        stores = (SQLiteAuthStore(tmp_path / "as.db"), SQLiteProxyStore(tmp_path / "proxy.db"))
        opened.append(stores)
        proxy = OAuthProxy(
            base,
            client_id=idp.client_id,
            client_secret=idp.client_secret,
            issuer=idp.issuer,
            discovery_url=idp.issuer + "/.well-known/openid-configuration",
            scopes_supported=["mcp"],
            secret="the deployment secret",
            signing_key=key,
            store=stores[0],
            proxy_store=stores[1],
            consent=False,
        )
        late.app = Server("proxied", auth=proxy).http_app()
        return proxy

    def stop() -> None:
        for auth_store, proxy_store in opened:
            auth_store.close()
            proxy_store.close()
        opened.clear()

    async with (
        running(late) as base,
        running(idp.app()) as origin,
        httpx.AsyncClient(timeout=30) as browser,
    ):
        idp.origin = origin
        idp.redirect_uri = base + "/oauth/callback"
        start(base)
        client_id = await register(Env(base, base + "/mcp", None, idp, browser))  # type: ignore[arg-type]
        verifier, challenge = pkce()
        env = Env(base, base + "/mcp", None, idp, browser)  # type: ignore[arg-type]
        callback = await to_callback(env, client_id, challenge)
        await late.app.aclose()
        stop()
        proxy = start(base)  # restarted between the provider's login and its redirect back
        r = await browser.get(callback)
        assert r.status_code == 302, r.text
        back = parse_qs(urlsplit(r.headers["location"]).query)
        assert "code" in back, back
        code = back["code"][0]
        form = {"client_id": client_id, "redirect_uri": REDIRECT}
        r = await browser.post(
            base + "/token",
            data={
                **form,
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": verifier,
            },
        )
        assert r.status_code == 200, r.text
        refresh = r.json()["refresh_token"]
        await late.app.aclose()
        stop()
        proxy = start(base)  # and again
        r = await browser.post(
            base + "/token",
            data={"client_id": client_id, "grant_type": "refresh_token", "refresh_token": refresh},
        )
        assert r.status_code == 200, r.text
        at = await proxy.server.verifier().verify_token(r.json()["access_token"])
        assert at.subject == "u-7" and at.claims["email"] == "kim@example.com"
        kept = await proxy.upstream_tokens(at)
        assert kept is not None and kept["access_token"] == idp.issued[-1]["access_token"]
        raw = await asyncio.to_thread(
            lambda: b"".join(p.read_bytes() for p in tmp_path.glob("proxy.db*"))
        )
        assert kept["access_token"].encode() not in raw
        fresh = r.json()["refresh_token"]
        await late.app.aclose()
        stop()
        proxy = start(base)  # a process that has not read the provider's configuration yet
        r = await browser.post(base + "/revoke", data={"client_id": client_id, "token": fresh})
        assert r.status_code == 200
        assert idp.revoked == [idp.issued[-1]["refresh_token"]]  # revoked at the provider too
        assert await proxy.upstream_tokens(at) is None
        await late.app.aclose()
        stop()


async def test_two_proxy_replicas_share_one_redis(tmp_path: Path) -> None:
    """Two replicas behind one public URL, both stores in one Redis, one deployment secret
    and signing key: the login starts at one, the provider's redirect back lands on the
    other, the consent is answered at the first, the code redeemed at the second, the
    refresh at the first, and a revocation at the second ends the grant at both."""
    import re

    from mcpkit.auth import RedisAuthStore

    idp = StandIn(
        client_id="registered-once",
        client_secret=secrets.token_urlsafe(16),
        authorize="/oauth2/authorize",
        token="/oauth2/token",
        jwks="/oauth2/keys",
        revocation="/oauth2/revoke",
        id_claims={"sub": "u-9", "email": "lee@example.com"},
    )
    redis = RedisProcess(tmp_path)
    redis.start()
    stores: list[RedisAuthStore | RedisProxyStore] = []
    lates = [Late(), Late()]
    try:
        async with (
            running(lates[0]) as a,
            running(lates[1]) as b,
            running(idp.app()) as origin,
            httpx.AsyncClient(timeout=30) as browser,
        ):
            idp.origin = origin
            idp.redirect_uri = a + "/oauth/callback"  # the public URL is a's
            key = None
            proxies = []
            for late in lates:
                auth_store, proxy_store = RedisAuthStore(redis.url), RedisProxyStore(redis.url)
                stores += [auth_store, proxy_store]
                proxy = OAuthProxy(
                    a,
                    client_id=idp.client_id,
                    client_secret=idp.client_secret,
                    issuer=idp.issuer,
                    discovery_url=idp.issuer + "/.well-known/openid-configuration",
                    scopes_supported=["mcp"],
                    secret="the deployment secret",
                    signing_key=key,
                    store=auth_store,
                    proxy_store=proxy_store,
                )
                key = proxy.server._key
                proxies.append(proxy)
                late.app = Server("proxied", auth=proxy).http_app()

            def at(replica: str, url: str) -> str:  # the load balancer's choice
                return replica + url[len(a) :]

            client_id = await register(Env(a, a + "/mcp", proxies[0], idp, browser))
            verifier, challenge = pkce()
            r = await start(Env(a, a + "/mcp", proxies[0], idp, browser), client_id, challenge)
            r = await browser.get(r.headers["location"])  # the provider logs the user in
            page = await browser.get(at(b, r.headers["location"]))  # back, at b
            assert page.status_code == 200 and "wants access" in page.text, page.text
            ticket = re.search(r'name=ticket value="([^"]+)"', page.text)
            csrf = re.search(r'name=csrf value="([^"]+)"', page.text)
            assert ticket and csrf
            r = await browser.post(
                a + "/authorize/consent",
                data={"ticket": ticket[1], "csrf": csrf[1], "decision": "allow"},
            )
            assert r.status_code == 303, r.text
            code = parse_qs(urlsplit(r.headers["location"]).query)["code"][0]
            r = await browser.post(
                b + "/token",
                data={
                    "client_id": client_id,
                    "grant_type": "authorization_code",
                    "code": code,
                    "code_verifier": verifier,
                    "redirect_uri": REDIRECT,
                },
            )
            assert r.status_code == 200, r.text
            r = await browser.post(
                a + "/token",
                data={
                    "client_id": client_id,
                    "grant_type": "refresh_token",
                    "refresh_token": r.json()["refresh_token"],
                },
            )
            assert r.status_code == 200, r.text
            tokens = r.json()
            token = await proxies[0].server.verifier().verify_token(tokens["access_token"])
            assert token.subject == "u-9"
            for proxy in proxies:  # both see the provider's tokens
                assert await proxy.upstream_tokens(token) is not None
            r = await browser.post(
                b + "/revoke", data={"client_id": client_id, "token": tokens["refresh_token"]}
            )
            assert r.status_code == 200
            assert idp.revoked == [idp.issued[-1]["refresh_token"]]
            for proxy in proxies:
                assert await proxy.upstream_tokens(token) is None
                with pytest.raises(McpkitError, match="revoked"):
                    await proxy.resource_server()._verify(tokens["access_token"])  # type: ignore[misc]
            for late in lates:
                await late.app.aclose()
    finally:
        for store in stores:
            await store.aclose()
        redis.stop()
