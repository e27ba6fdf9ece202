"""The resource server side: metadata, 401/403 challenges, audience and expiry checks,
sessions bound to the identity that opened them, ``ctx.auth`` and task ownership."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mcpkit import Context, Server
from mcpkit.auth import AccessToken, OAuthClientAuth, ResourceServer, headless_authorization_handler
from mcpkit.auth.discovery import parse_www_authenticate
from mcpkit.auth.server import get_access_token
from mcpkit.client import Client
from mcpkit.owner import task_owner
from mcpkit.server.tasks import TaskManager
from mcpkit.transports.http import StreamableHTTPApp, running
from tests.auth.conftest import Env, write_needs_scope
from tests.auth.mock_as import Grant, MockAS
from tests.http import raw
from tests.wire import WireChecker

Make = Callable[..., Any]


def grant(env: Env, token: str, scope: str | None = None, **overrides: Any) -> None:
    values: dict[str, Any] = {
        "client_id": "c1",
        "scope": scope,
        "resource": env.url,
        "expires_at": time.time() + 60,
    }
    values.update(overrides)
    env.mock.grants[token] = Grant(**values)


def bearer(token: str) -> dict[str, str]:
    return raw.headers(authorization=f"Bearer {token}")


async def test_metadata_and_401(oauth_env: Make) -> None:
    env: Env = await oauth_env(scopes_supported=["mcp:basic"], required_scopes=["mcp:basic"])
    async with httpx.AsyncClient() as http:
        r = await http.get(env.rs_base + "/.well-known/oauth-protected-resource/mcp")
        assert r.status_code == 200
        assert r.json() == {
            "resource": env.url,
            "authorization_servers": [env.mock.issuer],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["mcp:basic"],
        }
        assert r.headers["access-control-allow-origin"] == "*"
        r = await http.get(env.rs_base + "/.well-known/oauth-protected-resource")
        assert r.status_code == 401  # only the path-based location; the rest is protected
        r = await http.post(env.url, json=raw.init_message(), headers=raw.headers())
        assert r.status_code == 401
        [challenge] = parse_www_authenticate(r.headers["www-authenticate"])
        assert challenge.scheme == "bearer" and challenge.error is None
        assert challenge.scope == "mcp:basic"
        assert challenge.resource_metadata == env.rs.metadata_url
        assert env.rs.metadata_url == env.rs_base + "/.well-known/oauth-protected-resource/mcp"
        for header in ("Bearer nope", "Basic abc", "Bearer"):
            r = await http.post(
                env.url, json=raw.init_message(), headers=raw.headers(authorization=header)
            )
            assert r.status_code == 401
        r = await http.get(env.rs_base + "/elsewhere")
        assert r.status_code == 401
        grant(env, "good", "mcp:basic")
        r = await http.get(env.rs_base + "/elsewhere", headers=bearer("good"))
        assert r.status_code == 404


async def test_token_checks(oauth_env: Make) -> None:
    env: Env = await oauth_env()
    grant(env, "good")
    grant(env, "expired", expires_at=time.time() - 1)
    grant(env, "other-audience", resource="http://127.0.0.1:1/mcp")
    grant(env, "no-audience", resource=None)
    grant(env, "slash-audience", resource=env.url + "/")
    async with httpx.AsyncClient() as http:
        for token, status in [
            ("good", 200),
            ("slash-audience", 200),
            ("expired", 401),
            ("other-audience", 401),
            ("no-audience", 401),
        ]:
            r = await http.post(env.url, json=raw.init_message(), headers=bearer(token))
            assert r.status_code == status, token
            if status == 401:
                [c] = parse_www_authenticate(r.headers["www-authenticate"])
                assert c.error == "invalid_token"


async def test_insufficient_scope(oauth_env: Make) -> None:
    env: Env = await oauth_env(
        required_scopes=["mcp:basic"],
        scopes_for=write_needs_scope,
        scopes_supported=["mcp:basic", "mcp:write"],
    )
    grant(env, "basic", "mcp:basic")
    grant(env, "none")
    async with httpx.AsyncClient() as http:
        r = await http.post(env.url, json=raw.init_message(), headers=bearer("none"))
        assert r.status_code == 403
        r = await http.post(env.url, json=raw.init_message(), headers=bearer("basic"))
        sid = r.headers["mcp-session-id"]
        h = bearer("basic") | {"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        r = await http.post(
            env.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=h
        )
        assert r.status_code == 202
        r = await http.post(env.url, json=raw.tool_call(1, "write", text="x"), headers=h)
        assert r.status_code == 403
        [c] = parse_www_authenticate(r.headers["www-authenticate"])
        assert c.error == "insufficient_scope"
        assert c.scope == "mcp:basic mcp:write"  # the operation's scopes, granted ones kept
        assert c.resource_metadata == env.rs.metadata_url
        r = await http.post(env.url, json=raw.tool_call(2, "whoami"), headers=h)
        assert r.status_code == 200 and "c1 mcp:basic" in r.text


async def test_oversized_body_with_per_request_scopes(oauth_env: Make) -> None:
    env: Env = await oauth_env(scopes_for=write_needs_scope, max_body_size=1000)
    grant(env, "t")
    async with httpx.AsyncClient() as http:
        big = raw.tool_call(1, "write", text="x" * 2000)
        r = await http.post(env.url, json=big, headers=bearer("t"))
        assert r.status_code == 413


async def test_session_bound_to_principal(oauth_env: Make) -> None:
    env: Env = await oauth_env()
    grant(env, "alice", client_id="alice")
    grant(env, "mallory", client_id="mallory")
    async with httpx.AsyncClient() as http:
        r = await http.post(env.url, json=raw.init_message(), headers=bearer("alice"))
        sid = r.headers["mcp-session-id"]
        extra = {"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        r = await http.post(env.url, json=note, headers=bearer("mallory") | extra)
        assert r.status_code == 404
        r = await http.post(env.url, json=note, headers=bearer("alice") | extra)
        assert r.status_code == 202


async def test_server_auth_option_and_tasks(wire: Callable[..., WireChecker]) -> None:
    """``Server(auth=...)``: ``http_app()`` is protected and tasks belong to the principal,
    so another client's session cannot see them."""
    mock = MockAS()
    async with running(mock.app()) as as_base:
        mock.base = as_base
        holder: dict[str, Any] = {}

        async def late(scope: Any, receive: Any, send: Any) -> None:
            await holder["app"](scope, receive, send)

        async with running(late, lifespan="off") as base:
            rs = ResourceServer(
                mock.verify, resource=base + "/mcp", authorization_servers=[mock.issuer]
            )
            server = Server("tasks", tasks=TaskManager(), auth=rs)
            assert server.task_manager.owner_of is task_owner

            @server.tool(task_support="optional")
            async def slow(ctx: Context) -> str:
                assert ctx.auth is get_access_token() and ctx.auth is not None
                return f"done for {ctx.auth.client_id}"

            assert server.http_app().auth is rs  # what Server(auth=) serves by default
            holder["app"] = StreamableHTTPApp(
                lambda t: server.session(t, tracer=wire()), auth=server.auth
            )
            async with server.running():
                auth = OAuthClientAuth(
                    base + "/mcp", authorization_handler=headless_authorization_handler()
                )
                # the 2025-11-25 tasks: the handshake era
                async with Client(base + "/mcp", auth=auth, tracer=wire(), era="legacy") as client:
                    task_id = (await client.call_tool_as_task("slow", {})).task_id
                    result = await client.get_task_result(task_id)
                    assert "done for client-1" in str(result)
                    assert [t.task_id for t in await client.list_tasks()] == [task_id]
                other = OAuthClientAuth(
                    base + "/mcp", authorization_handler=headless_authorization_handler()
                )
                async with Client(base + "/mcp", auth=other, tracer=wire(), era="legacy") as client:
                    assert await client.list_tasks() == []
            await holder["app"].aclose()


def test_resource_server_arguments() -> None:
    with pytest.raises(ValueError):
        ResourceServer(lambda t: None, resource="mcp.example.com", authorization_servers=["x"])
    with pytest.raises(ValueError):
        ResourceServer(lambda t: None, resource="https://a/mcp#f", authorization_servers=["x"])
    with pytest.raises(ValueError):
        ResourceServer(lambda t: None, resource="https://a/mcp", authorization_servers=[])
    rs = ResourceServer(lambda t: None, resource="https://a.example", authorization_servers=["x"])
    assert rs.metadata_url == "https://a.example/.well-known/oauth-protected-resource"
    token = AccessToken("t", resource=["https://other", "HTTPS://A.EXAMPLE/"])
    assert rs.audience_ok(token)
    assert "secret-token" not in repr(AccessToken("secret-token"))
    assert 'error="insufficient_scope"' in rs.challenge("insufficient_scope", 'say "hi"', ["a"])
