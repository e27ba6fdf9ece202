"""``official_id_jag.py EXAMPLES_DIR PORT``: the official SDK's SEP-990 client
(``mcp.client.auth.extensions.identity_assertion``' ``IdentityAssertionOAuthProvider``)
through an ``httpx2.AsyncClient`` and ``streamable_http_client`` against the
``identity_assertion`` story's server, as the story's client builds it (its ``idp`` signing
the ID-JAGs); requests for ``127.0.0.1:8000`` are sent to 127.0.0.1:PORT (the Host header
kept). Prints what each case saw; run on mcp 2.x and on mcpkit, the output must be equal."""

import asyncio
import sys
from typing import Any

sys.path.insert(0, sys.argv[1])
PORT = int(sys.argv[2])


def _redirect(cls: Any) -> None:
    original = cls.handle_async_request

    async def handle(self: Any, request: Any) -> Any:
        if request.url.host == "127.0.0.1" and request.url.port == 8000:
            request.url = request.url.copy_with(port=PORT)
        return await original(self, request)

    cls.handle_async_request = handle


for name in ("httpx", "httpx2"):
    try:
        _redirect(__import__(name).AsyncHTTPTransport)
    except ImportError:
        pass

import httpx2  # noqa: E402
from mcp.client import Client  # noqa: E402
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from stories._shared.auth import MCP_URL, InMemoryTokenStorage  # noqa: E402
from stories.identity_assertion.idp import issue_id_jag  # noqa: E402
from stories.identity_assertion.server import (  # noqa: E402
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    DEMO_SCOPE,
    ISSUER,
)

asked: list[tuple[str, str]] = []


async def fetch_id_jag(audience: str, resource: str) -> str:
    asked.append((audience, resource))
    return issue_id_jag(
        subject="alice@example.com",
        client_id=DEMO_CLIENT_ID,
        audience=audience,
        resource=resource,
        scope=DEMO_SCOPE,
    )


async def forged(audience: str, resource: str) -> str:
    return "not.a.jwt"


async def case(label: str, **options: Any) -> None:
    storage = InMemoryTokenStorage()
    settings = {
        "client_id": DEMO_CLIENT_ID,
        "client_secret": DEMO_CLIENT_SECRET,
        "issuer": ISSUER,
        "assertion_provider": fetch_id_jag,
        "scope": DEMO_SCOPE,
        **options,
    }
    asked.clear()
    try:
        oauth = IdentityAssertionOAuthProvider(server_url=MCP_URL, storage=storage, **settings)
        async with httpx2.AsyncClient(auth=oauth, follow_redirects=True) as http_client:
            transport = streamable_http_client(MCP_URL, http_client=http_client)
            async with Client(transport) as client:
                listed = await client.list_tools()
                result = await client.call_tool("whoami", {})
    except Exception as exc:
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]  # the SDK's client raises from its task group
        print(label, "failed:", type(exc).__name__, asked)
        return
    tokens = storage.tokens
    stored = None if tokens is None else (tokens.token_type, tokens.scope, tokens.expires_in)
    print(label, [t.name for t in listed.tools], result.structured_content, stored, asked)


async def main() -> None:
    await case("post")
    await case("basic", token_endpoint_auth_method="client_secret_basic")
    await case("no scope", scope=None)
    await case("wrong secret", client_secret="nope")
    await case("forged assertion", assertion_provider=forged)
    await case("other issuer", issuer="http://127.0.0.1:8000/elsewhere")
    await case("no secret", client_secret="")


asyncio.run(main())
