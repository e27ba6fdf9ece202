"""The OAuth client against a mock authorization server and a protected mcpkit Server: every
registration path, scope selection, step-up, refresh, and the security refusals."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import orjson
import pytest

from mcpkit.auth import (
    ClientMetadata,
    MemoryTokenStore,
    OAuthClientAuth,
    OAuthError,
    PrivateKey,
    headless_authorization_handler,
)
from mcpkit.auth.errors import ResourceMismatchError
from mcpkit.client import Client
from mcpkit.errors import McpError
from tests.auth.conftest import Env, write_needs_scope
from tests.auth.mock_as import MockAS
from tests.wire import WireChecker

Make = Callable[..., Any]


def oauth(env: Env, **options: Any) -> OAuthClientAuth:
    options.setdefault("authorization_handler", headless_authorization_handler())
    return OAuthClientAuth(env.url, **options)


async def whoami(env: Env, auth: OAuthClientAuth, wire: Callable[..., WireChecker]) -> str:
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        result = await client.call_tool("whoami", {})
        return str(result.content[0].text)  # type: ignore[union-attr]


async def test_dcr_pkce_and_resource(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    env: Env = await oauth_env(scopes_supported=["mcp:basic", "mcp:read"])
    auth = oauth(env)
    assert await whoami(env, auth, wire) == "client-1 mcp:basic mcp:read"
    mock = env.mock
    [reg] = mock.events("register")
    assert reg["body"]["redirect_uris"] == ["http://localhost:3000/callback"]
    assert reg["body"]["grant_types"] == ["authorization_code", "refresh_token"]
    assert reg["body"]["application_type"] == "native"
    [authz] = mock.events("authorize")
    q = authz["query"]
    assert q["code_challenge_method"] == "S256" and len(q["code_challenge"]) == 43
    assert q["resource"] == env.url  # the PRM resource, verbatim
    assert q["scope"] == "mcp:basic mcp:read"  # all of scopes_supported (no scope challenged)
    [tok] = mock.events("token")
    assert tok["form"]["resource"] == env.url and tok["method"] == "none"
    assert tok["form"]["code_verifier"]
    assert auth.client_info is not None and auth.client_info.source == "dcr"


async def test_scope_from_challenge_and_omitted(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env(required_scopes=["mcp:basic"], scopes_supported=["mcp:other"])
    assert await whoami(env, oauth(env), wire) == "client-1 mcp:basic"
    assert env.mock.events("authorize")[0]["query"]["scope"] == "mcp:basic"

    bare: Env = await oauth_env()
    assert await whoami(bare, oauth(bare), wire) == "client-1"
    assert "scope" not in bare.mock.events("authorize")[0]["query"]


async def test_metadata_locations(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    """Root PRM (resource without path), an issuer with a path and OIDC metadata appended to
    it: the resource parameter is the PRM value byte for byte (no trailing slash added)."""
    env: Env = await oauth_env(
        MockAS(prefix="/tenant1", metadata_kind="oidc-append"), root_resource=True
    )
    auth = oauth(env)
    assert await whoami(env, auth, wire) == "client-1"
    assert env.mock.events("authorize")[0]["query"]["resource"] == env.rs_base
    assert [e["path"] for e in env.mock.events("metadata")] == [
        "/tenant1/.well-known/openid-configuration"
    ]

    oidc: Env = await oauth_env(MockAS(prefix="/t2", metadata_kind="oidc-insert"))
    assert await whoami(oidc, oauth(oidc), wire) == "client-1"


async def test_cimd_preferred_when_supported(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env(MockAS(cimd=True))
    url = "https://app.example.com/client.json"
    auth = oauth(env, client_metadata_url=url)
    assert await whoami(env, auth, wire) == url
    assert env.mock.events("register") == []
    assert env.mock.events("authorize")[0]["query"]["client_id"] == url


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_preregistered_secret(
    oauth_env: Make, wire: Callable[..., WireChecker], method: str
) -> None:
    mock = MockAS(dcr=False, auth_methods=[method], clients={"pre:1": ("s&cret", method)})
    env: Env = await oauth_env(mock)
    assert await whoami(env, oauth(env, client_id="pre:1", client_secret="s&cret"), wire) == "pre:1"
    [tok] = mock.events("token")
    assert tok["method"] == method
    if method == "client_secret_basic":
        assert "client_secret" not in tok["form"]
    else:
        assert tok["authorization"] is None


async def test_dcr_confidential_client(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    mock = MockAS(auth_methods=["client_secret_post"])
    env: Env = await oauth_env(mock)
    assert await whoami(env, oauth(env), wire) == "client-1"
    assert mock.events("register")[0]["body"]["token_endpoint_auth_method"] == "client_secret_post"
    assert mock.events("token")[0]["form"]["client_secret"] == "secret-client-1"


@pytest.mark.parametrize(
    "advertised",
    [["client_secret_post", "client_secret_basic"], ["client_secret_basic", "client_secret_post"]],
)
async def test_dcr_follows_the_servers_method_order(
    oauth_env: Make, wire: Callable[..., WireChecker], advertised: list[str]
) -> None:
    """The first secret method the authorization server lists is the one registered and
    used; with Basic the form names the client too (RFC 6749 s3.2.1)."""
    mock = MockAS(auth_methods=advertised)
    env: Env = await oauth_env(mock)
    assert await whoami(env, oauth(env), wire) == "client-1"
    assert mock.events("register")[0]["body"]["token_endpoint_auth_method"] == advertised[0]
    [tok] = mock.events("token")
    assert tok["method"] == advertised[0] and tok["form"]["client_id"] == "client-1"
    if advertised[0] == "client_secret_basic":
        assert "client_secret" not in tok["form"] and tok["authorization"].startswith("Basic ")
    else:
        assert tok["form"]["client_secret"] == "secret-client-1" and tok["authorization"] is None


async def test_step_up_on_insufficient_scope(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env(
        required_scopes=["mcp:basic"], scopes_for=write_needs_scope, scopes_supported=["mcp:basic"]
    )
    auth = oauth(env)
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        result = await client.call_tool("write", {"text": "x"})
        assert result.content[0].text == "wrote x"  # type: ignore[union-attr]
    scopes = [e["query"].get("scope") for e in env.mock.events("authorize")]
    assert scopes == ["mcp:basic", "mcp:basic mcp:write"]  # union on re-authorization


async def test_step_up_retry_budget(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    """A server that never accepts the granted scope: at most 1 + max_step_up attempts."""
    env: Env = await oauth_env(scopes_for=write_needs_scope)
    env.mock.scopes_supported = None
    original = env.mock._issue

    def never_write(cid: str, scope: str | None, resource: str | None) -> dict[str, Any]:
        scope = " ".join(s for s in (scope or "").split() if s != "mcp:write") or None
        return original(cid, scope, resource)

    env.mock._issue = never_write  # type: ignore[method-assign,assignment]
    async with Client(env.url, auth=oauth(env), tracer=wire()) as client:
        with pytest.raises(McpError, match="403"):
            await client.call_tool("write", {"text": "x"})
        with pytest.raises(McpError, match="403"):
            await client.call_tool("write", {"text": "y"})  # the budget is spent: no new try
    assert len(env.mock.events("authorize")) == 3


async def test_refresh_when_expired(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    env: Env = await oauth_env(MockAS(expires_in=10))  # inside the 30 s refresh margin
    store = MemoryTokenStore()
    auth = oauth(env, store=store)
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        await client.call_tool("whoami", {})
        first = auth.token
        await client.call_tool("whoami", {})
        assert auth.token is not first
    grants = [e["form"]["grant_type"] for e in env.mock.events("token")]
    assert grants[0] == "authorization_code" and "refresh_token" in grants
    assert len(env.mock.events("authorize")) == 1
    refreshed = [e for e in env.mock.events("token") if e["form"]["grant_type"] == "refresh_token"]
    assert all(e["form"]["resource"] == env.url for e in refreshed)
    assert await store.get_token(env.url) is auth.token


async def test_expired_stored_token_is_refreshed_after_401(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    """A new client loads an expired token from the store (no metadata known yet): the
    server's 401 leads to discovery and a refresh, not to a new authorization."""
    env: Env = await oauth_env()
    store = MemoryTokenStore()
    await whoami(env, oauth(env, store=store), wire)
    stored = await store.get_token(env.url)
    assert stored is not None and stored.refresh_token
    stored.expires_at = 1.0
    env.mock.grants[stored.access_token].expires_at = 1.0
    assert await whoami(env, oauth(env, store=store), wire) == "client-1"
    grants = [e["form"]["grant_type"] for e in env.mock.events("token")]
    assert grants == ["authorization_code", "refresh_token"]
    assert len(env.mock.events("register")) == 1  # the registration came from the store too


