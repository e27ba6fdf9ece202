"""Scope selection beyond the first choice: ``offline_access`` (only where the authorization
server lists it, and what happens to refresh tokens), step-up to the union of the requested,
granted and required scopes, and ``application_type`` in every registration."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcpkit.auth import ClientMetadata, OAuthClientAuth, headless_authorization_handler
from mcpkit.auth.discovery import parse_www_authenticate
from mcpkit.client import Client
from mcpkit.transports.http import running
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


def requested(mock: MockAS) -> list[str | None]:
    return [e["query"].get("scope") for e in mock.events("authorize")]


# -- offline_access ---------------------------------------------------------------------------


async def test_offline_access_added_where_advertised(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    """auth/offline-access-scope: the AS lists offline_access, the PRM does not."""
    mock = MockAS(scopes_supported=["mcp:basic", "offline_access"])
    env: Env = await oauth_env(mock, scopes_supported=["mcp:basic"])
    auth = oauth(env)
    assert await whoami(env, auth, wire) == "client-1 mcp:basic offline_access"
    assert requested(mock) == ["mcp:basic offline_access"]
    assert "refresh_token" in mock.events("register")[0]["body"]["grant_types"]
    assert auth.token is not None and auth.token.refresh_token
    # OpenID Connect Core s11: asking for a refresh token asks for consent (as the official
    # SDK's client does), the parameters in the SDK's order
    assert list(mock.events("authorize")[0]["query"].items())[-2:] == [
        ("scope", "mcp:basic offline_access"),
        ("prompt", "consent"),
    ]
    assert list(mock.events("authorize")[0]["query"])[:7] == [
        "response_type",
        "client_id",
        "redirect_uri",
        "state",
        "code_challenge",
        "code_challenge_method",
        "resource",
    ]


@pytest.mark.parametrize(
    ("as_scopes", "prm_scopes", "expected"),
    [
        # auth/offline-access-not-supported: listed nowhere, so never asked for
        (["mcp:basic", "mcp:read"], ["mcp:basic", "mcp:read"], "mcp:basic mcp:read"),
        (None, ["mcp:basic"], "mcp:basic"),
        # the resource lists it but the AS does not: it is left out
        (["mcp:basic"], ["mcp:basic", "offline_access"], "mcp:basic"),
        (None, ["offline_access"], None),
    ],
)
async def test_offline_access_not_requested_elsewhere(
    oauth_env: Make,
    wire: Callable[..., WireChecker],
    as_scopes: list[str] | None,
    prm_scopes: list[str],
    expected: str | None,
) -> None:
    mock = MockAS(scopes_supported=as_scopes)
    env: Env = await oauth_env(mock, scopes_supported=prm_scopes)
    await whoami(env, oauth(env), wire)
    assert requested(mock) == [expected]
    assert "prompt" not in mock.events("authorize")[0]["query"]


async def test_offline_access_needs_scopes_and_the_refresh_grant(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    # no scope at all: the parameter stays omitted rather than becoming "offline_access"
    mock = MockAS(scopes_supported=["offline_access"])
    env: Env = await oauth_env(mock)
    await whoami(env, oauth(env), wire)
    assert requested(mock) == [None]
    # a client that does not register the refresh_token grant has no use for it
    mock2 = MockAS(scopes_supported=["mcp:basic", "offline_access"])
    env2: Env = await oauth_env(mock2, scopes_supported=["mcp:basic"])
    meta = ClientMetadata(grant_types=["authorization_code"])
    await whoami(env2, oauth(env2, client_metadata=meta), wire)
    assert requested(mock2) == ["mcp:basic"]
    assert mock2.events("register")[0]["body"]["grant_types"] == ["authorization_code"]


async def test_no_refresh_token_issued_means_authorizing_again(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    """A client must not count on a refresh token: without one an expired token leads to a
    new authorization (with the same scopes), never to a refresh request."""
    mock = MockAS(scopes_supported=["mcp:basic", "offline_access"], issue_refresh=False)
    mock.expires_in = 10  # inside the refresh margin: expired at once
    env: Env = await oauth_env(mock, scopes_supported=["mcp:basic"])
    auth = oauth(env)
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        await client.call_tool("whoami", {})
        for grant in list(mock.grants.values()):
            grant.expires_at = 0  # the server stops accepting it too
        await client.call_tool("whoami", {})
    grants = [e["form"]["grant_type"] for e in mock.events("token")]
    assert grants == ["authorization_code", "authorization_code"]
    assert requested(mock) == ["mcp:basic offline_access"] * 2


async def test_refresh_keeps_the_refresh_token_when_not_rotated(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    mock = MockAS(expires_in=10)
    env: Env = await oauth_env(mock)
    original = mock._issue

    def no_rotation(cid: str, scope: str | None, resource: str | None) -> dict[str, Any]:
        body = original(cid, scope, resource)
        if mock.events("token")[-1]["form"]["grant_type"] == "refresh_token":
            body.pop("refresh_token", None)  # the grant keeps the old refresh token
            grant = mock.grants[body["access_token"]]
            grant.refresh = mock.events("token")[-1]["form"]["refresh_token"]
        return body

    mock._issue = no_rotation  # type: ignore[method-assign,assignment]
    auth = oauth(env)
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        await client.call_tool("whoami", {})
        first = auth.token
        assert first is not None and first.refresh_token
        await client.call_tool("whoami", {})
        await client.call_tool("whoami", {})
    refreshes = [
        e["form"]["refresh_token"]
        for e in mock.events("token")
        if e["form"]["grant_type"] == "refresh_token"
    ]
    assert len(refreshes) >= 2 and set(refreshes) == {first.refresh_token}
    assert len(mock.events("authorize")) == 1


# -- step-up ----------------------------------------------------------------------------------


@pytest.fixture
async def strict_rs() -> AsyncIterator[Any]:
    """A resource server like the suite's step-up one: ``tools/list`` needs mcp:basic (401
    challenge), ``tools/call`` mcp:write (403 challenge naming only mcp:write)."""
    started: list[Any] = []

    async def make(mock: MockAS) -> str:
        base = ""

        async def prm(request: Request) -> Response:
            return JSONResponse({"resource": base + "/mcp", "authorization_servers": [mock.issuer]})

        async def mcp(request: Request) -> Response:
            body = orjson.loads(await request.body())
            meta = f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
            header = request.headers.get("authorization", "")
            token = mock.verify(header.removeprefix("Bearer ")) if header else None
            if token is None or "mcp:basic" not in token.scopes:
                challenge = f'Bearer error="invalid_token", scope="mcp:basic", {meta}'
                return Response(status_code=401, headers={"www-authenticate": challenge})
            if body["method"] == "tools/call" and "mcp:write" not in token.scopes:
                challenge = f'Bearer error="insufficient_scope", scope="mcp:write", {meta}'
                return Response(status_code=403, headers={"www-authenticate": challenge})
            return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": {}})

        app = Starlette(
            routes=[
                Route("/.well-known/oauth-protected-resource/mcp", prm),
                Route("/mcp", mcp, methods=["POST"]),
            ]
        )
        cm = running(app)
        base = await cm.__aenter__()
        started.append(cm)
        return base + "/mcp"

    yield make
    for cm in started:
        await cm.__aexit__(None, None, None)


async def test_step_up_requests_the_union(oauth_env: Make, strict_rs: Make) -> None:
    """The 403 names only the missing scope; the re-authorization still asks for what was
    requested (mcp:basic) and what was granted besides (mcp:extra)."""
    env: Env = await oauth_env(MockAS(extra_scopes=["mcp:extra"]))
    url = await strict_rs(env.mock)
    auth = OAuthClientAuth(url, authorization_handler=headless_authorization_handler())
    async with httpx.AsyncClient(auth=auth, timeout=10) as http:
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert r.status_code == 200
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call"})
        assert r.status_code == 200
    assert requested(env.mock) == ["mcp:basic", "mcp:basic mcp:extra mcp:write"]
    assert auth.token is not None
    assert auth.token.scopes == {"mcp:basic", "mcp:extra", "mcp:write"}


async def test_resource_server_never_challenges_for_offline_access(oauth_env: Make) -> None:
    env: Env = await oauth_env(
        MockAS(extra_scopes=["offline_access"]), scopes_for=write_needs_scope
    )
    auth = oauth(env)
    async with httpx.AsyncClient(auth=auth, timeout=10) as http:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        headers = {"accept": "application/json, text/event-stream"}
        assert (await http.post(env.url, json=init, headers=headers)).status_code == 200
        assert auth.token is not None and "offline_access" in auth.token.scopes
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "write"}}
    async with httpx.AsyncClient(timeout=10) as http:
        r = await http.post(
            env.url,
            json=call,
            headers=headers | {"authorization": f"Bearer {auth.token.access_token}"},
        )
    assert r.status_code == 403
    [challenge] = parse_www_authenticate(r.headers["www-authenticate"])
    assert challenge.scope is not None and "offline_access" not in challenge.scope.split()
    assert "mcp:write" in challenge.scope.split()


# -- application_type -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("redirect_uris", "application_type"),
    [
        (["http://localhost:3000/callback"], "native"),
        (["http://127.0.0.1:8123/cb", "http://[::1]:8123/cb"], "native"),
        (["https://app.example.com/callback"], "web"),
        (["http://localhost:3000/cb", "https://app.example.com/cb"], "web"),
    ],
)
async def test_application_type_in_every_registration(
    oauth_env: Make,
    wire: Callable[..., WireChecker],
    redirect_uris: list[str],
    application_type: str,
) -> None:
    env: Env = await oauth_env()
    meta = ClientMetadata(redirect_uris=redirect_uris)
    await whoami(env, oauth(env, client_metadata=meta), wire)
    [registration] = env.mock.events("register")
    assert registration["body"]["application_type"] == application_type
    assert registration["body"]["redirect_uris"] == redirect_uris


async def test_application_type_given_explicitly(
    oauth_env: Make, wire: Callable[..., WireChecker]
) -> None:
    env: Env = await oauth_env()
    meta = ClientMetadata(application_type="web")
    await whoami(env, oauth(env, client_metadata=meta), wire)
    assert env.mock.events("register")[0]["body"]["application_type"] == "web"
    with pytest.raises(ValueError, match="native"):
        ClientMetadata(application_type="desktop")
    # a custom scheme (for a client that allows one) is a native application's redirect URI
    app = ClientMetadata(redirect_uris=["com.example.app:/oauth2redirect"])
    assert app.to_wire(None)["application_type"] == "native"
