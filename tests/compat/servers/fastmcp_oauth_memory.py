"""A fastmcp server that is its own authorization server, over HTTP.

``python fastmcp_oauth_memory.py MODE PORT``: ``memory``: ``InMemoryOAuthProvider`` with
dynamic registration, revocation and scopes; ``multi``: the same behind ``MultiAuth``, with
a ``StaticTokenVerifier`` beside it; ``custom``: an ``OAuthProvider`` subclass of its own
(numbered tokens, a pre-registered public client, the ``admin`` scope refused at
authorization). ``whoami`` says what the validated token grants.
"""

import sys
import time

from fastmcp import FastMCP
from fastmcp.server.auth import MultiAuth, OAuthProvider
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from fastmcp.server.auth.providers.jwt import StaticTokenVerifier
from fastmcp.server.dependencies import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class NumberedProvider(OAuthProvider):
    """An authorization server of its own: tokens numbered in issue order."""

    def __init__(self, base_url: str) -> None:
        super().__init__(
            base_url=base_url,
            revocation_options=RevocationOptions(enabled=True),
            required_scopes=["read"],
        )
        self.count = 0
        self.clients = {
            "cli": OAuthClientInformationFull(
                client_id="cli",
                redirect_uris=["http://127.0.0.1:9/cb"],
                token_endpoint_auth_method="none",
                scope="read admin",
            )
        }
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken | RefreshToken] = {}

    def _next(self, kind: str) -> str:
        self.count += 1
        return f"{kind}-{self.count}"

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params):
        if "admin" in (params.scopes or []):
            raise AuthorizeError("access_denied", "admin is not granted here")
        code = self._next("code")
        self.codes[code] = AuthorizationCode(
            code=code,
            client_id=client.client_id,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            scopes=params.scopes or ["read"],
            expires_at=time.time() + 300,
            code_challenge=params.code_challenge,
            subject="ada",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        return self.codes.get(authorization_code)

    def _pair(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = self._next("at"), self._next("rt")
        self.tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, subject="ada"
        )
        self.tokens[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access, refresh_token=refresh, expires_in=60, scope=" ".join(scopes)
        )

    async def exchange_authorization_code(self, client, authorization_code):
        if self.codes.pop(authorization_code.code, None) is None:
            raise TokenError("invalid_grant", "code already used")
        return self._pair(client.client_id, authorization_code.scopes)

    async def load_refresh_token(self, client, refresh_token):
        found = self.tokens.get(refresh_token)
        return found if isinstance(found, RefreshToken) else None

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        del self.tokens[refresh_token.token]
        return self._pair(client.client_id, scopes)

    async def load_access_token(self, token):
        found = self.tokens.get(token)
        return found if isinstance(found, AccessToken) else None

    async def revoke_token(self, token):
        self.tokens.pop(token.token, None)


mode, port = sys.argv[1], int(sys.argv[2])
base_url = f"http://127.0.0.1:{port}"
if mode == "custom":
    auth = NumberedProvider(base_url)
else:
    auth = InMemoryOAuthProvider(
        base_url=base_url,
        service_documentation_url="https://docs.example.com/oauth",
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=["read", "write"], default_scopes=["read"]
        ),
        revocation_options=RevocationOptions(enabled=True),
        required_scopes=["read"],
    )
    if mode == "multi":
        static = StaticTokenVerifier(
            tokens={"tok-ci": {"client_id": "ci-bot", "scopes": ["read"], "sub": "ci"}}
        )
        auth = MultiAuth(server=auth, verifiers=[static])
mcp = FastMCP("oauth-server", auth=auth)


@mcp.tool
def whoami() -> dict:
    """What the validated token grants."""
    token = get_access_token()
    assert token is not None
    return {"client_id": token.client_id, "scopes": token.scopes, "subject": token.subject}


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=port, show_banner=False)
