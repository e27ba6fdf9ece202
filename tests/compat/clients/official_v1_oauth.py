"""``official_v1_oauth.py PORT``: mcp 1.x's ``OAuthClientProvider`` in 1.x's shape (a
``callback_handler`` returning ``(code, state)``, the ``timeout`` argument), as 1.x's
``snippets/clients/oauth_client.py`` builds it, given to an ``httpx.AsyncClient`` that sends an
``initialize`` to the server at 127.0.0.1:PORT; prints the answer's status and what the
provider handed to the storage. The "browser" fetches the authorization URL and reads the
redirect."""

import sys
from typing import Any
from urllib.parse import parse_qs, urlparse

import anyio
import httpx
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import OAuthClientMetadata
from pydantic import AnyUrl

BASE = f"http://127.0.0.1:{sys.argv[1]}"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "v1", "version": "1"},
    },
}


class Storage:
    tokens: Any = None
    client_info: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client_info

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info


redirected: list[str] = []


async def handle_redirect(auth_url: str) -> None:
    async with httpx.AsyncClient() as browser:
        answer = await browser.get(auth_url, follow_redirects=False)
    redirected.append(answer.headers["location"])


async def handle_callback() -> tuple[str, str | None]:
    params = parse_qs(urlparse(redirected[-1]).query)
    return params["code"][0], params.get("state", [None])[0]


async def main() -> None:
    storage = Storage()
    provider = OAuthClientProvider(
        server_url=f"{BASE}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Example MCP Client",
            redirect_uris=[AnyUrl("http://localhost:3000/callback")],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope="user",
        ),
        storage=storage,
        redirect_handler=handle_redirect,
        callback_handler=handle_callback,
        timeout=60.0,
    )
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
    }
    async with httpx.AsyncClient(auth=provider) as http:
        answer = await http.post(f"{BASE}/mcp", json=INIT, headers=headers)
    print(answer.status_code, answer.headers["content-type"].split(";")[0])
    tokens, client = storage.tokens, storage.client_info
    print(type(tokens).__name__, tokens.token_type, tokens.scope, tokens.expires_in)
    method = client.token_endpoint_auth_method
    print(type(client).__name__, client.client_name, client.scope, method)


anyio.run(main)
