"""``official_legacy_oauth.py PORT``: the SDK's ``OAuthClientProvider`` as
``docs_src/oauth_clients/tutorial001.py`` builds it, for the server at
``http://127.0.0.1:PORT/mcp``, with handlers that log in at the example's login page (the
demo user and password) and hand back the redirect; lists the tools and prints them, then what
the provider handed to the storage."""

import sys
from urllib.parse import parse_qs, urljoin, urlparse

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

URL = f"http://127.0.0.1:{sys.argv[1]}/mcp"


class InMemoryTokenStorage:
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


redirected: list[str] = []


async def log_in(authorization_url: str) -> None:
    """The user's browser: the authorization URL, the login form, the redirect."""
    async with httpx2.AsyncClient() as browser:
        to_login = await browser.get(authorization_url)
        login = urljoin(authorization_url, to_login.headers["location"])
        state = parse_qs(urlparse(login).query)["state"][0]
        form = {"username": "demo_user", "password": "demo_password", "state": state}
        done = await browser.post(urljoin(login, "/login/callback"), data=form)
    redirected.append(done.headers["location"])


async def pasted() -> AuthorizationCodeResult:
    params = parse_qs(urlparse(redirected[-1]).query)
    return AuthorizationCodeResult(code=params["code"][0], state=params["state"][0])


async def main() -> None:
    storage = InMemoryTokenStorage()
    oauth = OAuthClientProvider(
        server_url=URL,
        client_metadata=OAuthClientMetadata(
            client_name="Legacy Agent",
            redirect_uris=[AnyUrl("http://localhost:3030/callback")],
        ),
        storage=storage,
        redirect_handler=log_in,
        callback_handler=pasted,
    )
    async with httpx2.AsyncClient(auth=oauth) as http_client:
        async with Client(streamable_http_client(URL, http_client=http_client)) as client:
            result = await client.list_tools()
            print([tool.name for tool in result.tools])
    tokens, info = storage.tokens, storage.client_info
    assert tokens is not None and info is not None
    print(tokens.token_type, tokens.scope, tokens.expires_in)
    print(info.client_name, info.scope, info.token_endpoint_auth_method)


anyio.run(main)
