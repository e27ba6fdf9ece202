"""``fastmcp.server.auth.auth`` on mcpkit: fastmcp's provider classes.

A token verifier (:class:`TokenVerifier` and its subclasses) or a
:class:`RemoteAuthProvider` given as ``FastMCP(auth=...)`` protects the HTTP endpoint with
mcpkit's resource server (:mod:`mcpkit.compat.fastmcp.server.auth._resource`), answering as
fastmcp does. Providers that are an authorization server of their own
(:class:`OAuthProvider`) and :class:`MultiAuth` are refused with the mcpkit class to use
instead.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic import AnyHttpUrl, BaseModel

from mcpkit.asgi_types import Scope, Send

#: A route of a provider: ``await route(scope, send)`` answers one request.
Route = Callable[[Scope, Send], Awaitable[None]]

__all__ = [
    "AccessToken",
    "AuthProvider",
    "MultiAuth",
    "OAuthProvider",
    "RemoteAuthProvider",
    "TokenVerificationError",
    "TokenVerifier",
]


class AccessToken(BaseModel):
    """A validated access token as fastmcp hands it to tools (``get_access_token()``)."""

    token: str
    client_id: str
    scopes: list[str]
    expires_at: int | None = None
    resource: str | None = None
    subject: str | None = None
    claims: dict[str, Any] = {}
    original_client_id: str | None = None


class TokenVerificationError(RuntimeError):
    """A verifier could not reach a verdict (its backend failed)."""


def _url(value: AnyHttpUrl | str | None) -> AnyHttpUrl | None:
    return AnyHttpUrl(value) if isinstance(value, str) else value


class AuthProvider:
    """What every fastmcp auth provider is: ``verify_token`` and the server's URL."""

    def __init__(
        self,
        base_url: AnyHttpUrl | str | None = None,
        required_scopes: list[str] | None = None,
        resource_base_url: AnyHttpUrl | str | None = None,
    ) -> None:
        self.base_url = _url(base_url)
        self.resource_base_url = _url(resource_base_url)
        self.required_scopes: list[str] = required_scopes or []
        self._mcp_path: str | None = None
        self._resource_url: AnyHttpUrl | None = None

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a valid ``token``, None otherwise."""
        raise NotImplementedError("Subclasses must implement verify_token")

    @property
    def scopes_supported(self) -> list[str]:
        """Scopes advertised in the protected resource metadata."""
        return self.required_scopes

    @property
    def challenge_scopes(self) -> list[str]:
        """Scopes a ``WWW-Authenticate`` challenge asks clients for."""
        return self.get_challenge_scopes()

    def get_challenge_scopes(self, required_scopes: list[str] | None = None) -> list[str]:
        """The scopes a challenge names (``required_scopes`` by default)."""
        return self.required_scopes if required_scopes is None else required_scopes

    def set_mcp_path(self, mcp_path: str | None) -> None:
        """The MCP endpoint's path became known (the resource URL follows from it)."""
        self._mcp_path = mcp_path
        self._resource_url = self._get_resource_url(mcp_path)

    def _get_resource_url(self, path: str | None = None) -> AnyHttpUrl | None:
        base = self.resource_base_url or self.base_url
        if base is None:
            return None
        if path:
            return AnyHttpUrl(f"{str(base).rstrip('/')}/{path.lstrip('/')}")
        return base

    def protected_resource(self, mcp_path: str) -> dict[str, Any] | None:
        """The protected resource metadata this provider serves (None: it serves none)."""
        return None

    def routes(self, mcp_path: str) -> dict[str, Route]:
        """Other documents this provider serves, by path (outside the token checks)."""
        return {}


class TokenVerifier(AuthProvider):
    """A resource server's token check, without an authorization server of its own."""

    def __init__(
        self,
        base_url: AnyHttpUrl | str | None = None,
        required_scopes: list[str] | None = None,
        resource_base_url: AnyHttpUrl | str | None = None,
    ) -> None:
        super().__init__(base_url, required_scopes, resource_base_url)


