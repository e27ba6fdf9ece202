"""``fastmcp.server.auth.auth`` on mcpkit: fastmcp's provider classes.

A token verifier (:class:`TokenVerifier` and its subclasses) or a
:class:`RemoteAuthProvider` given as ``FastMCP(auth=...)`` protects the HTTP endpoint with
mcpkit's resource server (:mod:`mcpkit.compat.fastmcp.server.auth._resource`), answering as
fastmcp does. An authorization server of its own (:class:`OAuthProvider`, implementing the official
SDK's provider protocol) serves its endpoints beside the MCP endpoint
(:mod:`~mcpkit.compat.fastmcp.server.auth._oauth_provider`); :class:`MultiAuth` accepts the
tokens of several sources (:mod:`~mcpkit.compat.fastmcp.server.auth._multi`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from pydantic import AnyHttpUrl, BaseModel

from mcpkit.asgi_types import ASGIApp, Scope, Send
from mcpkit.compat.mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions

#: A route of a provider: ``await route(scope, send)`` answers one request.
Route = Callable[[Scope, Send], Awaitable[None]]

__all__ = [
    "AccessToken",
    "AuthProvider",
    "ClientRegistrationOptions",
    "MultiAuth",
    "OAuthProvider",
    "RemoteAuthProvider",
    "RevocationOptions",
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

    def apps(self, mcp_path: str) -> dict[str, ASGIApp]:
        """Endpoints this provider serves, by path, as ASGI apps (outside the token checks):
        an authorization server's ``/authorize``, ``/token``, ..."""
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
    """Several token sources behind one server: an optional ``server`` (an authorization
    server or a remote one, whose routes and metadata are served) tried first, then each of
    ``verifiers``. The token a source accepts carries, as fastmcp's does, a client ID
    qualified by the source (``[source_id, client_id, issuer, subject]`` as JSON) and the
    source's own in ``original_client_id``."""

    def __init__(
        self,
        *,
        server: AuthProvider | None = None,
        verifiers: Mapping[str, TokenVerifier]
        | Sequence[TokenVerifier]
        | TokenVerifier
        | None = None,
        server_source_id: str | None = None,
        base_url: AnyHttpUrl | str | None = None,
        resource_base_url: AnyHttpUrl | str | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        named: dict[str, TokenVerifier] | None = None
        if isinstance(verifiers, Mapping):
            named = dict(verifiers)
            listed = list(named.values())
        elif isinstance(verifiers, TokenVerifier):
            listed = [verifiers]
        else:
            listed = list(verifiers or [])
        if server_source_id is not None and server is None:
            raise ValueError("server_source_id requires a server")
        if server is None and not listed:
            raise ValueError("MultiAuth requires at least a server or one verifier")
        super().__init__(
            base_url=base_url or (server.base_url if server else None),
            resource_base_url=resource_base_url or (server.resource_base_url if server else None),
            required_scopes=(
                required_scopes
                if required_scopes is not None
                else (server.required_scopes if server else None)
            ),
        )
        self.server = server
        self.verifiers = listed
        self._required_scopes_override = required_scopes
        if resource_base_url is not None and server is not None:
            server.resource_base_url = self.resource_base_url
        self._sources: list[AuthProvider] = ([server] if server else []) + list(listed)
        ids: list[str] = []
        if server is not None:
            ids.append(server_source_id or _source_id(server))
        ids.extend(named if named is not None else (_source_id(v) for v in listed))
        if any(not isinstance(i, str) or not i.strip() or i != i.strip() for i in ids):
            raise ValueError(
                "MultiAuth source IDs must be nonempty strings without outer whitespace"
            )
        if len(set(ids)) != len(ids):
            raise ValueError(
                "MultiAuth source IDs must be unique; name each distinct source explicitly"
            )
        self._source_ids = ids

    @property
    def scopes_supported(self) -> list[str]:
        """The server's, else the required scopes."""
        return self.server.scopes_supported if self.server else self.required_scopes

    def get_challenge_scopes(self, required_scopes: list[str] | None = None) -> list[str]:
        """The server's (or a sole verifier's) challenge scopes."""
        if required_scopes is None:
            required_scopes = self._required_scopes_override
        if self.server is not None:
            return self.server.get_challenge_scopes(required_scopes)
        if len(self.verifiers) == 1:
            return self.verifiers[0].get_challenge_scopes(required_scopes)
        return self.required_scopes if required_scopes is None else required_scopes

    async def verify_token(self, token: str) -> AccessToken | None:
        """The first source's verdict that accepts ``token`` (a source failing is skipped;
        when none accepts, the first backend failure is raised)."""
        failure: TokenVerificationError | None = None
        for source_id, source in zip(self._source_ids, self._sources, strict=True):
            try:
                found = await source.verify_token(token)
            except TokenVerificationError as exc:
                failure = failure or exc
                continue
            except Exception:
                continue
            if found is None:
                continue
            if not isinstance(found, AccessToken):
                data = found.model_dump(exclude={"claims"})
                found = AccessToken(**data, claims=getattr(found, "claims", None) or {})
            original = (
                found.original_client_id
                if isinstance(source, MultiAuth) and found.original_client_id is not None
                else found.client_id
            )
            issuer = (found.claims or {}).get("iss")
            qualified = json.dumps(
                [
                    source_id,
                    found.client_id,
                    None if issuer is None else str(issuer),
                    found.subject,
                ],
                separators=(",", ":"),
            )
            return found.model_copy(update={"client_id": qualified, "original_client_id": original})
        if failure is not None:
            raise failure
        return None

    def set_mcp_path(self, mcp_path: str | None) -> None:
        """The path reaches the server and every verifier too."""
        super().set_mcp_path(mcp_path)
        for source in self._sources:
            source.set_mcp_path(mcp_path)

    def protected_resource(self, mcp_path: str) -> dict[str, Any] | None:
        """The server's metadata (verifiers serve none)."""
        return self.server.protected_resource(mcp_path) if self.server else None

    def routes(self, mcp_path: str) -> dict[str, Route]:
        """The server's documents."""
        return self.server.routes(mcp_path) if self.server else {}

    def apps(self, mcp_path: str) -> dict[str, ASGIApp]:
        """The server's endpoints."""
        return self.server.apps(mcp_path) if self.server else {}


def _source_id(source: AuthProvider) -> str:
    """fastmcp's identity of a configured token source: a hash of what it trusts (its
    issuer, JWKS, introspection or authorization server URL), else of its class."""
    descriptor: dict[str, Any] = {}
    kinds = {cls.__name__ for cls in type(source).__mro__}
    if "JWTVerifier" in kinds:
        issuer = getattr(source, "issuer", None)
        if issuer:
            descriptor["issuer"] = sorted(issuer) if isinstance(issuer, list) else issuer
        jwks_uri = getattr(source, "jwks_uri", None)
        if jwks_uri:
            descriptor["jwks_uri"] = str(jwks_uri)
    elif "IntrospectionTokenVerifier" in kinds:
        descriptor["introspection_url"] = getattr(source, "introspection_url", None)
    elif isinstance(source, RemoteAuthProvider):
        descriptor["token_verifier"] = _source_id(source.token_verifier)
    elif isinstance(source, OAuthProvider):
        descriptor["issuer_url"] = str(source.issuer_url)
    if not descriptor:
        module = type(source).__module__
        if module == "mcpkit.compat.fastmcp" or module.startswith("mcpkit.compat.fastmcp."):
            module = module[len("mcpkit.compat.") :]
        descriptor["provider"] = f"{module}.{type(source).__qualname__}"
    raw = json.dumps(descriptor, sort_keys=True, separators=(",", ":"))
    return "configured:" + hashlib.sha256(raw.encode()).hexdigest()


class OAuthProvider(AuthProvider):
    """fastmcp's base of an authorization server: a subclass implements the official SDK's
    provider protocol (``get_client``, ``register_client``, ``authorize``,
    ``load_authorization_code``, ``exchange_authorization_code``, ``load_refresh_token``,
    ``exchange_refresh_token``, ``load_access_token``, ``revoke_token``); its endpoints
    (metadata, ``/authorize``, ``/token``, and ``/register`` and ``/revoke`` when the options
    enable them) are served beside the MCP endpoint, whose tokens are its access tokens."""

    def __init__(
        self,
        *,
        base_url: AnyHttpUrl | str,
        resource_base_url: AnyHttpUrl | str | None = None,
        issuer_url: AnyHttpUrl | str | None = None,
        service_documentation_url: AnyHttpUrl | str | None = None,
        client_registration_options: ClientRegistrationOptions | None = None,
        revocation_options: RevocationOptions | None = None,
        required_scopes: list[str] | None = None,
    ) -> None:
        super().__init__(
            base_url=base_url, resource_base_url=resource_base_url, required_scopes=required_scopes
        )
        self.issuer_url = _url(issuer_url) if issuer_url is not None else self.base_url
        self.service_documentation_url = _url(service_documentation_url)
        self.client_registration_options = client_registration_options
        self.revocation_options = revocation_options

    async def load_access_token(self, token: str) -> Any:
        """The access token ``token`` names, None if unknown (the subclass's)."""
        raise NotImplementedError("Subclasses must implement load_access_token")

    async def verify_token(self, token: str) -> Any:
        """The access token ``token`` names (:meth:`load_access_token`)."""
        return await self.load_access_token(token)

    @property
    def scopes_supported(self) -> list[str]:
        """The scopes clients may register, else the required ones."""
        options = self.client_registration_options
        if options and options.valid_scopes:
            return options.valid_scopes
        return self.required_scopes

    def protected_resource(self, mcp_path: str) -> dict[str, Any] | None:
        """The protected resource metadata: this server is the authorization server."""
        self.set_mcp_path(mcp_path)
        if self._resource_url is None:
            return None
        doc: dict[str, Any] = {
            "resource": str(self._resource_url),
            "authorization_servers": [str(self.issuer_url)],
        }
        if self.scopes_supported is not None:
            doc["scopes_supported"] = list(self.scopes_supported)
        doc["bearer_methods_supported"] = ["header"]
        return doc

    def apps(self, mcp_path: str) -> dict[str, ASGIApp]:
        """The authorization server's endpoints (see the class docstring), at the paths
        fastmcp's HTTP app serves them (the metadata at the root's well-known path)."""
        from mcpkit.compat._oauth_server import (
            authorization_server_apps,
            authorization_server_metadata,
        )

        registration = self.client_registration_options or ClientRegistrationOptions()
        revocation = self.revocation_options or RevocationOptions()
        metadata = authorization_server_metadata(
            str(self.base_url),
            str(self.issuer_url),
            None if self.service_documentation_url is None else str(self.service_documentation_url),
            registration,
            revocation,
        )
        paths = ["/.well-known/oauth-authorization-server"]
        return authorization_server_apps(
            self, metadata, paths, registration, revocation, token_limited=False
        )
