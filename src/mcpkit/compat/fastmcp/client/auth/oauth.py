"""``fastmcp.client.auth.oauth`` on mcpkit: fastmcp's ``OAuth`` (the authorization code
grant with PKCE, dynamic registration as a public client, the browser opened on the
authorization URL and a loopback callback server) on :class:`mcpkit.auth.OAuthClientAuth`.

``Client(url, auth="oauth")`` and ``Client(url, auth=OAuth(...))`` use it; an ``OAuth``
without ``mcp_url`` is bound to the transport's URL. ``token_storage`` is a key-value store
as fastmcp takes it (``py-key-value``'s ``AsyncKeyValue``: ``get`` / ``put`` / ``delete``
with a ``collection``); tokens stay in memory without one.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncGenerator
from typing import Any

import httpx

from mcpkit.auth import ClientMetadata, OAuthClientAuth
from mcpkit.auth.tokens import ClientInfo, OAuthToken, TokenStore
from mcpkit.compat.fastmcp.client.auth._callback import browser_authorization_handler

__all__ = ["OAuth"]


class OAuth(httpx.Auth):
    """fastmcp's browser OAuth flow for the MCP server at ``mcp_url`` (see the module
    docstring). ``scopes``: a list or a space-separated string (none: the server's);
    ``callback_port``: the loopback port of the redirect URI (a free one by default)."""

    requires_request_body = False
    requires_response_body = False

    def __init__(
        self,
        mcp_url: str | None = None,
        scopes: str | list[str] | None = None,
        client_name: str = "FastMCP Client",
        token_storage: Any = None,
        additional_client_metadata: dict[str, Any] | None = None,
        callback_port: int | None = None,
        callback_host: str = "localhost",
        callback_timeout: float = 300.0,
        httpx_client_factory: Any = None,
        client_metadata_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        issuer: str | None = None,
    ) -> None:
        self._scopes = " ".join(scopes) if isinstance(scopes, list) else scopes
        self._client_name = client_name
        self._token_storage = token_storage
        self._extra = dict(additional_client_metadata or {})
        self._callback_port = callback_port
        self._callback_host = callback_host
        self._callback_timeout = callback_timeout
        self._client_metadata_url = client_metadata_url
        self._client_id = client_id
        self._client_secret = client_secret
        self._issuer = issuer
        self._inner: OAuthClientAuth | None = None
        self.mcp_url: str | None = None
        self.redirect_port: int | None = None
        if mcp_url is not None:
            self._bind(mcp_url)

    def _bind(self, mcp_url: str) -> None:
        """Bind to the MCP server at ``mcp_url`` (done by the transport when not given)."""
        if self._inner is not None:
            return
        mcp_url = mcp_url.rstrip("/")
        host = self._callback_host
        self.redirect_port = self._callback_port or _free_port(host)
        url_host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        redirect_uri = f"http://{url_host}:{self.redirect_port}/callback"
        extra = dict(self._extra)
        method = extra.pop("token_endpoint_auth_method", None)
        if method is None and not self._client_id and not self._client_secret:
            method = "none"
        metadata = ClientMetadata(
            client_name=self._client_name,
            redirect_uris=[redirect_uri],
            scope=self._scopes or None,
            token_endpoint_auth_method=method,
            extra=extra,
        )
        store = _KeyValueTokenStore(self._token_storage) if self._token_storage else None
        self._inner = OAuthClientAuth(
            mcp_url,
            authorization_handler=browser_authorization_handler(
                url_host, self.redirect_port, timeout=self._callback_timeout
            ),
            client_metadata=metadata,
            client_metadata_url=self._client_metadata_url,
            client_id=self._client_id,
            client_secret=self._client_secret,
            client_issuer=self._issuer,
            token_endpoint_auth_method=method if self._client_id else None,
            store=store,
            allow_insecure_http=True,
        )
        self.mcp_url = mcp_url

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """mcpkit's OAuth flow (bound to the request's URL if not bound yet)."""
        if self._inner is None:
            self._bind(str(request.url))
        assert self._inner is not None
        flow = self._inner.async_auth_flow(request)
        response = yield await flow.__anext__()
        while True:
            try:
                request = await flow.asend(response)
            except StopAsyncIteration:
                return
            response = yield request


def _free_port(host: str) -> int:
    bind = host.strip("[]")
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1" if bind == "localhost" else bind, 0))
        return int(s.getsockname()[1])


class _KeyValueTokenStore(TokenStore):
    """mcpkit's token store over a fastmcp ``token_storage`` (an async key-value store)."""

    COLLECTION = "mcpkit-oauth"

    def __init__(self, kv: Any) -> None:
        self.kv = kv

    async def _get(self, key: str) -> dict[str, Any] | None:
        value: dict[str, Any] | None = await self.kv.get(key, collection=self.COLLECTION)
        return value

    async def _put(self, key: str, value: dict[str, Any] | None) -> None:
        if value is None:
            await self.kv.delete(key, collection=self.COLLECTION)
        else:
            await self.kv.put(key, value, collection=self.COLLECTION)

    async def get_token(self, resource: str, issuer: str | None = None) -> OAuthToken | None:
        """The token for ``resource`` from ``issuer`` (the last stored without one)."""
        data = await self._get(f"token|{resource}|{issuer or '*'}")
        return OAuthToken.from_dict(data) if data else None

    async def set_token(
        self, resource: str, token: OAuthToken | None, *, issuer: str | None = None
    ) -> None:
        """Store (or forget) the token of ``resource`` from ``issuer``."""
        value = token.to_dict() if token is not None else None
        await self._put(f"token|{resource}|{issuer or '*'}", value)
        if issuer is not None:
            await self._put(f"token|{resource}|*", value)

    async def get_client(self, issuer: str) -> ClientInfo | None:
        """The registration at ``issuer``."""
        data = await self._get(f"client|{issuer}")
        return ClientInfo.from_dict(data) if data else None

    async def set_client(self, issuer: str, client: ClientInfo | None) -> None:
        """Store (or forget) the registration at ``issuer``."""
        await self._put(f"client|{issuer}", client.to_dict() if client is not None else None)
