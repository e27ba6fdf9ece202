"""A server that is its own authorization server with the official SDK's provider protocol
(``auth_server_provider=`` with registration and revocation enabled): ``sdk_oauth_provider.py
v1|v2 PORT`` serves it over Streamable HTTP with 1.x's ``FastMCP`` or 2.x's ``MCPServer``.
Codes and tokens are ``secrets.token_hex(32)``; the tool answers with the request's token."""

import secrets
import sys
import time

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl

GENERATION, PORT = sys.argv[1], int(sys.argv[2])
BASE = f"http://127.0.0.1:{PORT}"


class Provider:
    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id or ""] = client_info

    async def authorize(
        self, client: OAuthClientInformationFull, params: AuthorizationParams
    ) -> str:
        code = secrets.token_hex(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            client_id=client.client_id or "",
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ):
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_hex(32), secrets.token_hex(32)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, subject="ada"
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access, expires_in=3600, scope=" ".join(scopes), refresh_token=refresh
        )

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code
    ):
        del self.codes[authorization_code.code]
        return self._issue(authorization_code.client_id, authorization_code.scopes)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str):
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token, scopes: list[str]
    ):
        del self.refresh[refresh_token.token]
        return self._issue(refresh_token.client_id, scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)


settings = AuthSettings(
    issuer_url=AnyHttpUrl(BASE),
    resource_server_url=AnyHttpUrl(BASE + "/mcp"),
    validate_token_resource=False,
    required_scopes=["mcp"],
    client_registration_options=ClientRegistrationOptions(
        enabled=True, valid_scopes=["mcp", "extra"], default_scopes=["mcp"]
    ),
    revocation_options=RevocationOptions(enabled=True),
)

if GENERATION == "v1":
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("provider", auth=settings, auth_server_provider=Provider(), port=PORT)
else:
    from mcp.server.mcpserver import MCPServer

    mcp = MCPServer("provider", auth=settings, auth_server_provider=Provider())


@mcp.tool()
def whoami() -> str:
    """The request's client, subject and scopes."""
    token = get_access_token()
    assert token is not None
    return f"{token.client_id} {token.subject} {' '.join(token.scopes)}"


if __name__ == "__main__":
    if GENERATION == "v1":
        mcp.run(transport="streamable-http")
    else:
        mcp.run(transport="streamable-http", port=PORT)
