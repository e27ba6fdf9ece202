"""Pure pieces of the OAuth machinery: challenge parsing, discovery URLs, resource matching,
PKCE, client authentication encoding and the token stores."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from mcpkit.auth import ClientInfo, MemoryTokenStore, OAuthToken, SQLiteTokenStore, TokenStore
from mcpkit.auth.client import AuthorizationResponse
from mcpkit.auth.discovery import (
    as_metadata_urls,
    canonical_resource,
    parse_www_authenticate,
    prm_urls,
    resource_matches,
)
from mcpkit.auth.errors import OAuthError
from mcpkit.auth.pkce import PKCE, s256
from mcpkit.auth.registration import apply_client_auth


def test_parse_www_authenticate() -> None:
    [c] = parse_www_authenticate(
        'Bearer error="invalid_token", error_description="Missing, \\"quoted\\"",'
        ' scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"'
    )
    assert c.scheme == "bearer" and c.error == "invalid_token"
    assert c.params["error_description"] == 'Missing, "quoted"'
    assert c.scope == "a b" and c.resource_metadata.startswith("https://x/")  # type: ignore[union-attr]
    many = parse_www_authenticate(['Basic realm="r", Bearer scope=s', "DPoP algs=ES256"])
    assert [(c.scheme, c.params) for c in many] == [
        ("basic", {"realm": "r"}),
        ("bearer", {"scope": "s"}),
        ("dpop", {"algs": "ES256"}),
    ]
    assert [c.scheme for c in parse_www_authenticate("Bearer abc.def==, Basic")] == [
        "bearer",
        "basic",
    ]
    assert parse_www_authenticate('Bearer scope=""')[0].scope is None
    assert parse_www_authenticate("") == []


def test_discovery_urls() -> None:
    assert prm_urls("https://h.example/public/mcp") == [
        "https://h.example/.well-known/oauth-protected-resource/public/mcp",
        "https://h.example/.well-known/oauth-protected-resource",
    ]
    assert prm_urls("https://h.example/") == [
        "https://h.example/.well-known/oauth-protected-resource"
    ]
    assert as_metadata_urls("https://auth.example.com/tenant1") == [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]
    assert as_metadata_urls("https://auth.example.com") == [
        "https://auth.example.com/.well-known/oauth-authorization-server",
        "https://auth.example.com/.well-known/openid-configuration",
    ]
    assert canonical_resource("HTTPS://Mcp.Example.com/#frag") == "https://mcp.example.com"


@pytest.mark.parametrize(
    ("resource", "ok"),
    [
        ("https://mcp.example.com", True),
        ("https://mcp.example.com/", True),
        ("https://MCP.example.com:443/mcp", True),
        ("https://mcp.example.com/mcp", True),
        ("https://mcp.example.com/mc", False),
        ("https://mcp.example.com/other", False),
        ("http://mcp.example.com/mcp", False),
        ("https://evil.example.com/mcp", False),
        ("https://mcp.example.com/mcp#x", False),
        ("not a url", False),
        ("https://mcp.example.com/mcp/extra", False),
        ("https://mcp.example.com:8443/mcp", False),
    ],
)
def test_resource_matches(resource: str, ok: bool) -> None:
    assert resource_matches(resource, "https://mcp.example.com/mcp") is ok


def test_pkce() -> None:
    # RFC 7636 appendix B
    assert s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == (
        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )
    a, b = PKCE.generate(), PKCE.generate()
    assert a.verifier != b.verifier and 43 <= len(a.verifier) <= 128
    assert a.challenge == s256(a.verifier) and a.method == "S256"


def test_authorization_response() -> None:
    r = AuthorizationResponse.from_redirect(
        "http://localhost/cb?code=c&state=s&iss=https%3A%2F%2Fa"
    )
    assert (r.code, r.state, r.iss) == ("c", "s", "https://a")
    with pytest.raises(OAuthError, match="neither a code nor an error"):
        AuthorizationResponse.from_redirect("http://localhost/cb?state=s")
    # an error response is parsed, not raised: the client checks its iss and state first
    e = AuthorizationResponse.from_redirect(
        "http://localhost/cb?error=access_denied&error_description=no&state=s&iss=https%3A%2F%2Fa"
    )
    assert (e.code, e.error, e.error_description, e.iss) == ("", "access_denied", "no", "https://a")
    # the iss value is form-decoded and nothing more: no normalisation of any kind
    raw = AuthorizationResponse.from_redirect(
        "http://localhost/cb?code=c&iss=HTTPS%3A%2F%2FA%3A443%2F%7Ex%2F"
    )
    assert raw.iss == "HTTPS://A:443/~x/"


def test_client_secret_basic_encoding() -> None:
    form: dict[str, str] = {}
    headers: dict[str, str] = {}
    client = ClientInfo("id:1", "p@ss word")
    apply_client_auth(form, headers, client, "client_secret_basic", audience="x")
    raw = base64.b64decode(headers["authorization"].removeprefix("Basic ")).decode()
    assert raw == "id%3A1:p%40ss%20word" and form == {"client_id": "id:1"}
    with pytest.raises(OAuthError):
        apply_client_auth({}, {}, ClientInfo("id"), "client_secret_post", audience="x")
    with pytest.raises(OAuthError):
        apply_client_auth({}, {}, ClientInfo("id"), "tls_client_auth", audience="x")


def test_token_expiry() -> None:
    assert not OAuthToken("a").expired()
    assert OAuthToken("a", expires_at=100).expired(now=80)  # within the refresh margin
    assert not OAuthToken("a", expires_at=1000).expired(now=80)
    assert OAuthToken("a", scope="x y").scopes == {"x", "y"}
    assert not ClientInfo("c", client_secret_expires_at=10).usable(now=11)
    assert ClientInfo("c", client_secret_expires_at=0).usable(now=11)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_token_stores(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "tokens.db"
    store: TokenStore = MemoryTokenStore() if kind == "memory" else SQLiteTokenStore(path)
    token = OAuthToken("at", expires_at=5.0, refresh_token="rt", scope="s", issuer="https://as")
    client = ClientInfo("cid", "secret", "client_secret_post", "https://as", metadata={"a": 1})
    assert await store.get_token("r") is None and await store.get_client("https://as") is None
    await store.set_token("r", token)
    await store.set_client("https://as", client)
    assert await store.get_token("r") == token
    assert await store.get_client("https://as") == client
    if isinstance(store, SQLiteTokenStore):
        store.close()
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        store = SQLiteTokenStore(path)  # survives a restart
        assert await store.get_token("r") == token
    await store.set_token("r", None)
    await store.set_client("https://as", None)
    assert await store.get_token("r") is None and await store.get_client("https://as") is None
    if isinstance(store, SQLiteTokenStore):
        store.close()


async def test_transport_failure_is_named() -> None:
    """An HTTP failure whose text is empty (a timeout) still says what happened."""
    import httpx

    from mcpkit.auth.discovery import AuthorizationServerMetadata
    from mcpkit.auth.registration import ClientMetadata, register_client

    def time_out(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("", request=request)

    meta = AuthorizationServerMetadata(
        "https://as/.well-known/oauth-authorization-server",
        "https://as",
        {"issuer": "https://as", "registration_endpoint": "https://as/register"},
    )
    async with httpx.AsyncClient(transport=httpx.MockTransport(time_out)) as http:
        with pytest.raises(OAuthError, match="failed: ReadTimeout"):
            await register_client(http, meta, ClientMetadata())


async def test_token_request_goes_again_once_when_its_connection_was_dropped() -> None:
    """A kept-alive connection closed by the server as the token request goes out on it
    (ReadError): the request is made once more, with a fresh client assertion; a second
    drop is the error."""
    import httpx

    from mcpkit.auth import OAuthClientAuth
    from mcpkit.auth.discovery import AuthorizationServerMetadata
    from mcpkit.auth.tokens import ClientInfo
    from mcpkit.fetch import FetchPolicy

    seen: list[dict[str, str]] = []
    drops = {"left": 1}

    def token(request: httpx.Request) -> httpx.Response:
        seen.append(dict(httpx.QueryParams(request.content.decode())))
        if drops["left"]:
            drops["left"] -= 1
            raise httpx.ReadError("", request=request)
        return httpx.Response(200, json={"access_token": "t", "token_type": "Bearer"})

    meta = AuthorizationServerMetadata(
        "https://as/.well-known/oauth-authorization-server",
        "https://as",
        {"issuer": "https://as", "token_endpoint": "https://as/token"},
    )

    async def public(host: str) -> list[str]:
        return ["93.184.215.14"]  # the made-up hosts as public addresses (no DNS)

    auth = OAuthClientAuth(
        "https://rs/mcp",
        grant_type="client_credentials",
        client_id="svc",
        client_secret="pw",
        fetch_policy=FetchPolicy(resolver=public),
    )
    client = ClientInfo("svc", "pw", "client_secret_post", source="preregistered")
    form = {"grant_type": "client_credentials"}
    async with httpx.AsyncClient(transport=httpx.MockTransport(token)) as http:
        got = await auth._token_request(http, meta, client, form, None)
        assert got.access_token == "t" and len(seen) == 2
        assert seen[0] == seen[1] == {**form, "client_id": "svc", "client_secret": "pw"}
        drops["left"] = 2
        with pytest.raises(OAuthError, match="failed: ReadError"):
            await auth._token_request(http, meta, client, form, None)


async def test_a_state_that_does_not_match_is_named() -> None:
    """The front channel refuses a redirect with another ``state`` (the ``OAuthError``'s code
    ``state_mismatch``, so a caller can tell it from the server's refusals) before it looks
    at the code."""
    from urllib.parse import parse_qsl, urlsplit

    from mcpkit.auth.authorization_code import authorization_code_form
    from mcpkit.auth.discovery import AuthorizationServerMetadata

    meta = AuthorizationServerMetadata(
        "https://as.example/.well-known/oauth-authorization-server",
        "https://as.example",
        {
            "issuer": "https://as.example",
            "authorization_endpoint": "https://as.example/authorize",
            "code_challenge_methods_supported": ["S256"],
        },
    )
    sent: list[str] = []

    async def handler(url: str) -> AuthorizationResponse:
        sent.append(dict(parse_qsl(urlsplit(url).query))["state"])
        return AuthorizationResponse("code-1", state="forged")

    with pytest.raises(OAuthError, match="state") as caught:
        await authorization_code_form(
            handler,
            meta,
            ClientInfo("c1"),
            scope="mcp",
            redirect_uri="http://localhost:3030/callback",
            resource="https://rs.example/mcp",
        )
    assert caught.value.error == "state_mismatch"
    assert sent and sent[0] != "forged"
