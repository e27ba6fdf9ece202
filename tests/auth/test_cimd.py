"""Client ID metadata documents at the embedded authorization server and the OAuth proxy:
mcpkit's client uses the URL of its document as its client_id (no registration), the server
fetches the document (served on 127.0.0.1 here, accepted with ``allow_loopback``), checks
it and caches it as its Cache-Control says. Security: the document's client_id must be its
URL, redirect URIs match the document's exactly, no loopback/private/metadata address
without ``allow_loopback`` (nothing is even requested), a size cap, a deadline, no
redirect to another host, no shared secrets, a trust policy on hosts."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mcpkit import Client, Context, Server
from mcpkit.auth import (
    AuthorizationServer,
    ClientMetadata,
    ClientMetadataDocuments,
    ClientMetadataError,
    MemoryAuthStore,
    MemoryTokenStore,
    OAuthClientAuth,
    headless_authorization_handler,
)
from mcpkit.auth.oauth_proxy import OAuthProxy
from mcpkit.transports.http import running
from tests.auth.conftest import Late
from tests.auth.standin_idp import StandIn
from tests.auth.test_authorization_server import pkce

REDIRECT = "http://127.0.0.1:3999/callback"


@dataclass
class Documents:
    """A web server hosting client metadata documents: path -> (status, headers, body)."""

    base: str = ""
    pages: dict[str, tuple[int, dict[str, str], bytes]] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)
    delay: float = 0.0

    def url(self, path: str) -> str:
        return self.base + path

    def serve(
        self, path: str, doc: Any, *, status: int = 200, headers: dict[str, str] | None = None
    ) -> str:
        body = doc if isinstance(doc, bytes) else orjson.dumps(doc)
        self.pages[path] = (status, {"content-type": "application/json", **(headers or {})}, body)
        return self.url(path)

    def document(self, path: str, **fields: Any) -> str:
        """A valid document at ``path`` (``fields`` override)."""
        url = self.url(path)
        doc = {
            "client_id": url,
            "client_name": "Doc Client",
            "redirect_uris": [REDIRECT],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            **fields,
        }
        return self.serve(path, doc, headers={"cache-control": "max-age=60"})

    def app(self) -> Starlette:
        async def page(request: Request) -> Response:
            self.hits.append(request.url.path)
            if self.delay:
                await asyncio.sleep(self.delay)
            found = self.pages.get(request.url.path)
            if found is None:
                return Response(b"", 404)
            status, headers, body = found
            return Response(body, status, headers=headers)

        return Starlette(routes=[Route("/{path:path}", page)])


@contextlib.asynccontextmanager
async def embedded(
    documents: ClientMetadataDocuments | bool, clock: list[float] | None = None
) -> AsyncIterator[tuple[str, AuthorizationServer, Documents]]:
    late = Late()
    docs = Documents()
    async with running(late) as base, running(docs.app()) as origin:
        docs.base = origin
        issuer = AuthorizationServer(
            base,
            resource=base + "/mcp",
            approve=lambda r: "ada",
            scopes_supported=["mcp"],
            client_id_metadata_documents=documents,
        )
        app = Server("cimd", auth=issuer.resource_server())

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {ctx.auth.client_id}"

        issuer.install(app)
        late.app = app.http_app()
        try:
            yield base, issuer, docs
        finally:
            await late.app.aclose()


def dev() -> ClientMetadataDocuments:
    return ClientMetadataDocuments(allow_loopback=True)


async def authorize(
    http: httpx.AsyncClient, base: str, client_id: str, redirect: str = REDIRECT
) -> httpx.Response:
    _, challenge = pkce()
    return await http.get(
        base + "/authorize",
        params={
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": "s",
        },
    )


async def test_mcpkit_client_with_a_metadata_document() -> None:
    """No registration: the client_id is the document's URL, fetched once (cached) for the
    authorization, the code, the refresh."""
    async with embedded(dev()) as (base, issuer, docs), httpx.AsyncClient() as http:
        doc_url = docs.document("/oauth/client.json")
        meta = (await http.get(base + "/.well-known/oauth-authorization-server")).json()
        assert meta["client_id_metadata_document_supported"] is True
        tokens = MemoryTokenStore()
        flow = OAuthClientAuth(
            base + "/mcp",
            authorization_handler=headless_authorization_handler(),
            client_metadata_url=doc_url,
            client_metadata=ClientMetadata(client_name="Doc Client", redirect_uris=[REDIRECT]),
            store=tokens,
        )
        async with Client(base + "/mcp", auth=flow) as c:
            assert (await c.call_tool("whoami")).content[0].text == f"ada {doc_url}"
            held = await tokens.get_token(base + "/mcp")
            assert held is not None and held.refresh_token
            held.expires_at = 0  # run out: the client refreshes with the same client_id
            assert (await c.call_tool("whoami")).content[0].text == f"ada {doc_url}"
            again = await tokens.get_token(base + "/mcp")
            assert again is not None and again.access_token != held.access_token
        store = issuer.store
        assert isinstance(store, MemoryAuthStore) and store.clients == {}  # nothing registered
        assert docs.hits == ["/oauth/client.json"]  # cached for max-age


async def test_the_document_must_name_its_own_url() -> None:
    async with embedded(dev()) as (base, _, docs), httpx.AsyncClient() as http:
        url = docs.url("/evil.json")
        docs.serve(
            "/evil.json",
            {"client_id": docs.url("/other.json"), "redirect_uris": [REDIRECT]},
        )
        r = await authorize(http, base, url)
        assert r.status_code == 400 and "client_id is not its URL" in r.text
        assert "location" not in r.headers


async def test_redirect_uris_match_the_document_exactly() -> None:
    async with embedded(dev()) as (base, _, docs), httpx.AsyncClient() as http:
        url = docs.document("/c.json")
        for wrong in (REDIRECT + "/x", REDIRECT + "?a=1", "http://127.0.0.1:3998/callback"):
            r = await authorize(http, base, url, wrong)
            assert r.status_code == 400 and "not registered" in r.text
        r = await authorize(http, base, url)
        assert r.status_code == 302 and r.headers["location"].startswith(REDIRECT + "?code=")


async def test_no_loopback_or_private_address_without_the_development_setting() -> None:
    """SSRF: by default a document on loopback, a private network or a cloud metadata
    address is refused before any connection; the loopback server is never asked."""
    async with embedded(True) as (base, issuer, docs), httpx.AsyncClient() as http:
        https_loopback = docs.document("/c.json").replace("http://", "https://")
        r = await authorize(http, base, https_loopback)
        assert r.status_code == 400 and "not on a public address" in r.text
        plain = docs.url("/c.json")
        r = await authorize(http, base, plain)  # http is not a document URL: unknown client
        assert r.status_code == 400 and "Unknown client" in r.text
        assert docs.hits == []
        for target in ("https://10.1.2.3/c.json", "https://169.254.169.254/latest/c.json"):
            r = await authorize(http, base, target)
            assert r.status_code == 400 and "not on a public address" in r.text, r.text
        # the token endpoint refuses such a client as invalid_client
        r = await http.post(
            base + "/token",
            data={"grant_type": "authorization_code", "code": "x", "client_id": https_loopback},
        )
        assert r.status_code == 401 and r.json()["error"] == "invalid_client"
        assert issuer.documents is not None and not issuer.documents.allow_loopback


async def test_malformed_urls_are_refused_before_any_fetch() -> None:
    docs = ClientMetadataDocuments(allowed_hosts=["clients.example.com", "*.apps.example"])
    for url, reason in [
        ("https://clients.example.com", "path"),
        ("https://clients.example.com/", "path"),
        ("https://clients.example.com/a/../b.json", "path"),
        ("https://clients.example.com/a/%2e%2E/b.json", "path"),
        ("https://clients.example.com/c.json#x", "fragment"),
        ("https://user:pw@clients.example.com/c.json", "credentials"),
        ("https://evil.example.net/c.json", "not trusted"),
        ("https://apps.example.evil/c.json", "not trusted"),
    ]:
        with pytest.raises(ClientMetadataError, match=reason):
            docs.check_url(url)
    docs.check_url("https://clients.example.com/c.json")
    docs.check_url("https://x.apps.example/c.json")


@pytest.mark.parametrize(
    "change, reason",
    [
        ({"redirect_uris": []}, "redirect_uris"),
        ({"redirect_uris": ["http://attacker.example/cb"]}, "redirect URI"),
        ({"redirect_uris": [REDIRECT + "#frag"]}, "redirect URI"),
        ({"client_secret": "s3cret"}, "secret"),
        ({"token_endpoint_auth_method": "client_secret_basic"}, "authenticate with none"),
        ({"grant_types": ["client_credentials"]}, "grant types"),
        ({"response_types": ["token"]}, "response_types"),
    ],
)
async def test_the_document_is_checked(change: dict[str, Any], reason: str) -> None:
    async with embedded(dev()) as (base, _, docs), httpx.AsyncClient() as http:
        url = docs.document("/c.json", **change)
        r = await authorize(http, base, url)
        assert r.status_code == 400 and reason in r.text, r.text


async def test_size_deadline_and_redirects() -> None:
    small = ClientMetadataDocuments(allow_loopback=True, max_bytes=512)
    async with embedded(small) as (base, issuer, docs), httpx.AsyncClient() as http:
        big = docs.document("/big.json", client_name="x" * 1000)
        r = await authorize(http, base, big)
        assert r.status_code == 400 and "larger than 512 bytes" in r.text
        # a same-origin redirect is followed; the document must still name the first URL
        first = docs.url("/moved.json")
        docs.serve("/moved.json", b"", status=302, headers={"location": "/new.json"})
        docs.serve("/new.json", {"client_id": first, "redirect_uris": [REDIRECT]})
        r = await authorize(http, base, first)
        assert r.status_code == 302 and "code=" in r.headers["location"]
        # to another host: refused, and the other host is never asked
        away = docs.url("/away.json")
        docs.serve("/away.json", b"", status=302, headers={"location": "http://localhost:1/x"})
        r = await authorize(http, base, away)
        assert r.status_code == 400 and "redirects to another host" in r.text
        # a document that does not come in time
        issuer.documents = ClientMetadataDocuments(allow_loopback=True, timeout=0.2)
        slow = docs.document("/slow.json")
        docs.delay = 2
        r = await authorize(http, base, slow)
        assert r.status_code == 400 and "deadline" in r.text


async def test_documents_are_cached_as_http_caching_says() -> None:
    now = [1000.0]
    cache = ClientMetadataDocuments(allow_loopback=True, clock=lambda: now[0])
    async with embedded(cache) as (base, _, docs), httpx.AsyncClient() as http:
        kept = docs.document("/kept.json")  # max-age=60
        for _ in range(3):
            assert (await authorize(http, base, kept)).status_code == 302
        assert docs.hits == ["/kept.json"]
        now[0] += 61
        assert (await authorize(http, base, kept)).status_code == 302
        assert docs.hits == ["/kept.json"] * 2
        # changed at the source: seen once the cached copy runs out
        docs.document("/kept.json", redirect_uris=["http://127.0.0.1:4000/cb"])
        assert (await authorize(http, base, kept)).status_code == 302
        now[0] += 61
        assert (await authorize(http, base, kept)).status_code == 400
        url = docs.url("/never.json")
        docs.serve(
            "/never.json",
            {"client_id": url, "redirect_uris": [REDIRECT]},
            headers={"cache-control": "no-store"},
        )
        for _ in range(2):
            assert (await authorize(http, base, url)).status_code == 302
        assert docs.hits.count("/never.json") == 2
        # a refusal is remembered briefly (no fetch storm), then tried again
        missing = docs.url("/missing.json")
        for _ in range(3):
            assert (await authorize(http, base, missing)).status_code == 400
        assert docs.hits.count("/missing.json") == 1
        now[0] += 11
        assert (await authorize(http, base, missing)).status_code == 400
        assert docs.hits.count("/missing.json") == 2


async def test_a_code_is_redeemed_only_by_its_document_client() -> None:
    async with embedded(dev()) as (base, _, docs), httpx.AsyncClient() as http:
        mine, other = docs.document("/mine.json"), docs.document("/other.json")
        verifier, challenge = pkce()
        r = await http.get(
            base + "/authorize",
            params={
                "response_type": "code",
                "client_id": mine,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            },
        )
        code = parse_qs(urlsplit(r.headers["location"]).query)["code"][0]
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "code_verifier": verifier,
            "redirect_uri": REDIRECT,
        }
        r = await http.post(base + "/token", data={**form, "client_id": other})
        assert r.json()["error"] == "invalid_grant"
        verifier, challenge = pkce()
        r = await http.get(
            base + "/authorize",
            params={
                "response_type": "code",
                "client_id": mine,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge,
                "code_challenge_method": "S256",
            },
        )
        code = parse_qs(urlsplit(r.headers["location"]).query)["code"][0]
        form |= {"code": code, "code_verifier": verifier}
        r = await http.post(base + "/token", data={**form, "client_id": mine})
        assert r.status_code == 200 and r.json()["access_token"]


async def test_turned_off_a_url_is_an_unknown_client() -> None:
    async with embedded(False) as (base, _, docs), httpx.AsyncClient() as http:
        meta = (await http.get(base + "/.well-known/oauth-authorization-server")).json()
        assert "client_id_metadata_document_supported" not in meta
        r = await authorize(http, base, docs.document("/c.json"))
        assert r.status_code == 400 and "Unknown client" in r.text
        assert docs.hits == []


async def test_the_oauth_proxy_accepts_metadata_documents() -> None:
    """Through the proxy: mcpkit's client with its document, the provider's login, the
    consent page naming the document's host, mcpkit's tokens for the document client."""
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
    docs = Documents()
    async with (
        running(late) as base,
        running(idp.app()) as origin,
        running(docs.app()) as doc_origin,
        httpx.AsyncClient(timeout=30) as browser,
    ):
        idp.origin = origin
        idp.redirect_uri = base + "/oauth/callback"
        docs.base = doc_origin
        doc_url = docs.document("/client.json")
        proxy = OAuthProxy(
            base,
            client_id=idp.client_id,
            client_secret=idp.client_secret,
            issuer=idp.issuer,
            discovery_url=idp.issuer + "/.well-known/openid-configuration",
            scopes_supported=["mcp"],
            client_id_metadata_documents=dev(),
        )
        app = Server("proxied", auth=proxy)

        @app.tool()
        def whoami(ctx: Context) -> str:
            assert ctx.auth is not None
            return f"{ctx.auth.subject} {ctx.auth.client_id}"

        late.app = app.http_app()
        pages: list[str] = []

        async def login(url: str) -> str:
            import re

            r = await browser.get(url)
            r = await browser.get(r.headers["location"])  # the provider logs the user in
            page = await browser.get(r.headers["location"])  # the callback: consent page
            pages.append(page.text)
            ticket = re.search(r'name=ticket value="([^"]+)"', page.text)
            csrf = re.search(r'name=csrf value="([^"]+)"', page.text)
            assert ticket and csrf, page.text
            r = await browser.post(
                base + "/authorize/consent",
                data={"ticket": ticket.group(1), "csrf": csrf.group(1), "decision": "allow"},
            )
            return str(r.headers["location"])

        flow = OAuthClientAuth(
            base + "/mcp",
            authorization_handler=login,
            client_metadata_url=doc_url,
            client_metadata=ClientMetadata(client_name="Doc Client", redirect_uris=[REDIRECT]),
        )
        try:
            async with Client(base + "/mcp", auth=flow) as c:
                assert (await c.call_tool("whoami")).content[0].text == f"u-42 {doc_url}"
        finally:
            await late.app.aclose()
        host = urlsplit(doc_url).netloc
        assert f"Doc Client ({host}) wants access" in pages[0]
        # its redirect URI is on this computer: the page warns that anyone may claim the name
        assert "any program can claim this name there" in pages[0]
        store = proxy.server.store
        assert isinstance(store, MemoryAuthStore) and store.clients == {}


def signing_pair() -> tuple[Any, dict[str, Any]]:
    """A client's key: (its PrivateKey for mcpkit's client, its public JWK)."""
    from joserfc.jwk import ECKey

    from mcpkit.auth import PrivateKey

    key = ECKey.generate_key("P-256", private=True)
    pem = key.as_pem(private=True)
    public = {**key.as_dict(private=False), "kid": "k1", "use": "sig", "alg": "ES256"}
    return PrivateKey(pem.decode() if isinstance(pem, bytes) else pem, kid="k1"), public


async def test_mcpkit_client_with_a_document_and_private_key_jwt() -> None:
    """A document naming its public key (``jwks``, ``private_key_jwt``): mcpkit's client
    signs a client assertion at each token request, the server checks it with the key."""
    private, public = signing_pair()
    async with embedded(dev()) as (base, _, docs), httpx.AsyncClient() as http:
        doc_url = docs.document(
            "/signed.json", token_endpoint_auth_method="private_key_jwt", jwks={"keys": [public]}
        )
        meta = (await http.get(base + "/.well-known/oauth-authorization-server")).json()
        assert "private_key_jwt" in meta["token_endpoint_auth_methods_supported"]
        assert "ES256" in meta["token_endpoint_auth_signing_alg_values_supported"]
        tokens = MemoryTokenStore()
        flow = OAuthClientAuth(
            base + "/mcp",
            authorization_handler=headless_authorization_handler(),
            client_metadata_url=doc_url,
            client_metadata=ClientMetadata(redirect_uris=[REDIRECT]),
            private_key=private,
            store=tokens,
        )
        async with Client(base + "/mcp", auth=flow) as c:
            assert (await c.call_tool("whoami")).content[0].text == f"ada {doc_url}"
            held = await tokens.get_token(base + "/mcp")
            assert held is not None
            held.expires_at = 0  # a refresh: another assertion
            assert (await c.call_tool("whoami")).content[0].text == f"ada {doc_url}"


async def test_client_assertions_are_checked() -> None:
    from mcpkit.auth.jwt import client_assertion

    private, public = signing_pair()
    other, _ = signing_pair()
    async with embedded(dev()) as (base, _, docs), httpx.AsyncClient() as http:
        doc_url = docs.document(
            "/signed.json", token_endpoint_auth_method="private_key_jwt", jwks={"keys": [public]}
        )

        async def code() -> tuple[str, str]:
            verifier, challenge = pkce()
            r = await http.get(
                base + "/authorize",
                params={
                    "response_type": "code",
                    "client_id": doc_url,
                    "redirect_uri": REDIRECT,
                    "code_challenge": challenge,
                    "code_challenge_method": "S256",
                },
            )
            return parse_qs(urlsplit(r.headers["location"]).query)["code"][0], verifier

        async def redeem(**auth: str) -> httpx.Response:
            got, verifier = await code()
            form = {
                "grant_type": "authorization_code",
                "code": got,
                "code_verifier": verifier,
                "redirect_uri": REDIRECT,
                "client_id": doc_url,
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            }
            return await http.post(base + "/token", data={**form, **auth})

        good = client_assertion(private, doc_url, base)
        r = await redeem(client_assertion=good)
        assert r.status_code == 200, r.text
        for assertion, why in [
            (good, "already used"),  # a replay
            (client_assertion(other, doc_url, base), "not signed by a key of the client"),
            (client_assertion(private, doc_url, "https://other.example"), "another server"),
            (client_assertion(private, docs.url("/x.json"), base), "names another client"),
            (client_assertion(private, doc_url, base, lifetime=3600), "lives too long"),
        ]:
            r = await redeem(client_assertion=assertion)
            assert r.status_code == 401 and why in r.json()["error_description"], r.text
        # the token endpoint's own URL is a valid audience too
        r = await redeem(client_assertion=client_assertion(private, doc_url, base + "/token"))
        assert r.status_code == 200, r.text
        # without an assertion, a private_key_jwt client is refused
        got, verifier = await code()
        r = await http.post(
            base + "/token",
            data={
                "grant_type": "authorization_code",
                "code": got,
                "code_verifier": verifier,
                "redirect_uri": REDIRECT,
                "client_id": doc_url,
            },
        )
        assert r.status_code == 401 and "private_key_jwt" in r.json()["error_description"]
        # a document with private key material, or without keys, is refused
        leaked = docs.document(
            "/leak.json",
            token_endpoint_auth_method="private_key_jwt",
            jwks={"keys": [{**public, "d": "AAAA"}]},
        )
        r = await authorize(http, base, leaked)
        assert r.status_code == 400 and "public keys only" in r.text
        keyless = docs.document("/keyless.json", token_endpoint_auth_method="private_key_jwt")
        r = await authorize(http, base, keyless)
        assert r.status_code == 400 and "needs its keys as jwks" in r.text
