"""``official_m2m.py EXAMPLES_DIR PORT``: the official SDK's machine-to-machine providers
(``mcp.client.auth.extensions.client_credentials``) through an ``httpx2.AsyncClient`` and
``streamable_http_client`` against the ``oauth_client_credentials`` story's server, whose
documents name ``127.0.0.1:8000``: every HTTP request of this process for that origin is sent
to 127.0.0.1:PORT instead (the Host header kept). Prints what each case saw; run on mcp 2.x
and on mcpkit, the output must be equal."""

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
from mcp.client.auth.extensions.client_credentials import (  # noqa: E402
    ClientCredentialsOAuthProvider,
)
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from stories._shared.auth import MCP_URL, InMemoryTokenStorage  # noqa: E402
from stories.oauth_client_credentials.server import (  # noqa: E402
    DEMO_CLIENT_ID,
    DEMO_CLIENT_SECRET,
    DEMO_SCOPE,
)


async def case(label: str, **options: Any) -> None:
    storage = InMemoryTokenStorage()
    oauth = ClientCredentialsOAuthProvider(server_url=MCP_URL, storage=storage, **options)
    try:
        async with httpx2.AsyncClient(auth=oauth, follow_redirects=True) as http_client:
            transport = streamable_http_client(MCP_URL, http_client=http_client)
            async with Client(transport) as client:
                listed = await client.list_tools()
                result = await client.call_tool("whoami", {})
    except Exception as exc:
        while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
            exc = exc.exceptions[0]  # the SDK's client raises from its task group
        print(label, "failed:", type(exc).__name__)
        return
    tokens = storage.tokens
    stored = None if tokens is None else (tokens.token_type, tokens.scope, tokens.expires_in)
    print(label, [t.name for t in listed.tools], result.structured_content, stored)


async def main() -> None:
    await case(
        "basic", client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET, scope=DEMO_SCOPE
    )
    await case("scope from the server", client_id=DEMO_CLIENT_ID, client_secret=DEMO_CLIENT_SECRET)
    await case(
        "issuer",
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        scope=DEMO_SCOPE,
        issuer="http://127.0.0.1:8000",
    )
    await case(
        "post",
        client_id=DEMO_CLIENT_ID,
        client_secret=DEMO_CLIENT_SECRET,
        scope=DEMO_SCOPE,
        token_endpoint_auth_method="client_secret_post",
    )
    await case("wrong secret", client_id=DEMO_CLIENT_ID, client_secret="nope", scope=DEMO_SCOPE)


asyncio.run(main())
