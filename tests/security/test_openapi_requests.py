"""Server.from_openapi builds only the request the operation declares: a path argument
stays inside its own segment (``..``, ``/``, ``?``, ``#`` encoded), and an argument the
operation does not declare is refused, naming it, instead of joining the JSON body."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from mcpkit import Client, Server
from mcpkit.client import ProtocolOptions
from mcpkit.errors import McpError
from tests.compose.petstore import SPEC, PetStore

FILES = {
    "openapi": "3.1.0",
    "info": {"title": "Files", "version": "1"},
    "servers": [{"url": "https://files.test/v1"}],
    "paths": {
        "/users/{user}/files/{name}": {
            "get": {
                "operationId": "getFile",
                "parameters": [
                    {"name": "user", "in": "path", "schema": {"type": "string"}},
                    {"name": "name", "in": "path", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "the file"}},
            }
        }
    },
}


def _app(store: PetStore) -> Server:
    return Server.from_openapi(SPEC, client=httpx.AsyncClient(transport=store.transport))


@pytest.mark.parametrize(
    ("name", "raw_path"),
    [
        ("..", "/v1/users/me/files/%2E%2E"),
        (".", "/v1/users/me/files/%2E"),
        ("../../admin", "/v1/users/me/files/..%2F..%2Fadmin"),
        ("1?admin=true", "/v1/users/me/files/1%3Fadmin%3Dtrue"),
        ("1#frag", "/v1/users/me/files/1%23frag"),
        ("a/b", "/v1/users/me/files/a%2Fb"),
        ("%2e%2e", "/v1/users/me/files/%252e%252e"),
        ("notes.txt", "/v1/users/me/files/notes.txt"),
    ],
)
async def test_a_path_argument_stays_in_its_segment(name: str, raw_path: str) -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    async with Client(Server.from_openapi(FILES, client=client)) as c:
        result = await c.call_tool("getFile", {"user": "me", "name": name})
        assert not result.is_error
        # Two dot-only values side by side make no ".." segment either.
        await c.call_tool("getFile", {"user": ".", "name": "."})
    assert sent[0].url.raw_path.decode() == raw_path
    assert sent[0].url.host == "files.test"
    assert sent[1].url.raw_path.decode() == "/v1/users/%2E/files/%2E"


async def _create(version: str | None, arguments: dict[str, Any]) -> tuple[Any, PetStore]:
    store = PetStore()
    async with Client(_app(store), protocol=ProtocolOptions(version=version)) as c:
        try:
            return await c.call_tool("createPet", arguments), store
        except McpError as exc:
            return exc, store


async def test_undeclared_arguments_are_refused_by_name() -> None:
    # 2025-06-18: a protocol error, -32602, and no request is made.
    error, store = await _create("2025-06-18", {"name": "Tom", "isAdmin": True, "owner": 1})
    assert isinstance(error, McpError) and error.code == -32602
    assert "'isAdmin'" in error.message and "'owner'" in error.message
    assert "unexpected" in error.message
    assert not store.requests
    # 2025-11-25: argument errors are tool errors the model reads; still no request.
    result, store = await _create(None, {"name": "Tom", "isAdmin": True})
    assert result.is_error and "'isAdmin'" in result.content[0].text
    assert "unexpected" in result.content[0].text
    assert not store.requests
    # Declared ones still go through.
    result, store = await _create(None, {"name": "Tom", "tag": "cat"})
    assert not result.is_error
    assert store.requests[-1].read() == b'{"name":"Tom","tag":"cat"}'


async def test_the_operation_itself_refuses_undeclared_arguments() -> None:
    """Called directly (the input schema bypassed), the operation still sends nothing."""
    from mcpkit.server.openapi import Route, _Operation, _Resolver

    store = PetStore()
    operation = SPEC["paths"]["/pets"]["post"]
    route = Route("POST", "/pets", "createPet", (), None, operation)
    client = httpx.AsyncClient(transport=store.transport)
    op = _Operation(route, [], _Resolver(SPEC), client, "https://pets.test/v1", False)
    with pytest.raises(McpError) as info:
        await op.call({"name": "Tom", "isAdmin": True})
    assert info.value.code == -32602 and "'isAdmin': Unexpected argument" in info.value.message
    assert not store.requests
