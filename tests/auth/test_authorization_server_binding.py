"""Credentials belong to the authorization server that issued them: when the protected
resource moves to another one, the client registers again there and never shows it the first
one's client id, tokens or refresh tokens; each server's state is kept apart, so moving back
needs no new registration."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcpkit.auth import OAuthClientAuth, SQLiteTokenStore, headless_authorization_handler
from mcpkit.auth.errors import AuthorizationServerMismatchError
from mcpkit.client import Client
from tests.auth.conftest import Env
from tests.auth.mock_as import MockAS
from tests.wire import WireChecker

Make = Callable[..., Any]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
HEADERS = {"accept": "application/json, text/event-stream"}


def oauth(env: Env, **options: Any) -> OAuthClientAuth:
    options.setdefault("authorization_handler", headless_authorization_handler())
    return OAuthClientAuth(env.url, **options)


async def whoami(env: Env, auth: OAuthClientAuth, wire: Callable[..., WireChecker]) -> str:
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        result = await client.call_tool("whoami", {})
        return str(result.content[0].text)  # type: ignore[union-attr]


def client_ids_seen(mock: MockAS) -> set[str]:
    ids = {e["query"].get("client_id") for e in mock.events("authorize")}
    ids |= {e["form"].get("client_id") for e in mock.events("token")}
    return {i for i in ids if i}


async def test_moved_resource_registers_again_and_keeps_state_apart(
    oauth_env: Make, other_as: Make, wire: Callable[..., WireChecker], tmp_path: Path
) -> None:
    env: Env = await oauth_env()
    first = env.mock
    second: MockAS = await other_as()
    store = SQLiteTokenStore(tmp_path / "tokens.db")
    assert await whoami(env, oauth(env, store=store), wire) == "client-1"
    first_token = await store.get_token(env.url, first.issuer)
    assert first_token is not None and first_token.issuer == first.issuer

    env.move_to(second)
    # a restarted client: its stored token is refused, the metadata names another server
    assert (await whoami(env, oauth(env, store=store), wire)).startswith("client-10")
    [registration] = second.events("register")
    assert registration["body"]["application_type"] == "native"
    assert "client-1" not in client_ids_seen(second)  # the first server's client id, never
    refresh_tokens = {e["form"].get("refresh_token") for e in second.events("token")}
    assert first_token.refresh_token not in refresh_tokens
    assert all(not (e.get("authorization") or "") for e in second.events("token"))
    first_client = await store.get_client(first.issuer)
    second_client = await store.get_client(second.issuer)
    assert first_client is not None and first_client.client_id == "client-1"
    assert second_client is not None and second_client.client_id.startswith("client-10")
    assert await store.get_token(env.url, first.issuer) == first_token  # kept, apart
    second_token = await store.get_token(env.url, second.issuer)
    assert second_token is not None and second_token.issuer == second.issuer

    env.move_to(first)  # back again: the first server's registration and refresh token serve
    before = len(first.events("authorize"))
    assert await whoami(env, oauth(env, store=store), wire) == "client-1"
    assert len(first.events("register")) == 1 and len(first.events("authorize")) == before
    refreshed = [e for e in first.events("token") if e["form"]["grant_type"] == "refresh_token"]
    assert [e["form"]["refresh_token"] for e in refreshed] == [first_token.refresh_token]
    assert second.events("register") == [registration]
    store.close()


async def test_move_within_one_session(
    oauth_env: Make, other_as: Make, wire: Callable[..., WireChecker]
) -> None:
    """auth/authorization-server-migration: the move happens between two requests of one
    connection; the 401 leads to the new metadata and a registration there."""
    env: Env = await oauth_env()
    second: MockAS = await other_as()
    auth = oauth(env)
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        await client.call_tool("whoami", {})
        env.move_to(second)
        result = await client.call_tool("whoami", {})
        assert result.content[0].text.startswith("client-1")  # type: ignore[union-attr]
    assert len(second.events("register")) == 1
    assert "client-1" not in client_ids_seen(second)
    assert auth.client_info is not None and auth.client_info.issuer == second.issuer
    assert auth.token is not None and auth.token.issuer == second.issuer


async def test_preregistered_client_is_not_taken_elsewhere(oauth_env: Make, other_as: Make) -> None:
    """Pre-registered credentials are specific to their authorization server: when the
    resource names another one, the client says so instead of presenting them there."""
    clients = {"pre-1": ("s3cret", "client_secret_basic")}
    env: Env = await oauth_env(
        MockAS(dcr=False, auth_methods=["client_secret_basic"], clients=dict(clients))
    )
    second: MockAS = await other_as(MockAS(auth_methods=["client_secret_basic"]))
    auth = oauth(env, client_id="pre-1", client_secret="s3cret")
    async with httpx.AsyncClient(auth=auth, timeout=10) as http:
        assert (await http.post(env.url, json=INIT, headers=HEADERS)).status_code == 200
        env.move_to(second)
        with pytest.raises(AuthorizationServerMismatchError) as caught:
            await http.post(env.url, json=INIT, headers=HEADERS)
    assert caught.value.bound_to == env.mock.issuer and caught.value.issuer == second.issuer
    assert [e["kind"] for e in second.log] == ["metadata"]  # nothing else was sent there

    bound = oauth(env, client_id="pre-1", client_secret="s3cret", client_issuer=env.mock.issuer)
    async with httpx.AsyncClient(auth=bound, timeout=10) as http:
        with pytest.raises(AuthorizationServerMismatchError):
            await http.post(env.url, json=INIT, headers=HEADERS)


async def test_client_id_metadata_document_is_portable(
    oauth_env: Make, other_as: Make, wire: Callable[..., WireChecker]
) -> None:
    url = "https://app.example.com/client.json"
    env: Env = await oauth_env(MockAS(cimd=True))
    second: MockAS = await other_as(MockAS(cimd=True))
    auth = oauth(env, client_metadata_url=url)
    async with Client(env.url, auth=auth, tracer=wire()) as client:
        await client.call_tool("whoami", {})
        env.move_to(second)
        result = await client.call_tool("whoami", {})
        assert result.content[0].text == url  # type: ignore[union-attr]
    assert env.mock.events("register") == [] and second.events("register") == []
    assert client_ids_seen(second) == {url}
