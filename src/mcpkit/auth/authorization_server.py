"""An OAuth 2.1 authorization server embedded beside the MCP endpoint.

::

    issuer = AuthorizationServer("https://mcp.example.com", resource="https://mcp.example.com/mcp",
                                 approve=who_is_logged_in, scopes_supported=["mcp", "admin"])
    app = Server("private", auth=issuer.resource_server())
    issuer.install(app)          # /.well-known/oauth-authorization-server, /authorize, ...

It serves its metadata (RFC 8414), dynamic client registration (RFC 7591), ``/authorize``
(authorization code with PKCE S256 only, exact redirect URIs, ``state``, RFC 9207 ``iss``,
RFC 8707 ``resource``), ``/token`` (the code, once; refresh tokens rotated at each use, a
replayed one revoking its whole family), revocation (RFC 7009, refresh tokens) and its JWKS.
Access tokens are JWTs (RFC 9068, ``typ: at+jwt``) signed with an ES256 key by joserfc and
bound to the resource (``aud``): :meth:`AuthorizationServer.verifier` is the existing
:class:`~mcpkit.auth.JWTVerifier` with the public key. Who the user is, is the
application's: ``approve(request)`` (an :class:`AuthorizationRequest` with the HTTP request,
to read a session cookie, or to show a login page) returns the subject, or None to refuse.

State lives in an :class:`~mcpkit.auth.as_store.AuthStore` (:class:`MemoryAuthStore` by
default: one replica; several replicas need a shared store and the same ``signing_key``).

The server is in parts, one endpoint concept each, the bases of :class:`AuthorizationServer`:
:mod:`~mcpkit.auth.as_authorize` (``/authorize`` and the consent page),
:mod:`~mcpkit.auth.as_token` (``/token``, ``/revoke``, the access tokens),
:mod:`~mcpkit.auth.as_registration` (``/register``) and :mod:`~mcpkit.auth.as_clients` (who
a client is and how it authenticates), with :mod:`~mcpkit.auth.as_http` (their form bodies,
errors and responses). This module holds the settings, the metadata, the signing key and
what the resource server needs.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcpkit.auth.as_authorize import (
    Approve,
    AuthorizationEndpoint,
    AuthorizationRequest,
    UserScopes,
)
from mcpkit.auth.as_clients import ASSERTION_ALGS, AUTH_METHODS
from mcpkit.auth.as_http import json_response
from mcpkit.auth.as_registration import Registration
from mcpkit.auth.as_store import AuthStore, MemoryAuthStore
from mcpkit.auth.as_token import GRANTS, TokenEndpoint
from mcpkit.auth.cimd import ClientMetadataDocuments
from mcpkit.auth.registration import is_secure_url

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from mcpkit.auth.jwt_verifier import JWTVerifier
    from mcpkit.auth.server import AccessToken, ResourceServer

__all__ = [
    "Approve",
    "AuthorizationRequest",
    "AuthorizationServer",
    "RevocationCheck",
    "UserScopes",
]


class AuthorizationServer(AuthorizationEndpoint, TokenEndpoint, Registration):
    """An OAuth 2.1 authorization server for one MCP server (see the module docstring).

    ``issuer``: its URL (the MCP server's origin, say; its endpoints live under it).
    ``resource``: the resource URI(s) its tokens are for (the first is the default).
    ``approve``: who the user is (see above). ``scopes_supported`` / ``default_scopes``:
    what may be asked for, and what an authorization without ``scope`` gets.
    ``signing_key``: a joserfc EC key or PEM (one is generated otherwise).
    ``access_token_ttl`` / ``refresh_token_ttl`` / ``code_ttl``: lifetimes in seconds
    (refresh None: no expiry). ``consent``: after ``approve`` names the user, show the
    consent page (:mod:`mcpkit.auth.consent`) and issue the code only when the user allows.
    ``client_id_metadata_documents``: accept clients whose ``client_id`` is the HTTPS URL
    of their metadata document (True, the default: with the default
    :class:`~mcpkit.auth.cimd.ClientMetadataDocuments`; or one configured; False: only
    registered clients). ``user_scopes``: the scopes a user may hold, from the subject and
    the claims about them (sync or async; an upstream identity's email, groups...): an
    authorization is granted the scopes it asked for that the user may hold (None: all it
    asked for). ``check_revocation``: :meth:`resource_server` refuses the access tokens of a
    revoked grant (their ``sid``), not only its refresh tokens: one store read per request.
    ``clock``: the time source (tests).
    """

    def __init__(
        self,
        issuer: str,
        *,
        resource: str | Sequence[str],
        approve: Approve,
        scopes_supported: Iterable[str] = (),
        default_scopes: Iterable[str] | None = None,
        store: AuthStore | None = None,
        signing_key: Any = None,
        access_token_ttl: int = 3600,
        refresh_token_ttl: int | None = 30 * 24 * 3600,
        code_ttl: int = 60,
        consent: bool = False,
        client_id_metadata_documents: bool | ClientMetadataDocuments = True,
        user_scopes: UserScopes | None = None,
        check_revocation: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        from joserfc.jwk import ECKey

        if not is_secure_url(issuer) or urlsplit(issuer).query or urlsplit(issuer).fragment:
            raise ValueError(f"issuer must be an https (or loopback http) URL: {issuer}")
        self.issuer = issuer.rstrip("/")
        self.resources = [resource] if isinstance(resource, str) else list(resource)
        if not self.resources:
            raise ValueError("an authorization server needs the resource its tokens are for")
        self.approve = approve
        self.scopes_supported = list(scopes_supported)
        self.default_scopes = (
            tuple(default_scopes) if default_scopes is not None else tuple(self.scopes_supported)
        )
        self.store: AuthStore = store if store is not None else MemoryAuthStore()
        if signing_key is None:
            signing_key = ECKey.generate_key("P-256", parameters={"use": "sig"}, private=True)
        elif isinstance(signing_key, (str, bytes)):
            signing_key = ECKey.import_key(signing_key)
        self._key = signing_key
        self.kid = signing_key.thumbprint()
        #: Show the consent page after ``approve`` (see :mod:`mcpkit.auth.consent`).
        self.consent = consent
        # Consent tickets are sealed with a key derived from the signing key, so every
        # replica with that key opens the others'.
        self._consent_key = hashlib.sha256(
            b"mcpkit consent ticket\x00" + signing_key.as_pem(private=True)
        ).digest()
        #: The client ID metadata documents accepted (None: registered clients only).
        self.documents: ClientMetadataDocuments | None = (
            client_id_metadata_documents
            if isinstance(client_id_metadata_documents, ClientMetadataDocuments)
            else ClientMetadataDocuments()
            if client_id_metadata_documents
            else None
        )
        self.user_scopes = user_scopes
        #: The resource server refuses access tokens of a revoked grant (a store read each).
        self.check_revocation = check_revocation
        self.access_token_ttl = access_token_ttl
        self.refresh_token_ttl = refresh_token_ttl
        self.code_ttl = code_ttl
        self._now = clock
        #: Called with the token family a revocation ended (the OAuth proxy drops the
        #: upstream tokens of that grant).
        self.on_revoke: Callable[[str], Awaitable[None]] | None = None
        base = self.issuer
        self.metadata: dict[str, Any] = {
            "issuer": base,
            "authorization_endpoint": base + "/authorize",
            "token_endpoint": base + "/token",
            "registration_endpoint": base + "/register",
            "revocation_endpoint": base + "/revoke",
            "jwks_uri": base + "/jwks",
            "response_types_supported": ["code"],
            "grant_types_supported": list(GRANTS),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": list(AUTH_METHODS),
            "revocation_endpoint_auth_methods_supported": list(AUTH_METHODS),
            "authorization_response_iss_parameter_supported": True,
        }
        if self.documents is not None:
            self.metadata["client_id_metadata_document_supported"] = True
            for name in ("token", "revocation"):  # private_key_jwt: metadata document clients
                self.metadata[f"{name}_endpoint_auth_methods_supported"].append("private_key_jwt")
                self.metadata[f"{name}_endpoint_auth_signing_alg_values_supported"] = list(
                    ASSERTION_ALGS
                )
        if self.scopes_supported:
            self.metadata["scopes_supported"] = list(self.scopes_supported)

    # -- what the resource server needs ----------------------------------------------------------

    def jwks(self) -> dict[str, Any]:
        """The public signing key as a JWKS."""
        public = self._key.as_dict(private=False)
        return {"keys": [{**public, "kid": self.kid, "alg": "ES256", "use": "sig"}]}

    def verifier(self, resource: str | None = None) -> JWTVerifier:
        """A :class:`~mcpkit.auth.JWTVerifier` of this server's access tokens for
        ``resource`` (default the first)."""
        from mcpkit.auth.jwt_verifier import JWTVerifier

        return JWTVerifier(
            issuer=self.issuer,
            keys=self.jwks(),
            audience=resource or self.resources[0],
            algorithms=["ES256"],
            token_type="at+jwt",
        )

    def resource_server(self, resource: str | None = None, **options: Any) -> ResourceServer:
        """The :class:`~mcpkit.auth.ResourceServer` accepting this server's tokens for
        ``resource`` (default the first; with ``check_revocation``, none of a revoked
        grant); ``options`` go to it (``required_scopes``...)."""
        from mcpkit.auth.server import ResourceServer

        chosen = resource or self.resources[0]
        options.setdefault("scopes_supported", self.scopes_supported or None)
        verifier: Any = self.verifier(chosen)
        if self.check_revocation:
            verifier = RevocationCheck(verifier, self.store)
        return ResourceServer(
            verifier, resource=chosen, authorization_servers=[self.issuer], **options
        )

    def install(self, app: Any) -> None:
        """Serve the endpoints as custom routes of ``app`` (a :class:`mcpkit.Server`), at
        the issuer's path."""
        prefix = urlsplit(self.issuer).path.rstrip("/")
        routes: list[tuple[str, list[str], Callable[[Request], Awaitable[Response]]]] = [
            ("/.well-known/oauth-authorization-server" + prefix, ["GET"], self.serve_metadata),
            (prefix + "/jwks", ["GET"], self.serve_jwks),
            (prefix + "/register", ["POST"], self.register),
            (prefix + "/authorize", ["GET"], self.authorize),
            (prefix + "/authorize/consent", ["POST"], self.consent_answer),
            (prefix + "/token", ["POST"], self.token),
            (prefix + "/revoke", ["POST"], self.revoke),
        ]
        for path, methods, handler in routes:
            app.custom_route(path, methods)(handler)

    async def serve_metadata(self, request: Request) -> Response:
        """The RFC 8414 metadata (readable from any origin)."""
        return json_response(self.metadata, 200, cors=True)

    async def serve_jwks(self, request: Request) -> Response:
        """The public signing key (readable from any origin)."""
        return json_response(self.jwks(), 200, cors=True)


class RevocationCheck:
    """A verifier refusing the access tokens of a revoked grant (their ``sid``)."""

    def __init__(self, inner: Any, store: AuthStore) -> None:
        self.inner = inner
        self.store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcpkit.auth.verification import InvalidTokenError

        result: AccessToken | None = await self.inner.verify_token(token)
        if result is None:
            return None
        sid = result.claims.get("sid")
        if isinstance(sid, str) and await self.store.family_revoked(sid):
            raise InvalidTokenError("The access token's grant was revoked")
        return result
