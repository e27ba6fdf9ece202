"""A server that is its own authorization server with the official SDK's provider protocol
(``auth_server_provider=`` with registration and revocation enabled): ``sdk_oauth_provider.py
v1|v2|starlette PORT`` serves it over Streamable HTTP with 1.x's ``FastMCP``, 2.x's
``MCPServer``, or a Starlette app composed by hand around 2.x's low-level ``Server`` as the
SDK's documentation composes one (``create_auth_routes``, ``BearerAuthBackend``,
``RequireAuthMiddleware``, ``StreamableHTTPSessionManager``).
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


def whoami_text() -> str:
    token = get_access_token()
    assert token is not None
    return f"{token.client_id} {token.subject} {' '.join(token.scopes)}"


def starlette_app():  # type: ignore[no-untyped-def]
    import mcp.types as types
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
    from mcp.server.auth.provider import ProviderTokenVerifier
    from mcp.server.auth.routes import (
        build_resource_metadata_url,
        create_auth_routes,
        create_protected_resource_routes,
    )
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.authentication import AuthenticationMiddleware
    from starlette.routing import Route

    async def list_tools(ctx, params):  # type: ignore[no-untyped-def]
        return types.ListToolsResult(
            tools=[
                types.Tool(name="whoami", description="Who calls.", input_schema={"type": "object"})
            ]
        )

    async def call_tool(ctx, params):  # type: ignore[no-untyped-def]
        return types.CallToolResult(content=[types.TextContent(type="text", text=whoami_text())])

    server = Server("provider", on_list_tools=list_tools, on_call_tool=call_tool)
    manager = StreamableHTTPSessionManager(app=server)
    provider = Provider()

    async def handle(scope, receive, send):  # type: ignore[no-untyped-def]
        await manager.handle_request(scope, receive, send)

    routes = create_auth_routes(
        provider,
        settings.issuer_url,
        client_registration_options=settings.client_registration_options,
        revocation_options=settings.revocation_options,
    )
    routes += create_protected_resource_routes(
        settings.resource_server_url, [settings.issuer_url], scopes_supported=["mcp"]
    )
    metadata_url = build_resource_metadata_url(settings.resource_server_url)
    routes.append(Route("/mcp", endpoint=RequireAuthMiddleware(handle, ["mcp"], metadata_url)))
    middleware = [
        Middleware(
            AuthenticationMiddleware, backend=BearerAuthBackend(ProviderTokenVerifier(provider))
        ),
        Middleware(AuthContextMiddleware),
    ]
    return Starlette(routes=routes, middleware=middleware, lifespan=lambda app: manager.run())


if GENERATION == "v1":
    from mcp.server.fastmcp import Context, FastMCP

    mcp = FastMCP("provider", auth=settings, auth_server_provider=Provider(), port=PORT)
elif GENERATION == "v2":
    from mcp.server.mcpserver import Context, MCPServer

    mcp = MCPServer("provider", auth=settings, auth_server_provider=Provider())

if GENERATION in ("v1", "v2"):

    @mcp.tool()
    def whoami() -> str:
        """The request's client, subject and scopes."""
        return whoami_text()

    @mcp.tool()
    def user(ctx: Context) -> str:
        """The request's user, as Starlette's authentication gives it."""
        request = ctx.request_context.request
        assert request is not None
        return f"{type(request.user).__name__} {request.user.display_name} {request.auth.scopes}"


if __name__ == "__main__":
    if GENERATION == "v1":
        mcp.run(transport="streamable-http")
    elif GENERATION == "v2":
        mcp.run(transport="streamable-http", port=PORT)
    else:
        import uvicorn

        uvicorn.run(starlette_app(), host="127.0.0.1", port=PORT, log_level="error")
