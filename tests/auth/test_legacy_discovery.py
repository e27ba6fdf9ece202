"""``OAuthClientAuth(legacy_discovery=True)``: a server that publishes no protected resource
metadata (the 2025-03-26 revision) is its own authorization server: its origin's metadata, or
the default endpoints without it. Off by default, and never taken when the resource metadata
failed rather than was absent. And ``metadata_headers=`` on the metadata requests."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from mcpkit.auth import OAuthClientAuth
from mcpkit.auth.authorization_code import AuthorizationResponse
from mcpkit.auth.errors import OAuthError

BASE = "http://127.0.0.1:9"


class Legacy:
    """An MCP server at BASE/mcp that is its own authorization server, with no resource
    metadata: ``metadata`` says whether it publishes its authorization server metadata;
    ``prm_status`` is what the resource metadata URLs answer."""

    def __init__(self, *, metadata: bool = True, prm_status: int = 404) -> None:
        self.metadata = metadata
        self.prm_status = prm_status
        self.paths: list[str] = []
        self.forms: list[dict[str, str]] = []
        self.revisions: dict[str, str | None] = {}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.paths.append(path)
        if path.startswith("/.well-known/"):
            self.revisions[path] = request.headers.get("mcp-protocol-version")
        if path == "/mcp":
            if request.headers.get("authorization") == "Bearer t1":
                return httpx.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": {}})
            return httpx.Response(401, headers={"www-authenticate": "Bearer"})
        if path.startswith("/.well-known/oauth-protected-resource"):
            return httpx.Response(self.prm_status)
        if path == "/.well-known/oauth-authorization-server" and self.metadata:
            return httpx.Response(
                200,
                json={
                    "issuer": f"{BASE}/",
                    "authorization_endpoint": f"{BASE}/authorize",
                    "token_endpoint": f"{BASE}/token",
                    "registration_endpoint": f"{BASE}/register",
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                    "scopes_supported": ["user"],
                },
            )
        if path == "/register":
            return httpx.Response(201, json={**json.loads(request.content), "client_id": "c1"})
        if path == "/token":
            self.forms.append(dict(parse_qsl(request.content.decode())))
            return httpx.Response(200, json={"access_token": "t1", "token_type": "Bearer"})
        return httpx.Response(404)


async def approve(url: str) -> AuthorizationResponse:
    query = dict(parse_qsl(urlsplit(url).query))
    assert url.startswith(f"{BASE}/authorize?")
    return AuthorizationResponse("code-1", query["state"])


async def call(server: Legacy, **options: Any) -> httpx.Response:
    auth = OAuthClientAuth(
        f"{BASE}/mcp",
        authorization_handler=approve,
        allow_insecure_http=True,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        **options,
    )
    async with httpx.AsyncClient(transport=httpx.MockTransport(server), auth=auth) as http:
        return await http.post(f"{BASE}/mcp", json={})


@pytest.mark.parametrize("metadata", [True, False])
async def test_the_origin_is_the_authorization_server(metadata: bool) -> None:
    server = Legacy(metadata=metadata)
    answer = await call(server, legacy_discovery=True)
    assert answer.status_code == 200
    assert server.paths == [
        "/mcp",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
        "/register",
        "/token",
        "/mcp",
    ]
    assert server.forms[0]["grant_type"] == "authorization_code"
    assert server.forms[0]["resource"] == f"{BASE}/mcp"


async def test_off_by_default() -> None:
    server = Legacy()
    with pytest.raises(OAuthError, match="No protected resource metadata"):
        await call(server)
    assert "/register" not in server.paths


async def test_not_when_the_resource_metadata_failed() -> None:
    """A 5xx says nothing about whether the server publishes the metadata."""
    server = Legacy(prm_status=503)
    with pytest.raises(OAuthError, match="HTTP 503") as caught:
        await call(server, legacy_discovery=True)
    assert caught.value.error is None
    assert "/.well-known/oauth-authorization-server" not in server.paths


async def test_another_issuer_is_refused() -> None:
    """The origin's metadata must name the origin (with or without the root's slash)."""
    from mcpkit.auth import IssuerMismatchError

    class Elsewhere(Legacy):
        def __call__(self, request: httpx.Request) -> httpx.Response:
            answer = super().__call__(request)
            if request.url.path == "/.well-known/oauth-authorization-server":
                doc = answer.json() | {"issuer": "http://127.0.0.1:10/"}
                return httpx.Response(200, json=doc)
            return answer

    server = Elsewhere()
    with pytest.raises(IssuerMismatchError):
        await call(server, legacy_discovery=True)
    assert "/register" not in server.paths


async def test_metadata_headers() -> None:
    """``metadata_headers`` go with every metadata request."""
    server = Legacy()
    await call(server, legacy_discovery=True)
    assert set(server.revisions.values()) == {None}
    server = Legacy()
    revision = {"MCP-Protocol-Version": "2026-07-28"}
    await call(server, legacy_discovery=True, metadata_headers=revision)
    assert server.revisions == {
        "/.well-known/oauth-protected-resource/mcp": "2026-07-28",
        "/.well-known/oauth-protected-resource": "2026-07-28",
        "/.well-known/oauth-authorization-server": "2026-07-28",
    }