async def test_stored_tokens_are_reused(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    env: Env = await oauth_env()
    store = MemoryTokenStore()
    await whoami(env, oauth(env, store=store), wire)
    await whoami(env, oauth(env, store=store), wire)
    assert len(env.mock.events("authorize")) == 1


@pytest.mark.parametrize(
    ("mock", "message"),
    [
        (MockAS(iss_mode="wrong"), "not"),
        (MockAS(iss_mode="slash"), "not"),
        (MockAS(iss_mode="omit"), "lacks the iss parameter"),
        (MockAS(iss_supported=False, iss_mode="wrong"), "not"),
        (MockAS(metadata_issuer="https://attacker.example.com"), "refusing"),
        (MockAS(pkce=False), "PKCE"),
        (MockAS(dcr=False), "No client identity"),
        (MockAS(token_endpoint="http://as.example.com/token"), "not HTTPS"),
    ],
)
async def test_refusals(
    oauth_env: Make, wire: Callable[..., WireChecker], mock: MockAS, message: str
) -> None:
    env: Env = await oauth_env(mock)
    with pytest.raises(McpError, match=message):
        await whoami(env, oauth(env), wire)
    assert env.mock.events("token") == []


async def test_iss_absent_and_not_advertised_is_fine(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env(MockAS(iss_supported=False, iss_mode="omit"))
    assert await whoami(env, oauth(env), wire) == "client-1"


async def test_resource_mismatch_stops_before_authorize(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env(metadata={"resource": "https://evil.example.com/mcp"})
    with pytest.raises(McpError, match=r"evil\.example\.com"):
        await whoami(env, oauth(env), wire)
    assert env.mock.events("authorize") == [] and env.mock.events("register") == []


@pytest.mark.parametrize(
    "resource",
    ["https://evil.example.com/mcp", "{base}/other", "{base}/mcp/deeper", "{base}/mcp#f"],
)
async def test_resource_mismatch_error(oauth_env: Make, resource: str) -> None:
    """auth/resource-mismatch: a PRM ``resource`` that does not identify the server URL (by
    origin and path prefix) is refused with ResourceMismatchError, before any request to the
    authorization server."""
    env: Env = await oauth_env()
    env.rs.metadata["resource"] = resource.format(base=env.rs_base)
    env.rs._metadata_body = orjson.dumps(env.rs.metadata)
    auth = oauth(env)
    async with httpx.AsyncClient(auth=auth, timeout=10) as http:
        with pytest.raises(ResourceMismatchError) as caught:
            await http.post(env.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert caught.value.resource == env.rs.metadata["resource"]
    assert caught.value.server_url == env.url and caught.value.error == "resource_mismatch"
    assert env.mock.log == []


async def test_state_mismatch_is_refused(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    env: Env = await oauth_env()
    real = headless_authorization_handler()

    async def tamper(url: str) -> str:
        return str(await real(url)).replace("state=", "state=x")

    with pytest.raises(McpError, match="state"):
        await whoami(env, oauth(env, authorization_handler=tamper), wire)
    assert env.mock.events("token") == []

    async def non_ascii(url: str) -> str:
        return str(await real(url)).replace("state=", "state=%C3%A9")

    with pytest.raises(McpError, match="state"):
        await whoami(env, oauth(env, authorization_handler=non_ascii), wire)
    assert env.mock.events("token") == []


async def test_authorization_error_redirect(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env()

    env.mock.authorize_error = "access_denied"
    with pytest.raises(McpError, match="access_denied"):
        await whoami(env, oauth(env), wire)
    # an error response without the advertised iss is discarded unread (RFC 9207)
    env.mock.iss_mode = "omit"
    with pytest.raises(McpError, match="lacks the iss") as caught:
        await whoami(env, oauth(env), wire)
    assert "access_denied" not in str(caught.value) and "said no" not in str(caught.value)


async def test_client_credentials_basic(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    mock = MockAS(dcr=False, auth_methods=["client_secret_basic"], clients={"svc": ("pw", "x")})
    env: Env = await oauth_env(mock, required_scopes=["mcp:basic"])
    auth = OAuthClientAuth(
        env.url, grant_type="client_credentials", client_id="svc", client_secret="pw"
    )
    assert await whoami(env, auth, wire) == "svc mcp:basic"
    [tok] = mock.events("token")
    assert tok["form"]["grant_type"] == "client_credentials"
    assert tok["form"]["resource"] == env.url and tok["form"]["scope"] == "mcp:basic"
    assert mock.events("authorize") == []


async def test_client_credentials_private_key_jwt(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    from joserfc.jwk import ECKey

    key = ECKey.generate_key("P-256")
    pem = key.as_pem(private=True).decode()
    mock = MockAS(dcr=False, auth_methods=["private_key_jwt"], clients={"svc": (None, "jwt")})
    mock.public_keys["svc"] = ECKey.import_key(key.as_dict(private=False))
    env: Env = await oauth_env(mock)
    auth = OAuthClientAuth(
        env.url, grant_type="client_credentials", client_id="svc", private_key=PrivateKey(pem)
    )
    assert await whoami(env, auth, wire) == "svc"
    [tok] = mock.events("token")
    assert tok["method"] == "private_key_jwt" and "client_secret" not in tok["form"]


async def test_token_only_for_the_server_origin(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env()
    auth = oauth(env)
    await whoami(env, auth, wire)
    assert auth.token is not None
    elsewhere = httpx.Request("GET", env.mock.base + "/anything")
    flow = auth.async_auth_flow(elsewhere)
    sent = await flow.__anext__()
    assert "authorization" not in sent.headers
    same = httpx.Request("POST", env.url)
    sent = await auth.async_auth_flow(same).__anext__()
    assert sent.headers["authorization"] == f"Bearer {auth.token.access_token}"
    # the AS never saw a bearer token either
    assert all(not (e.get("authorization") or "").startswith("Bearer") for e in env.mock.log)


async def test_authorization_server_migration(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    """The PRM switches to another AS and the old tokens stop working: the client
    re-registers there and never shows the first AS's client id to the second."""
    env: Env = await oauth_env()
    second = MockAS()
    from mcpkit.transports.http import running

    async with running(second.app()) as base:
        second.base = base
        second._seq = iter(range(100, 1000))  # other client ids than the first AS
        auth = oauth(env)
        async with Client(env.url, auth=auth, tracer=wire()) as client:
            await client.call_tool("whoami", {})
            env.rs.authorization_servers[:] = [second.issuer]
            env.rs.metadata["authorization_servers"] = [second.issuer]
            import orjson

            env.rs._metadata_body = orjson.dumps(env.rs.metadata)
            env.rs._verify = env.rs._adapt(second.verify)  # AS1 tokens are now refused
            result = await client.call_tool("whoami", {})
            assert result.content[0].text.startswith("client-1")  # type: ignore[union-attr]
        assert len(second.events("register")) == 1
        assert all(e["query"]["client_id"] != "client-1" for e in second.events("authorize"))


async def test_jwt_bearer_and_id_jag(oauth_env: Make, wire: Callable[..., WireChecker]) -> None:
    """SEP-990: the IdP exchanges the ID token for an ID-JAG, which the client presents to the
    authorization server with the JWT bearer grant (client_secret_basic)."""
    from urllib.parse import parse_qsl

    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from mcpkit.auth.enterprise import id_jag_assertion
    from mcpkit.transports.http import running

    seen: list[dict[str, str]] = []

    async def idp_token(request: Request) -> JSONResponse:
        form = dict(parse_qsl((await request.body()).decode()))
        seen.append(form)
        return JSONResponse({"access_token": "jag:" + form["subject_token"], "token_type": "N_A"})

    mock = MockAS(dcr=False, auth_methods=["client_secret_basic"], clients={"ent": ("pw", "b")})
    env: Env = await oauth_env(mock)
    async with running(Starlette(routes=[Route("/token", idp_token, methods=["POST"])])) as idp:
        auth = OAuthClientAuth(
            env.url,
            grant_type="jwt_bearer",
            client_id="ent",
            client_secret="pw",
            assertion=id_jag_assertion(idp + "/token", "id-token-1", idp_client_id="idp-c"),
        )
        assert await whoami(env, auth, wire) == "ent"
    assert seen[0]["audience"] == mock.issuer and seen[0]["resource"] == env.url
    assert seen[0]["requested_token_type"] == "urn:ietf:params:oauth:token-type:id-jag"
    [tok] = mock.events("token")
    assert tok["form"]["assertion"] == "jag:id-token-1" and tok["method"] == "client_secret_basic"

    static = OAuthClientAuth(
        env.url, grant_type="jwt_bearer", client_id="ent", client_secret="pw", assertion="bad"
    )
    with pytest.raises(McpError, match="invalid_grant"):
        await whoami(env, static, wire)


def test_authorization_code_needs_a_handler() -> None:
    with pytest.raises(ValueError):
        OAuthClientAuth("http://localhost/mcp")
    with pytest.raises(ValueError):
        OAuthClientAuth("http://localhost/mcp", grant_type="client_credentials")
    with pytest.raises(ValueError):
        OAuthClientAuth("http://localhost/mcp", grant_type="jwt_bearer", client_id="c")


async def test_no_client_metadata_redirect_is_web() -> None:
    meta = ClientMetadata(redirect_uris=["https://app.example.com/cb"])
    doc = meta.metadata_document("https://app.example.com/client.json")
    assert doc["client_id"] == "https://app.example.com/client.json"
    assert doc["redirect_uris"] == ["https://app.example.com/cb"]
    assert doc["token_endpoint_auth_method"] == "none"
    with pytest.raises(ValueError):
        meta.metadata_document("http://app.example.com/client.json")
    insecure = ClientMetadata(redirect_uris=["http://app.example.com/cb"])
    with pytest.raises(ValueError, match="HTTPS or loopback"):
        OAuthClientAuth(
            "https://x/mcp",
            authorization_handler=headless_authorization_handler(),
            client_metadata=insecure,
        )
    OAuthClientAuth(
        "https://x/mcp",
        authorization_handler=headless_authorization_handler(),
        client_metadata=insecure,
        allow_insecure_http=True,
    )
    assert meta.to_wire("none")["application_type"] == "web"
    assert ClientMetadata().to_wire(None)["application_type"] == "native"
    assert OAuthError("x", error="e").error == "e"