class RemoteAuthProvider(AuthProvider):
    """A token verifier plus the authorization servers that issue its tokens: serves the
    protected resource metadata (RFC 9728) for the MCP endpoint."""

    def __init__(
        self,
        token_verifier: TokenVerifier,
        authorization_servers: list[Any],
        base_url: AnyHttpUrl | str,
        scopes_supported: list[str] | None = None,
        resource_base_url: AnyHttpUrl | str | None = None,
        resource_name: str | None = None,
        resource_documentation: AnyHttpUrl | str | None = None,
        challenge_scopes: list[str] | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url,
            resource_base_url=resource_base_url,
            required_scopes=(
                required_scopes if required_scopes is not None else token_verifier.required_scopes
            ),
        )
        self.token_verifier = token_verifier
        self.authorization_servers = authorization_servers
        self._scopes_supported = scopes_supported
        self._challenge_scopes = challenge_scopes
        self.resource_name = resource_name
        self.resource_documentation = resource_documentation
        self._forwarded: Any = None
        self._forwarded_until = 0.0
        self._retry_at = 0.0

    #: Seconds a forwarded authorization server metadata document is served from memory,
    #: and seconds without a new upstream request after a failed one (as fastmcp).
    FORWARDED_METADATA_TTL_SECONDS: float = 300.0
    FORWARDED_METADATA_ERROR_TTL_SECONDS: float = 5.0

    async def _forward_authorization_server_metadata(
        self, metadata_urls: Sequence[str], provider_name: str
    ) -> tuple[int, Any]:
        """The upstream authorization server's metadata (status, JSON), cached: the first
        of ``metadata_urls`` answering JSON; a 500 ``server_error`` when none does."""
        import httpx

        now = time.monotonic()
        if self._forwarded is not None and now < self._forwarded_until:
            return 200, self._forwarded
        error = "upstream temporarily unavailable"
        if now >= self._retry_at:
            async with httpx.AsyncClient() as client:
                for url in metadata_urls:
                    try:
                        upstream = await client.get(url)
                        upstream.raise_for_status()
                        document = upstream.json()
                    except Exception as exc:
                        error = str(exc)
                        continue
                    self._forwarded = document
                    self._forwarded_until = time.monotonic() + self.FORWARDED_METADATA_TTL_SECONDS
                    return 200, document
            self._retry_at = time.monotonic() + self.FORWARDED_METADATA_ERROR_TTL_SECONDS
        if self._forwarded is not None:
            return 200, self._forwarded
        description = f"Failed to fetch {provider_name} metadata: {error}"
        return 500, {"error": "server_error", "error_description": description}

    def forwarded_metadata(self, urls: Sequence[str], name: str) -> dict[str, Route]:
        """The route of ``/.well-known/oauth-authorization-server``: the metadata at the
        first of ``urls`` that answers, forwarded (see
        :meth:`_forward_authorization_server_metadata`)."""
        from mcpkit.compat.fastmcp.server.auth._resource import respond_json

        async def metadata(scope: Scope, send: Send) -> None:
            status, document = await self._forward_authorization_server_metadata(urls, name)
            await respond_json(send, status, document)

        return {"/.well-known/oauth-authorization-server": metadata}

    @property
    def scopes_supported(self) -> list[str]:
        """The scopes given, else the verifier's."""
        if self._scopes_supported is not None:
            return self._scopes_supported
        return self.token_verifier.scopes_supported

    def get_challenge_scopes(self, required_scopes: list[str] | None = None) -> list[str]:
        """The challenge scopes given, else the verifier's translation."""
        effective = self.required_scopes if required_scopes is None else required_scopes
        if effective == self.required_scopes and self._challenge_scopes is not None:
            return self._challenge_scopes
        return self.token_verifier.get_challenge_scopes(required_scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The verifier's verdict."""
        return await self.token_verifier.verify_token(token)

    def protected_resource(self, mcp_path: str) -> dict[str, Any] | None:
        """The metadata document, as fastmcp's routes serve it."""
        self.set_mcp_path(mcp_path)
        resource = self._get_resource_url(mcp_path)
        if resource is None:
            return None
        doc: dict[str, Any] = {
            "resource": str(resource),
            "authorization_servers": [str(s) for s in self.authorization_servers],
        }
        if self.scopes_supported is not None:
            doc["scopes_supported"] = list(self.scopes_supported)
        doc["bearer_methods_supported"] = ["header"]
        if self.resource_name is not None:
            doc["resource_name"] = self.resource_name
        if self.resource_documentation is not None:
            doc["resource_documentation"] = str(self.resource_documentation)
        return doc


class MultiAuth(AuthProvider):
    """fastmcp's several token sources behind one server (not served on mcpkit: its tokens'
    client IDs are qualified by a hash of each source's configuration)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            "fastmcp's MultiAuth is not supported on mcpkit: give mcpkit.auth.ResourceServer "
            "a verifier function that tries each source, or api_keys= beside OAuth "
            "(docs/authorization.md)"
        )


class OAuthProvider(AuthProvider):
    """fastmcp's base of a full authorization server (not served on mcpkit)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} (a fastmcp authorization server) is not supported on "
            "mcpkit: use mcpkit.auth.AuthorizationServer (docs/authorization.md)"
        )
