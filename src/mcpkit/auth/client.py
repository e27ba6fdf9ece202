"""The OAuth 2.1 client side of MCP authorization, as an ``httpx.Auth``.

Give :class:`OAuthClientAuth` to :class:`mcpkit.Client` (``auth=``) or to the Streamable HTTP
transport. On a 401 it discovers the protected resource metadata (RFC 9728) and the
authorization server metadata (RFC 8414 / OpenID Connect), picks the scopes the spec says,
gets a client identity (pre-registered, client ID metadata document, or dynamic registration),
runs the authorization code grant with PKCE S256 (or the client credentials grant), and retries
the request with the token. It refreshes tokens, steps up on 403 ``insufficient_scope`` (with a
retry budget), and only ever attaches a token to requests for the MCP server's own origin.

The security checks refuse with an :class:`~mcpkit.auth.errors.OAuthError` subclass: protected
resource metadata for another resource (:class:`~mcpkit.auth.errors.ResourceMismatchError`),
authorization server metadata naming another issuer and an authorization response whose RFC 9207
``iss`` is wrong or missing where advertised (:class:`~mcpkit.auth.errors.IssuerMismatchError`),
pre-registered credentials at another authorization server
(:class:`~mcpkit.auth.errors.AuthorizationServerMismatchError`). Registrations and tokens are
kept per authorization server (issuer): when the resource moves to another one the client
registers there afresh and never shows it the first one's credentials.

The grant's steps live beside it: :mod:`mcpkit.auth.authorization_code` (the front channel
and its checks), :mod:`mcpkit.auth.token_endpoint` (token requests, client authentication,
DPoP proofs), :mod:`mcpkit.auth.discovery` and :mod:`mcpkit.auth.registration`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator
from typing import Literal
from urllib.parse import urljoin, urlsplit

import httpx

from mcpkit.auth.authorization_code import (
    AuthorizationHandler,
    AuthorizationResponse,
    authorization_code_form,
)
from mcpkit.auth.discovery import (
    AuthorizationServerMetadata,
    Challenge,
    ProtectedResourceMetadata,
    canonical_resource,
    check_resource,
    discover_authorization_server,
    discover_legacy_authorization_server,
    discover_protected_resource,
    origin_of,
    parse_www_authenticate,
)
from mcpkit.auth.errors import AuthorizationServerMismatchError, OAuthError
from mcpkit.auth.registration import (
    ClientMetadata,
    PrivateKey,
    is_secure_url,
    register_client,
)
from mcpkit.auth.token_endpoint import ClientAssertionProvider, TokenEndpoint
from mcpkit.auth.tokens import ClientInfo, MemoryTokenStore, OAuthToken, TokenStore
from mcpkit.fetch import Fetcher, FetchPolicy
from mcpkit.fetch.pinning import pinned_transport

__all__ = [
    "JWT_BEARER",
    "AssertionProvider",
    "AuthorizationHandler",
    "AuthorizationResponse",
    "OAuthClientAuth",
    "headless_authorization_handler",
]

logger = logging.getLogger("mcpkit.auth")

GrantType = Literal["authorization_code", "client_credentials", "jwt_bearer"]
#: RFC 7523 JWT bearer grant.
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
#: Supplies the JWT for the ``jwt_bearer`` grant: (AS metadata, resource) -> assertion.
AssertionProvider = Callable[[AuthorizationServerMetadata, str], Awaitable[str]]


def headless_authorization_handler(
    http_client: httpx.AsyncClient | None = None,
) -> AuthorizationHandler:
    """A handler that fetches the authorization URL without a browser and returns the
    ``Location`` of the redirect: for tests and authorization servers that approve without
    user interaction."""

    async def handle(url: str) -> str:
        async with _client(http_client) as http:
            response = await http.get(url, follow_redirects=False)
        location: str | None = response.headers.get("location")
        if not response.is_redirect or not location:
            raise OAuthError(
                f"The authorization endpoint answered HTTP {response.status_code}, not a redirect"
            )
        return urljoin(url, location)

    return handle


@contextlib.asynccontextmanager
async def _client(
    given: httpx.AsyncClient | None,
    timeout: float = 30.0,
    policy: FetchPolicy | None = None,
    server_url: str = "",
) -> AsyncIterator[httpx.AsyncClient]:
    if given is not None:
        yield given
        return
    # Idle connections are not reused past 2 s: an authorization server's idle timeout
    # (5 s for Node's, uvicorn's) would otherwise race a slow step such as signing.
    limits = httpx.Limits(keepalive_expiry=2.0)
    # With a policy, connections go only to the addresses it checked (no DNS rebinding).
    transport = pinned_transport(policy, server_url, limits=limits) if policy else None
    async with httpx.AsyncClient(timeout=timeout, limits=limits, transport=transport) as http:
        yield http


def same_issuer(a: str, b: str) -> bool:
    """Whether two issuer identifiers name one server: equal strings (RFC 8414 s3.3), a root
    issuer with and without its trailing slash alike (``https://as`` is ``https://as/``)."""
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    return longer == shorter + "/" and urlsplit(shorter).path == ""


class OAuthClientAuth(httpx.Auth):
    """OAuth 2.1 for one MCP server at ``server_url``.

    Client identity, in the spec's order of preference: ``client_id`` (+ ``client_secret`` or
    ``private_key``) when pre-registered (bound to ``client_issuer`` if given, else to the first
    authorization server it is used with); ``client_metadata_url`` (a client ID metadata
    document) when the authorization server advertises support; else dynamic registration
    with ``client_metadata`` (its ``application_type`` is always sent).

    ``grant_type="authorization_code"`` (default) needs ``authorization_handler``;
    ``"client_credentials"`` needs pre-registered credentials; ``"jwt_bearer"`` (RFC 7523:
    workload identity federation, enterprise-managed authorization) needs a pre-registered
    ``client_id`` and ``assertion`` (the JWT, or an :data:`AssertionProvider` called per token
    request). ``client_assertion`` (an async function of the audience, the authorization
    server's issuer, returning a JWT) makes the ``private_key_jwt`` client assertions where no
    ``private_key`` signs them (workload identity federation); ``send_client_id=False`` leaves
    the ``client_id`` parameter out of token requests whose credentials (HTTP Basic, a client
    assertion) name the client. ``dpop`` (RFC 9449 sender-constrained tokens; needs the ``auth``
    extra): True always, False never, None (default) when the server challenges with the
    ``DPoP`` scheme and the authorization server advertises ES256. Tokens and registrations live
    in ``store`` (in memory by default), keyed by the issuer. ``offline_access`` is added to the
    requested scopes only when the authorization server lists it in ``scopes_supported``. A
    step-up asks for the union of the scopes requested and granted before and those the
    challenge names; ``max_step_up`` bounds re-authorizations for the same
    ``insufficient_scope`` challenge. ``http_client`` is used for the OAuth requests (PRM, AS
    metadata, registration, token endpoint). Authorization server endpoints and redirect URIs
    must be HTTPS or loopback HTTP unless ``allow_insecure_http``. ``legacy_discovery``
    accepts a server that publishes no protected resource metadata (every well-known URL
    answering 4xx) as the 2025-03-26 revision described it: its origin is the authorization
    server (:func:`~mcpkit.auth.discovery.discover_legacy_authorization_server`).
    ``metadata_headers`` are sent with every metadata request (an ``MCP-Protocol-Version``,
    as the 2025-03-26 revision asked clients to send during discovery).

    Every URL the server makes the client fetch follows ``fetch_policy`` (a
    :class:`~mcpkit.fetch.FetchPolicy`; by default one whose ``deadline`` is ``timeout``):
    https only (loopback http for a server on loopback), no private, link-local or metadata
    addresses unless the server is on that network or the policy allows them, a size cap, one
    deadline per discovery, registration or token request. A refusal raises
    :class:`~mcpkit.errors.FetchRefused`.
    """

    requires_request_body = False
    requires_response_body = False

    def __init__(
        self,
        server_url: str,
        *,
        authorization_handler: AuthorizationHandler | None = None,
        client_metadata: ClientMetadata | None = None,
        client_metadata_url: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_issuer: str | None = None,
        token_endpoint_auth_method: str | None = None,
        private_key: PrivateKey | None = None,
        client_assertion: ClientAssertionProvider | None = None,
        send_client_id: bool = True,
        grant_type: GrantType = "authorization_code",
        assertion: str | AssertionProvider | None = None,
        dpop: bool | None = None,
        store: TokenStore | None = None,
        http_client: httpx.AsyncClient | None = None,
        max_step_up: int = 2,
        timeout: float = 30.0,
        allow_insecure_http: bool = False,
        fetch_policy: FetchPolicy | None = None,
        legacy_discovery: bool = False,
        metadata_headers: dict[str, str] | None = None,
    ) -> None:
        if grant_type == "authorization_code" and authorization_handler is None:
            raise ValueError("the authorization_code grant needs an authorization_handler")
        if grant_type != "authorization_code" and client_id is None:
            raise ValueError(f"the {grant_type} grant needs a pre-registered client_id")
        if grant_type == "jwt_bearer" and assertion is None:
            raise ValueError("the jwt_bearer grant needs an assertion")
        self.assertion = assertion
        #: The token endpoint's requests, and the DPoP key tokens are bound to.
        self._tokens = TokenEndpoint(
            dpop=dpop,
            private_key=private_key,
            client_assertion=client_assertion,
            send_client_id=send_client_id,
        )
        self._rs_nonce: str | None = None
        self.server_url = server_url
        self.authorization_handler = authorization_handler
        self.client_metadata = client_metadata or ClientMetadata()
        self.allow_insecure_http = allow_insecure_http
        self.legacy_discovery = legacy_discovery
        #: Headers sent with each metadata request (resource and authorization server).
        self.metadata_headers = dict(metadata_headers or {})
        for uri in self.client_metadata.redirect_uris:
            if not (is_secure_url(uri) or allow_insecure_http):
                raise ValueError(f"redirect URIs must be HTTPS or loopback: {uri}")
        if grant_type != "authorization_code" and client_metadata is None:
            self.client_metadata.grant_types = [
                JWT_BEARER if grant_type == "jwt_bearer" else grant_type
            ]
        self.client_metadata_url = client_metadata_url
        self.grant_type: GrantType = grant_type
        self.store: TokenStore = store if store is not None else MemoryTokenStore()
        self.max_step_up = max_step_up
        self.timeout = timeout
        policy = fetch_policy if fetch_policy is not None else FetchPolicy(deadline=timeout)
        #: The rules for every URL the server makes this client fetch (its metadata, the
        #: authorization server's metadata, registration and token endpoints).
        self.fetch_policy = (
            dataclasses.replace(policy, allow_http=True) if allow_insecure_http else policy
        )
        self._http_client = http_client
        self._preregistered = (
            ClientInfo(
                client_id,
                client_secret,
                token_endpoint_auth_method,
                client_issuer,
                source="preregistered",
            )
            if client_id is not None
            else None
        )
        self._origin = origin_of(server_url)
        self._key = canonical_resource(server_url)
        self._lock = asyncio.Lock()
        self._loaded = False
        self._token: OAuthToken | None = None
        self._client_info: ClientInfo | None = None
        self._prm: ProtectedResourceMetadata | None = None
        self._meta: AuthorizationServerMetadata | None = None
        self._scopes: list[str] | None = None
        self._step_ups: dict[frozenset[str], int] = {}

    # -- public state --------------------------------------------------------------------------

    @property
    def token(self) -> OAuthToken | None:
        """The current token (None before authorization)."""
        return self._token

    @property
    def client_info(self) -> ClientInfo | None:
        """The client identity in use at the current authorization server."""
        return self._client_info

    @property
    def dpop(self) -> bool | None:
        """DPoP: True always, False never, None when the server challenges with it."""
        return self._tokens.dpop

    @property
    def private_key(self) -> PrivateKey | None:
        """The key signing ``private_key_jwt`` client assertions, if any."""
        return self._tokens.private_key

    @property
    def resource(self) -> str:
        """The resource indicator sent to the authorization server (the PRM ``resource``
        verbatim once known)."""
        return self._prm.resource if self._prm is not None else self._key

    # -- httpx.Auth ----------------------------------------------------------------------------

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response]:
        raise RuntimeError("OAuthClientAuth works with httpx.AsyncClient only")
        yield request  # pragma: no cover

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        if origin_of(request.url) != self._origin:
            yield request  # never hand our token to another origin
            return
        token = await self._usable_token()
        self._attach(request, token)
        response = yield request
        retried_401 = retried_nonce = False
        stepped_up: frozenset[str] | None = None
        for _ in range(self.max_step_up + 3):  # bounded, whatever the server answers
            nonce = response.headers.get("dpop-nonce")
            if nonce and token is not None and token.token_type == "DPoP":
                self._rs_nonce = nonce
                if (
                    response.status_code == 401
                    and not retried_nonce
                    and self._challenge(response).error == "use_dpop_nonce"
                ):
                    retried_nonce = True  # RFC 9449 section 9: retry with the server's nonce
                    self._attach(request, token)
                    response = yield request
                    continue
            if response.status_code == 401 and not retried_401:
                retried_401 = True
                challenge = self._challenge(response)
                async with self._lock:
                    if self._token is token or self._token is None:
                        await self._on_unauthorized(challenge, token)
                    token = self._token
            elif response.status_code == 403:
                challenge = self._challenge(response)
                if challenge.error != "insufficient_scope" or challenge.scope is None:
                    return
                async with self._lock:
                    if self._token is token and not await self._step_up(challenge):
                        return
                    token = self._token
                stepped_up = frozenset((challenge.scope or "").split())
            else:
                if stepped_up is not None and response.status_code < 400:
                    self._step_ups.pop(stepped_up, None)  # it worked: a fresh budget next time
                return
            self._attach(request, token)
            response = yield request

    def _challenge(self, response: httpx.Response) -> Challenge:
        """The ``Bearer`` (or ``DPoP``) challenge of a 401/403 answer."""
        challenges = parse_www_authenticate(response.headers.get_list("www-authenticate"))
        if any(c.scheme == "dpop" for c in challenges):
            self._tokens.dpop_challenged = True
        for scheme in ("bearer", "dpop"):
            for c in challenges:
                if c.scheme == scheme:
                    return c
        return Challenge("bearer")

    def _attach(self, request: httpx.Request, token: OAuthToken | None) -> None:
        if token is None:
            request.headers.pop("Authorization", None)
            request.headers.pop("DPoP", None)
        elif token.token_type == "DPoP" and self._tokens.dpop_key is not None:
            request.headers["Authorization"] = f"DPoP {token.access_token}"
            request.headers["DPoP"] = self._tokens.dpop_key.proof(
                request.method,
                str(request.url),
                access_token=token.access_token,
                nonce=self._rs_nonce,
            )
        else:
            request.headers["Authorization"] = f"Bearer {token.access_token}"

    # -- token lifecycle -----------------------------------------------------------------------

    async def _usable_token(self) -> OAuthToken | None:
        if not self._loaded:
            async with self._lock:
                if not self._loaded:
                    stored = await self.store.get_token(self._key)
                    # a DPoP-bound token is useless without the key it was bound to
                    if stored is not None and stored.token_type != "DPoP":
                        self._token = stored
                    self._loaded = True
        token = self._token
        if token is None or not token.expired():
            return token
        async with self._lock:
            if self._token is token and self._meta is not None and token.refresh_token:
                async with _client(
                    self._http_client, self.timeout, self.fetch_policy, self.server_url
                ) as http:
                    await self._refresh(http, token)
            # Not refreshable yet (metadata unknown, e.g. loaded from the store): send it
            # anyway; the server's 401 leads to discovery and a refresh.
            return self._token

    async def _set_token(self, token: OAuthToken) -> None:
        self._token = token
        await self.store.set_token(self._key, token)

    async def _forget_token(self, token: OAuthToken) -> None:
        """Forget ``token`` (the stored one of its issuer too)."""
        if self._token is token:
            self._token = None
        await self.store.set_token(self._key, None, issuer=token.issuer or "")

    async def _refresh(self, http: httpx.AsyncClient, token: OAuthToken) -> bool:
        meta = self._meta
        if meta is None or not token.refresh_token or token.issuer != meta.issuer:
            return False
        client = await self._ensure_client(http, meta)
        form = {
            "grant_type": "refresh_token",
            "refresh_token": token.refresh_token,
            "resource": self.resource,
        }
        try:
            new = await self._token_request(http, meta, client, form, token.scope)
        except OAuthError as exc:
            logger.info("Token refresh failed (%s): authorizing again", exc)
            await self._forget_token(token)
            return False
        if new.refresh_token is None:
            new.refresh_token = token.refresh_token
        await self._set_token(new)
        return True

    async def _on_unauthorized(self, challenge: Challenge, sent: OAuthToken | None) -> None:
        async with _client(
            self._http_client, self.timeout, self.fetch_policy, self.server_url
        ) as http:
            await self._discover(http, challenge)
            meta = self._meta
            assert meta is not None
            token = self._token
            if token is None or token.issuer != meta.issuer:
                # Credentials are per authorization server: never offer another one's token
                # or refresh token here; use what this one issued before, if anything.
                self._token = None
                token = await self.store.get_token(self._key, meta.issuer)
                if token is not None and token.issuer != meta.issuer:
                    token = None
            if token is not None and token.refresh_token and await self._refresh(http, token):
                return
            await self._authorize(http, self._select_scopes(challenge))

    async def _step_up(self, challenge: Challenge) -> bool:
        """Re-authorize for an ``insufficient_scope`` challenge, within the retry budget."""
        required = (challenge.scope or "").split()
        key = frozenset(required)
        if self._step_ups.get(key, 0) >= self.max_step_up:
            logger.warning(
                "Giving up on scope %r after %d step-ups", challenge.scope, self.max_step_up
            )
            return False
        self._step_ups[key] = self._step_ups.get(key, 0) + 1
        # The union of what was asked for before, what was granted, and what is required now,
        # so the new token keeps the permissions other operations need.
        granted = (self._token.scope or "").split() if self._token is not None else []
        scopes = _union(self._scopes or [], granted, required)
        async with _client(
            self._http_client, self.timeout, self.fetch_policy, self.server_url
        ) as http:
            if self._meta is None:
                await self._discover(http, challenge)
            await self._authorize(http, scopes)
        return True

    def _select_scopes(self, challenge: Challenge) -> list[str] | None:
        """The spec's order: the challenge's ``scope``, else the PRM ``scopes_supported``, else
        none; on re-authorization keep what was asked before (union)."""
        if challenge.scope is not None:
            chosen: list[str] | None = challenge.scope.split()
        elif self._prm is not None and self._prm.scopes_supported:
            chosen = list(self._prm.scopes_supported)
        else:
            chosen = None
        if self._scopes and chosen is not None:
            chosen = _union(self._scopes, chosen)
        return chosen

    # -- discovery and registration ------------------------------------------------------------

    def _fetcher(self, http: httpx.AsyncClient) -> Fetcher:
        """Fetches of one operation under :attr:`fetch_policy` (one deadline for them all)."""
        return Fetcher(http, self.fetch_policy, self.server_url)

    async def _discover(self, http: httpx.AsyncClient, challenge: Challenge) -> None:
        fetcher = self._fetcher(http)  # one deadline for the whole discovery
        prm: ProtectedResourceMetadata | None
        try:
            prm = await discover_protected_resource(
                fetcher,
                self.server_url,
                challenge.resource_metadata,
                headers=self.metadata_headers,
            )
        except OAuthError as exc:
            if not self.legacy_discovery or exc.error != "no_resource_metadata":
                raise
            prm = None  # a 2025-03-26 server: its origin is the authorization server
        meta = self._meta
        if prm is None:
            meta = await discover_legacy_authorization_server(
                fetcher, self.server_url, headers=self.metadata_headers
            )
        else:
            check_resource(prm.resource, self.server_url)
            issuer = prm.authorization_servers[0]
            if meta is None or meta.issuer != issuer:
                meta = await discover_authorization_server(
                    fetcher, issuer, headers=self.metadata_headers
                )
        assert meta is not None
        if meta is not self._meta and not self.allow_insecure_http:
            for name in ("authorization_endpoint", "token_endpoint", "registration_endpoint"):
                url = meta.get(name)
                if isinstance(url, str) and not is_secure_url(url):
                    raise OAuthError(f"The authorization server's {name} is not HTTPS: {url}")
        if self._meta is not None and self._meta.issuer != meta.issuer:
            logger.info("Authorization server changed to %s: starting over there", meta.issuer)
            self._client_info = None
            self._scopes = None
        self._prm, self._meta = prm, meta

    async def _ensure_client(
        self, http: httpx.AsyncClient, meta: AuthorizationServerMetadata
    ) -> ClientInfo:
        current = self._client_info
        if current is not None and current.issuer == meta.issuer and current.usable():
            return current
        client = self._preregistered_for(meta.issuer)
        if client is None:
            stored = await self.store.get_client(meta.issuer)
            if stored is not None and stored.issuer == meta.issuer and stored.usable():
                client = stored
        if (
            client is None
            and self.client_metadata_url is not None
            and meta.client_id_metadata_document_supported
        ):
            client = ClientInfo(
                self.client_metadata_url,
                token_endpoint_auth_method=(
                    "private_key_jwt"
                    if self.private_key or self._tokens.client_assertion
                    else "none"
                ),
                issuer=meta.issuer,
                source="cimd",
            )
        if client is None:
            if meta.registration_endpoint is None:
                raise OAuthError(
                    f"No client identity for {meta.issuer}: it supports neither client ID "
                    "metadata documents (or none is configured) nor dynamic registration, and "
                    "no pre-registered client_id was given"
                )
            client = await register_client(self._fetcher(http), meta, self.client_metadata)
            await self.store.set_client(meta.issuer, client)
        self._client_info = client
        return client

    def _preregistered_for(self, issuer: str) -> ClientInfo | None:
        """The pre-registered client, if it belongs to ``issuer`` (bound on first use)."""
        pre = self._preregistered
        if pre is None:
            return None
        if pre.issuer is None:
            pre.issuer = issuer  # bound to the first authorization server it meets
        if not same_issuer(pre.issuer, issuer):
            raise AuthorizationServerMismatchError(
                f"The pre-registered client {pre.client_id!r} belongs to {pre.issuer!r}, but "
                f"the protected resource now names the authorization server {issuer!r}: "
                "refusing to use its credentials there (register the client with it)",
                bound_to=pre.issuer,
                issuer=issuer,
            )
        return pre

    # -- grants --------------------------------------------------------------------------------

    async def _authorize(self, http: httpx.AsyncClient, scopes: list[str] | None) -> None:
        meta = self._meta
        assert meta is not None
        if meta.token_endpoint is None:
            raise OAuthError(f"The authorization server {meta.issuer} has no token endpoint")
        scopes = self._offline_access(meta, scopes)
        client = await self._ensure_client(http, meta)
        scope = " ".join(scopes) if scopes else None
        if self.grant_type == "client_credentials":
            form = {"grant_type": "client_credentials", "resource": self.resource}
            if scope:
                form["scope"] = scope
        elif self.grant_type == "jwt_bearer":
            assertion = self.assertion
            if not isinstance(assertion, str):
                assert assertion is not None
                assertion = await assertion(meta, self.resource)
            form = {"grant_type": JWT_BEARER, "assertion": assertion, "resource": self.resource}
            if scope:
                form["scope"] = scope
        else:
            assert self.authorization_handler is not None
            form = await authorization_code_form(
                self.authorization_handler,
                meta,
                client,
                scope=scope,
                redirect_uri=self.client_metadata.redirect_uris[0],
                resource=self.resource,
            )
        token = await self._token_request(http, meta, client, form, scope)
        self._scopes = scopes
        await self._set_token(token)

    def _offline_access(
        self, meta: AuthorizationServerMetadata, scopes: list[str] | None
    ) -> list[str] | None:
        """``offline_access`` (a refresh token) is asked for only where the authorization
        server lists it in its ``scopes_supported``: then it is added to a non-empty scope
        request of the authorization code grant by a client that registers the
        ``refresh_token`` grant; elsewhere it is removed (it is no resource requirement)."""
        if scopes is None:
            return None
        advertised = "offline_access" in (meta.scopes_supported or [])
        if not advertised:
            return [s for s in scopes if s != "offline_access"] or None
        if (
            self.grant_type == "authorization_code"
            and "offline_access" not in scopes
            and "refresh_token" in self.client_metadata.grant_types
            and "refresh_token" in (meta.grant_types_supported or ["refresh_token"])
        ):
            return [*scopes, "offline_access"]
        return scopes

    async def _token_request(
        self,
        http: httpx.AsyncClient,
        meta: AuthorizationServerMetadata,
        client: ClientInfo,
        form: dict[str, str],
        requested_scope: str | None,
    ) -> OAuthToken:
        return await self._tokens.request(
            self._fetcher(http),
            meta,
            client,
            form,
            requested_scope=requested_scope,
            resource=self.resource,
        )


def _union(*scope_lists: list[str]) -> list[str]:
    """The scopes of all lists, each once, in first-seen order."""
    out: list[str] = []
    for scopes in scope_lists:
        out += [s for s in scopes if s not in out]
    return out
