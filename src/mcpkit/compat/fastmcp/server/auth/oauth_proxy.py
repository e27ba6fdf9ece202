"""``fastmcp.server.auth.oauth_proxy`` on mcpkit: :class:`OAuthProxy`, served by mcpkit's
own OAuth proxy (:class:`mcpkit.auth.OAuthProxy`).

MCP clients register (RFC 7591) and authorize at the server, which sends the browser to
the upstream provider as the one client registered there (``upstream_client_id``), PKCE
forwarded, the callback at ``base_url + redirect_path``. As in fastmcp, the tokens MCP
clients get are the server's own, standing for the upstream tokens kept server-side, and
each request is checked by fastmcp's ``token_verifier`` against the upstream access token
behind it: a tool's ``get_access_token()`` is that verifier's answer (the upstream token,
its scopes and claims). What differs: the login order (mcpkit's consent page comes after
the upstream login, fastmcp's before), mcpkit's token format, and the settings listed in
:data:`UNSUPPORTED`, which raise :class:`ValueError` naming them rather than being ignored.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import AnyHttpUrl

from mcpkit.auth.oauth_proxy import OAuthProxy as NativeOAuthProxy
from mcpkit.auth.oauth_proxy import UpstreamError
from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, AuthProvider, TokenVerifier

if TYPE_CHECKING:
    from starlette.routing import Route

    from mcpkit.auth.authorization_server import AuthorizationRequest

__all__ = ["UNSUPPORTED", "OAuthProxy"]

#: fastmcp's settings mcpkit's proxy cannot honour, with their default (any other value
#: raises ValueError) and what to use instead.
UNSUPPORTED: dict[str, tuple[Any, str]] = {
    "forward_pkce": (True, "mcpkit always sends PKCE (S256) upstream"),
    "client_storage": (
        None,
        "mcpkit.auth.OAuthProxy(store=..., proxy_store=...) keeps registrations and tokens",
    ),
    "allowed_client_redirect_uris": (
        None,
        "mcpkit accepts the redirect URIs a client registered (loopback ports may vary)",
    ),
    "consent_csp_policy": (None, "mcpkit's consent page sets its own CSP"),
    "fallback_access_token_expiry_seconds": (
        None,
        "mcpkit's access tokens live fastmcp_access_token_expiry_seconds (3600 by default)",
    ),
    "token_expiry_threshold_seconds": (0, "mcpkit refreshes upstream tokens 30s early"),
    "identity_assertion": (None, "mcpkit.auth.enterprise serves ID-JAG grants"),
    "service_documentation_url": (None, "not advertised by mcpkit's authorization server"),
}


def refuse_unsupported(kind: str, settings: dict[str, Any]) -> None:
    """ValueError naming the first of ``settings`` mcpkit cannot honour."""
    for name, value in settings.items():
        default, instead = UNSUPPORTED[name]
        if value != default:
            raise ValueError(
                f"{kind}({name}={value!r}) is not supported on mcpkit: {instead} "
                "(docs/migration.md)"
            )


class _Engine(NativeOAuthProxy):
    """mcpkit's proxy knowing the user by fastmcp's token verifier."""

    verifier: TokenVerifier
    #: Sent to the upstream token endpoint with each request (fastmcp's
    #: ``extra_token_params``).
    extra_token_params: dict[str, str]
    #: Verify the upstream ID token rather than its access token (``OIDCProxy``).
    verify_id_token = False

    #: Send the client's ``resource`` on to the provider (fastmcp's ``forward_resource``).
    forward_resource = True
    #: The user is known by the verifier, not by an ID token bound to the login.
    uses_nonce = False

    def authorize_params(self, request: AuthorizationRequest) -> dict[str, str]:
        resource = request.http.query_params.get("resource")
        return {"resource": resource} if self.forward_resource and resource else {}

    def _check_endpoints(self) -> None:
        if not self.authorization_endpoint or not self.token_endpoint:
            raise ValueError("the provider needs an authorization_endpoint and a token_endpoint")

    async def _token_request(self, form: dict[str, str], what: str) -> dict[str, Any]:
        return await super()._token_request({**form, **self.extra_token_params}, what)

    def verification_token(self, tokens: dict[str, Any]) -> str | None:
        """The upstream token the verifier judges (the access token, or the ID token)."""
        value = tokens.get("id_token" if self.verify_id_token else "access_token")
        return value if isinstance(value, str) else None

    async def _identify(self, tokens: dict[str, Any], nonce: str) -> tuple[str, dict[str, Any]]:
        token = self.verification_token(tokens)
        if token is None:
            raise UpstreamError("The identity provider returned no token to verify")
        try:
            found = await self.verifier.verify_token(token)
        except Exception as exc:
            raise UpstreamError(f"The upstream token could not be verified: {exc}") from None
        if found is None:
            raise UpstreamError("The upstream token was refused by the token verifier")
        subject = found.subject or found.claims.get("sub") or found.client_id
        return str(subject), {}


def signing_key(material: str | bytes) -> Any:
    """A P-256 key derived from ``material`` (every replica with it signs alike, and
    tokens outlive a restart, as fastmcp's derived signing key)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from joserfc.jwk import ECKey

    raw = material.encode() if isinstance(material, str) else material
    order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
    seed = hashlib.sha256(b"mcpkit fastmcp proxy signing key\x00" + raw).digest()
    private = ec.derive_private_key(int.from_bytes(seed, "big") % (order - 1) + 1, ec.SECP256R1())
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return ECKey.import_key(pem)


class OAuthProxy(AuthProvider):
    """fastmcp's OAuth proxy to a provider without dynamic client registration, on
    :class:`mcpkit.auth.OAuthProxy` (see the module docstring)."""

    def __init__(
        self,
        *,
        upstream_authorization_endpoint: str,
        upstream_token_endpoint: str,
        upstream_client_id: str,
        upstream_client_secret: str | None = None,
        upstream_revocation_endpoint: str | None = None,
        token_verifier: TokenVerifier,
        base_url: AnyHttpUrl | str,
        resource_base_url: AnyHttpUrl | str | None = None,
        redirect_path: str | None = None,
        issuer_url: AnyHttpUrl | str | None = None,
        service_documentation_url: AnyHttpUrl | str | None = None,
        allowed_client_redirect_uris: list[str] | None = None,
        valid_scopes: list[str] | None = None,
        forward_pkce: bool = True,
        forward_resource: bool = True,
        token_endpoint_auth_method: str | None = None,
        extra_authorize_params: dict[str, str] | None = None,
        extra_token_params: dict[str, str] | None = None,
        client_storage: Any = None,
        jwt_signing_key: str | bytes | None = None,
        require_authorization_consent: bool | str = True,
        consent_csp_policy: str | None = None,
        fallback_access_token_expiry_seconds: int | None = None,
        fallback_refresh_token_expiry_seconds: int | None = None,
        fastmcp_access_token_expiry_seconds: int | None = None,
        token_expiry_threshold_seconds: int = 0,
        enable_cimd: bool = True,
        identity_assertion: Any = None,
    ) -> None:
        kind = type(self).__name__
        refuse_unsupported(
            kind,
            {
                "forward_pkce": forward_pkce,
                "client_storage": client_storage,
                "allowed_client_redirect_uris": allowed_client_redirect_uris,
                "consent_csp_policy": consent_csp_policy,
                "fallback_access_token_expiry_seconds": fallback_access_token_expiry_seconds,
                "token_expiry_threshold_seconds": token_expiry_threshold_seconds,
                "identity_assertion": identity_assertion,
                "service_documentation_url": service_documentation_url,
            },
        )
        if require_authorization_consent not in (True, False, "external"):
            raise ValueError(
                f"{kind}(require_authorization_consent={require_authorization_consent!r}) "
                "is not supported on mcpkit: True (a consent page each time) or False"
            )
        if issuer_url is not None and str(issuer_url).rstrip("/") != str(base_url).rstrip("/"):
            raise ValueError(
                f"{kind}(issuer_url={str(issuer_url)!r}) is not supported on mcpkit: its "
                "authorization server's issuer is base_url"
            )
        if upstream_client_secret is None:
            raise ValueError(
                f"{kind} without upstream_client_secret (a public upstream client) is not "
                "supported on mcpkit"
            )
        method = token_endpoint_auth_method or "client_secret_basic"
        if method not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(
                f"{kind}(token_endpoint_auth_method={method!r}) is not supported on mcpkit: "
                "client_secret_basic or client_secret_post"
            )
        super().__init__(
            base_url=base_url,
            resource_base_url=resource_base_url,
            required_scopes=token_verifier.required_scopes,
        )
        scopes = list(valid_scopes or token_verifier.required_scopes or [])
        self.token_verifier = token_verifier
        self.valid_scopes = scopes
        self.redirect_path = "/" + (redirect_path or "/auth/callback").lstrip("/")
        self.forward_resource = forward_resource
        base = str(base_url).rstrip("/")
        key_material = jwt_signing_key if jwt_signing_key is not None else upstream_client_secret
        ttl = fastmcp_access_token_expiry_seconds
        refresh_ttl = fallback_refresh_token_expiry_seconds
        engine = _Engine(
            base,
            client_id=upstream_client_id,
            client_secret=upstream_client_secret,
            authorization_endpoint=upstream_authorization_endpoint,
            token_endpoint=upstream_token_endpoint,
            revocation_endpoint=upstream_revocation_endpoint,
            upstream_scopes=tuple(token_verifier.required_scopes or scopes),
            token_auth_method=method,
            extra_authorize_params=extra_authorize_params,
            secret=hashlib.sha256(b"upstream tokens\x00" + _bytes(key_material)).digest(),
            resource=str(self._get_resource_url("/mcp")),
            scopes_supported=scopes,
            signing_key=signing_key(key_material),
            consent=require_authorization_consent is True,
            client_id_metadata_documents=enable_cimd,
            access_token_ttl=ttl if ttl is not None else 3600,
            refresh_token_ttl=refresh_ttl if refresh_ttl is not None else 365 * 24 * 3600,
            callback_path=self.redirect_path,
        )
        engine.verifier = token_verifier
        engine.forward_resource = forward_resource
        # The issuer as fastmcp writes it (pydantic's URL: a root URL ends with a slash),
        # in the metadata, the authorization responses and the tokens alike.
        engine.server.issuer = engine.server.metadata["issuer"] = str(AnyHttpUrl(base))
        engine.server.metadata["scopes_supported"] = list(scopes)
        engine.extra_token_params = dict(extra_token_params or {})
        #: mcpkit's proxy serving this one.
        self.engine = engine
        self._verifier: Any = None

    @property
    def client_id(self) -> str:
        """The client registered upstream."""
        return self.engine.client_id

    def set_mcp_path(self, mcp_path: str | None) -> None:
        """The MCP endpoint's path: the resource the server's tokens are for."""
        super().set_mcp_path(mcp_path)
        resource = str(self._get_resource_url(mcp_path or "/mcp"))
        if self.engine.server.resources != [resource]:
            self.engine.server.resources = [resource]
            self._verifier = None

    def protected_resource(self, mcp_path: str) -> dict[str, Any] | None:
        """The protected resource metadata (RFC 9728), as fastmcp's proxy serves it."""
        self.set_mcp_path(mcp_path)
        doc: dict[str, Any] = {
            "resource": str(self._get_resource_url(mcp_path)),
            "authorization_servers": [self.engine.issuer],
        }
        doc["scopes_supported"] = list(self.valid_scopes)
        doc["bearer_methods_supported"] = ["header"]
        return doc

    async def verify_token(self, token: str) -> AccessToken | None:
        """The upstream token behind one of the server's own, as ``token_verifier`` sees
        it now (None: the server's token is invalid, revoked, or the upstream one no
        longer valid)."""
        if self._verifier is None:
            from mcpkit.auth.authorization_server import RevocationCheck

            server = self.engine.server
            self._verifier = RevocationCheck(server.verifier(), server.store)
        try:
            native = await self._verifier.verify_token(token)
            if native is None:
                return None
            upstream = await self.engine.upstream_tokens(native)
        except Exception:
            return None
        value = self.engine.verification_token(upstream) if upstream is not None else None
        if upstream is None or value is None:
            return None
        found = await self.token_verifier.verify_token(value)
        if found is None:
            return None
        if self.alternate_verification:
            found = self._as_upstream_token(found, upstream)
            if found is None:
                return None
        claims = self.upstream_claims(upstream)
        if claims:
            found = found.model_copy(deep=True)
            found.claims["upstream_claims"] = claims
        return found

    @property
    def alternate_verification(self) -> bool:
        """Whether the verifier judges something other than the upstream access token
        (the ID token, or an opaque token through userinfo): the token a tool gets is then
        the access token, with the scopes the provider granted."""
        return self.engine.verify_id_token

    def _as_upstream_token(
        self, found: AccessToken, upstream: dict[str, Any]
    ) -> AccessToken | None:
        scope = upstream.get("scope")
        update: dict[str, Any] = {"token": upstream.get("access_token", found.token)}
        if isinstance(scope, str) and scope:
            update["scopes"] = scope.split()
        obtained, lifetime = upstream.get("obtained_at"), upstream.get("expires_in")
        if isinstance(obtained, (int, float)) and isinstance(lifetime, (int, float)):
            update["expires_at"] = int(obtained + lifetime)
        patched = found.model_copy(update=update)
        if not self.token_verifier.required_scopes and not set(self.required_scopes) <= set(
            patched.scopes
        ):
            return None
        return patched

    def upstream_claims(self, upstream: dict[str, Any]) -> dict[str, Any] | None:
        """Claims of the provider's token response a tool gets as ``upstream_claims``
        (none here; a provider may pick some, as fastmcp's do)."""
        return None

    def install_routes(self, app: Any) -> None:
        """Serve the authorization server (metadata, registration, authorize, consent,
        token, revocation, keys) and the upstream callback as routes of ``app`` (an mcpkit
        Server), at paths relative to where the app is served (``base_url``)."""
        if getattr(app, "_fastmcp_proxy_routes", None) is self:
            return
        app._fastmcp_proxy_routes = self
        server = self.engine.server
        routes = [
            ("/.well-known/oauth-authorization-server", ["GET"], server.serve_metadata),
            ("/jwks", ["GET"], server.serve_jwks),
            ("/register", ["POST"], server.register),
            ("/authorize", ["GET"], server.authorize),
            ("/authorize/consent", ["POST"], server.consent_answer),
            ("/token", ["POST"], server.token),
            ("/revoke", ["POST"], server.revoke),
            (self.redirect_path, ["GET"], self.engine.callback),
        ]
        prefix = urlsplit(self.engine.issuer).path.rstrip("/")
        if prefix:  # the path-aware metadata address (RFC 8414), also under the mount
            routes.append(
                ("/.well-known/oauth-authorization-server" + prefix, ["GET"], server.serve_metadata)
            )
        for path, methods, handler in routes:
            app.custom_route(path, methods)(handler)

    def get_well_known_routes(self, mcp_path: str | None = None) -> list[Route]:
        """The discovery documents at the origin's root (for a server mounted under a
        path): the authorization server metadata at its path-aware address and the
        protected resource metadata."""
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        path = mcp_path or "/mcp"
        doc = self.protected_resource(path)
        assert doc is not None
        resource_path = urlsplit(doc["resource"]).path.rstrip("/")
        prefix = urlsplit(self.engine.issuer).path.rstrip("/")

        async def resource_metadata(request: Any) -> Any:
            return JSONResponse(doc)

        return [
            Route(
                "/.well-known/oauth-authorization-server" + prefix,
                self.engine.server.serve_metadata,
                methods=["GET"],
            ),
            Route(
                "/.well-known/oauth-protected-resource" + resource_path,
                resource_metadata,
                methods=["GET"],
            ),
        ]


def _bytes(value: str | bytes) -> bytes:
    return value.encode() if isinstance(value, str) else value
