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
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from mcpkit.auth.as_store import (
    AuthCode,
    AuthStore,
    MemoryAuthStore,
    RefreshGrant,
    RegisteredClient,
    digest,
)
from mcpkit.auth.cimd import ClientMetadataDocuments, ClientMetadataError, valid_redirect_uri
from mcpkit.auth.registration import is_loopback_url, is_secure_url

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from mcpkit.auth.jwt_verifier import JWTVerifier
    from mcpkit.auth.server import AccessToken, ResourceServer

__all__ = ["AuthorizationRequest", "AuthorizationServer", "UserScopes"]

_METHODS = ("none", "client_secret_post", "client_secret_basic")
_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#: The signatures a client assertion may use (asymmetric: keys from a metadata document).
_ASSERTION_ALGS = ["ES256", "ES384", "RS256", "PS256", "EdDSA"]
#: The longest a client assertion may live (seconds).
_ASSERTION_MAX_TTL = 600
_GRANTS = ("authorization_code", "refresh_token")


@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    """A validated ``/authorize`` request, for ``approve`` to decide on: the client, the
    scopes and resource asked for, and the HTTP request (cookies, headers)."""

    client_id: str
    client_name: str | None
    scopes: tuple[str, ...]
    resource: str
    http: Request


#: Who approves: the subject, None to refuse, or a Response (a login or consent page).
Approve = Callable[[AuthorizationRequest], Any]
#: The scopes a user may hold: ``(subject, claims) -> scopes`` (or an awaitable of them).
UserScopes = Callable[[str, Mapping[str, Any]], Iterable[str] | Awaitable[Iterable[str]]]


class _OAuthError(Exception):
    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


class AuthorizationServer:
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
            "grant_types_supported": list(_GRANTS),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": list(_METHODS),
            "revocation_endpoint_auth_methods_supported": list(_METHODS),
            "authorization_response_iss_parameter_supported": True,
        }
        if self.documents is not None:
            self.metadata["client_id_metadata_document_supported"] = True
            for name in ("token", "revocation"):  # private_key_jwt: metadata document clients
                self.metadata[f"{name}_endpoint_auth_methods_supported"].append("private_key_jwt")
                self.metadata[f"{name}_endpoint_auth_signing_alg_values_supported"] = list(
                    _ASSERTION_ALGS
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

    async def get_client(self, client_id: str) -> RegisteredClient | None:
        """The client ``client_id`` names: a registered one, or the one its metadata
        document describes (:class:`~mcpkit.auth.cimd.ClientMetadataError` when that
        document is refused); None when unknown."""
        if self.documents is not None and self.documents.is_document_url(client_id):
            return await self.documents.client(client_id)
        return await self.store.get_client(client_id)

    # -- endpoints ---------------------------------------------------------------------------

    async def serve_metadata(self, request: Request) -> Response:
        return _json(self.metadata, 200, cors=True)

    async def serve_jwks(self, request: Request) -> Response:
        return _json(self.jwks(), 200, cors=True)

    async def register(self, request: Request) -> Response:
        """RFC 7591 dynamic client registration."""
        import orjson

        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return _error("invalid_client_metadata", "The body is not JSON")
        if not isinstance(body, dict):
            return _error("invalid_client_metadata", "The body is not a JSON object")
        uris = body.get("redirect_uris")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) for u in uris):
            return _error("invalid_redirect_uri", "redirect_uris must be a non-empty list")
        for uri in uris:
            if not valid_redirect_uri(uri):
                return _error(
                    "invalid_redirect_uri", f"Not an https, loopback or app redirect URI: {uri}"
                )
        method = body.get("token_endpoint_auth_method", "client_secret_basic")
        if method not in _METHODS:
            return _error("invalid_client_metadata", f"Unsupported auth method {method!r}")
        grants = body.get("grant_types", ["authorization_code"])
        if not isinstance(grants, list) or not set(grants) <= set(_GRANTS):
            return _error("invalid_client_metadata", f"Unsupported grant types {grants!r}")
        client_id = uuid.uuid4().hex
        secret = None if method == "none" else secrets.token_urlsafe(32)
        doc = {
            **{k: v for k, v in body.items() if k != "client_secret"},
            "client_id": client_id,
            "client_id_issued_at": int(self._now()),
            "token_endpoint_auth_method": method,
            "grant_types": grants,
            "redirect_uris": uris,
        }
        await self.store.add_client(
            RegisteredClient(
                client_id,
                tuple(uris),
                method,
                digest(secret) if secret else None,
                tuple(grants),
                doc,
            )
        )
        if secret is not None:
            doc["client_secret"] = secret
            doc["client_secret_expires_at"] = 0
        return _json(doc, 201)

    async def authorize(self, request: Request) -> Response:
        """The authorization endpoint: errors about the client or the redirect URI are shown
        here (never sent to an unverified URI); the rest go back to the client."""
        query = request.query_params
        if any(len(query.getlist(k)) > 1 for k in query):
            return _page(400, "A parameter is repeated")
        try:
            client = await self.get_client(query.get("client_id", ""))
        except ClientMetadataError as exc:
            return _page(400, str(exc))
        if client is None:
            return _page(400, "Unknown client")
        redirect = query.get("redirect_uri")
        if redirect is None or redirect not in client.redirect_uris:  # exact match
            return _page(400, "The redirect URI is not registered for this client")
        state = query.get("state")

        def back(**params: str) -> Response:
            from starlette.responses import RedirectResponse

            out = {**params, "iss": self.issuer}
            if state is not None:
                out["state"] = state
            sep = "&" if urlsplit(redirect).query else "?"
            return RedirectResponse(redirect + sep + urlencode(out), status_code=302)

        if query.get("response_type") != "code":
            return back(error="unsupported_response_type", error_description="Only code")
        challenge = query.get("code_challenge")
        if not challenge or query.get("code_challenge_method") != "S256":
            return back(error="invalid_request", error_description="PKCE with S256 is required")
        if len(challenge) != 43:
            return back(error="invalid_request", error_description="Malformed code_challenge")
        try:
            scopes = self._scopes(query.get("scope"))
            resource = self._resource(query.get("resource"))
        except _OAuthError as exc:
            return back(error=exc.error, error_description=exc.description)
        decision = self.approve(
            AuthorizationRequest(
                client.client_id, client.metadata.get("client_name"), scopes, resource, request
            )
        )
        if inspect.isawaitable(decision):
            decision = await decision
        from starlette.responses import Response as HTTPResponse

        if isinstance(decision, HTTPResponse):
            return decision  # a login or consent page of the application's
        if not decision:
            return back(error="access_denied", error_description="The user refused")
        pending = {
            "client_id": client.client_id,
            "redirect_uri": redirect,
            "code_challenge": challenge,
            "scopes": list(scopes),
            "resource": resource,
            "subject": str(decision),
            "state": state,
        }
        return await self.grant(client, pending)

    async def grant(self, client: RegisteredClient, pending: dict[str, Any]) -> Response:
        """Finish an authorization the user was identified for: the consent page (with
        ``consent``), else the code sent back to the client. ``pending`` holds what
        ``/authorize`` validated (``client_id``, ``redirect_uri``, ``code_challenge``,
        ``scopes``, ``resource``, ``state``), the ``subject`` and optionally the ``claims``
        its tokens carry and the token ``family``."""
        if self.user_scopes is not None:
            allowed = self.user_scopes(pending["subject"], pending.get("claims") or {})
            if inspect.isawaitable(allowed):
                allowed = await allowed
            permitted = set(allowed)
            pending = {**pending, "scopes": [s for s in pending["scopes"] if s in permitted]}
        if self.consent:
            return self._consent_page(client, pending)
        from starlette.responses import RedirectResponse

        out = {"code": await self._new_code(pending), "iss": self.issuer}
        if pending.get("state") is not None:
            out["state"] = pending["state"]
        redirect = pending["redirect_uri"]
        sep = "&" if urlsplit(redirect).query else "?"
        return RedirectResponse(redirect + sep + urlencode(out), status_code=302)

    async def _new_code(self, pending: dict[str, Any]) -> str:
        code = secrets.token_urlsafe(32)
        await self.store.put_code(
            digest(code),
            AuthCode(
                pending["client_id"],
                pending["redirect_uri"],
                pending["code_challenge"],
                tuple(pending["scopes"]),
                pending["resource"],
                pending["subject"],
                self._now() + self.code_ttl,
                pending.get("family") or uuid.uuid4().hex,
                dict(pending.get("claims") or {}),
            ),
        )
        return code

    def _consent_page(self, client: RegisteredClient, pending: dict[str, Any]) -> Response:
        from mcpkit.auth import consent

        csrf = secrets.token_urlsafe(24)
        ticket = consent.seal(
            self._consent_key, {**pending, "csrf": csrf, "exp": self._now() + consent.TTL}
        )
        name = str(client.metadata.get("client_name") or client.client_id)
        warning = None
        if self.documents is not None and self.documents.is_document_url(client.client_id):
            # a metadata document names itself: show where it comes from
            name = f"{name} ({urlsplit(client.client_id).netloc})"
            if is_loopback_url(pending["redirect_uri"]):
                warning = (
                    "the answer goes to a program on this computer, and any program can "
                    "claim this name there: allow only if you started it yourself."
                )
        return consent.page(
            client_name=name,
            warning=warning,
            redirect_uri=pending["redirect_uri"],
            scopes=pending["scopes"],
            resource=pending["resource"],
            action=urlsplit(self.issuer).path.rstrip("/") + "/authorize/consent",
            ticket=ticket,
            csrf=csrf,
            secure=self.issuer.startswith("https://"),
        )

    async def consent_answer(self, request: Request) -> Response:
        """The consent form's answer: allowed, the code goes back to the client; denied,
        ``access_denied``. Refused (403) without the consent cookie and a matching form
        token (cross-site request forgery), 400 for a forged or expired ticket."""
        from mcpkit.auth import consent

        try:
            form = await _form(request)
        except _OAuthError as exc:
            return _page(400, exc.description)
        cookie = request.cookies.get(consent.COOKIE, "")
        field = form.get("csrf", "")
        if not cookie or not hmac.compare_digest(cookie.encode(), field.encode()):
            return _page(403, "The consent form did not come from this page")
        pending = consent.open_ticket(self._consent_key, form.get("ticket", ""))
        if pending is None or not hmac.compare_digest(str(pending.get("csrf")), field):
            return _page(400, "The consent request is invalid")
        if float(pending.get("exp", 0)) <= self._now():
            return _page(400, "The consent request has expired: start again")
        redirect, state = pending["redirect_uri"], pending.get("state")
        out: dict[str, str]
        if form.get("decision") == "allow":
            out = {"code": await self._new_code(pending)}
        else:
            out = {"error": "access_denied", "error_description": "The user refused"}
        out["iss"] = self.issuer
        if state is not None:
            out["state"] = state
        from starlette.responses import RedirectResponse

        sep = "&" if urlsplit(redirect).query else "?"
        response = RedirectResponse(redirect + sep + urlencode(out), status_code=303)
        response.delete_cookie(consent.COOKIE, path=consent.cookie_path(self.issuer))
        return response

    async def token(self, request: Request) -> Response:
        """The token endpoint: ``authorization_code`` and ``refresh_token`` grants."""
        try:
            form = await _form(request)
            client = await self._client(request, form)
            grant = form.get("grant_type")
            if grant not in client.grant_types:
                raise _OAuthError("unsupported_grant_type", f"Grant {grant!r} not allowed")
            if grant == "authorization_code":
                body = await self._redeem(client, form)
            else:
                body = await self._refresh(client, form)
        except _OAuthError as exc:
            return _error(exc.error, exc.description, exc.status)
        return _json(body, 200, no_store=True)

    async def revoke(self, request: Request) -> Response:
        """RFC 7009: a refresh token (and its family) stops working. Access tokens are
        short-lived JWTs, not tracked: they run out (``access_token_ttl``)."""
        try:
            form = await _form(request)
            client = await self._client(request, form)
        except _OAuthError as exc:
            return _error(exc.error, exc.description, exc.status)
        grant = await self.store.get_refresh(digest(form.get("token", "")))
        if grant is not None and grant.client_id == client.client_id:
            await self.store.revoke_family(grant.family)
            if self.on_revoke is not None:
                await self.on_revoke(grant.family)
        return _json({}, 200)

    # -- grants --------------------------------------------------------------------------------

    async def _redeem(self, client: RegisteredClient, form: dict[str, str]) -> dict[str, Any]:
        key = digest(form.get("code", ""))
        code = await self.store.take_code(key)
        if code is None:
            family = await self.store.code_replayed(key)
            if family is not None:  # OAuth 2.1 s4.1.3: revoke what the code gave
                await self.store.revoke_family(family)
            raise _OAuthError("invalid_grant", "The code is invalid, used or expired")
        if code.client_id != client.client_id:
            raise _OAuthError("invalid_grant", "The code was issued to another client")
        if code.expires_at <= self._now():
            raise _OAuthError("invalid_grant", "The code has expired")
        if form.get("redirect_uri") != code.redirect_uri:
            raise _OAuthError("invalid_grant", "redirect_uri differs from the authorization's")
        verifier = form.get("code_verifier", "")
        computed = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        if not 43 <= len(verifier) <= 128 or not hmac.compare_digest(computed, code.code_challenge):
            raise _OAuthError("invalid_grant", "The code_verifier does not match")
        if "resource" in form and form["resource"] != code.resource:
            raise _OAuthError("invalid_target", "resource differs from the authorization's")
        return await self._issue(
            client.client_id, code.subject, code.scopes, code.resource, code.family, code.claims
        )

    async def _refresh(self, client: RegisteredClient, form: dict[str, str]) -> dict[str, Any]:
        key = digest(form.get("refresh_token", ""))
        grant = await self.store.get_refresh(key)
        if grant is None or grant.client_id != client.client_id:
            raise _OAuthError("invalid_grant", "The refresh token is invalid")
        if await self.store.family_revoked(grant.family):
            raise _OAuthError("invalid_grant", "The refresh token was revoked")
        if not await self.store.mark_used(key):  # replayed: whoever holds it is suspect
            await self.store.revoke_family(grant.family)
            raise _OAuthError("invalid_grant", "The refresh token was already used")
        if grant.expires_at is not None and grant.expires_at <= self._now():
            raise _OAuthError("invalid_grant", "The refresh token has expired")
        scopes = grant.scopes
        if form.get("scope"):
            asked = tuple(form["scope"].split())
            if not set(asked) <= set(scopes):
                raise _OAuthError("invalid_scope", "A refresh cannot widen the scopes")
            scopes = asked
        if "resource" in form and form["resource"] != grant.resource:
            raise _OAuthError("invalid_target", "resource differs from the grant's")
        return await self._issue(
            client.client_id, grant.subject, scopes, grant.resource, grant.family, grant.claims
        )

    async def _issue(
        self,
        client_id: str,
        subject: str,
        scopes: tuple[str, ...],
        resource: str,
        family: str,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        from joserfc import jwt

        now = int(self._now())
        claims = {
            **(extra or {}),
            "sid": family,  # the grant: a revocation ends it
            "iss": self.issuer,
            "aud": resource,
            "sub": subject,
            "client_id": client_id,
            "scope": " ".join(scopes),
            "iat": now,
            "exp": now + self.access_token_ttl,
            "jti": secrets.token_urlsafe(16),
        }
        header = {"alg": "ES256", "typ": "at+jwt", "kid": self.kid}
        access = jwt.encode(header, claims, self._key, algorithms=["ES256"])
        refresh = secrets.token_urlsafe(32)
        await self.store.put_refresh(
            digest(refresh),
            RefreshGrant(
                client_id,
                scopes,
                resource,
                subject,
                family,
                now + self.refresh_token_ttl if self.refresh_token_ttl is not None else None,
                claims=dict(extra or {}),
            ),
        )
        return {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.access_token_ttl,
            "refresh_token": refresh,
            "scope": " ".join(scopes),
        }

    # -- checks --------------------------------------------------------------------------------

    async def _check_assertion(
        self, client: RegisteredClient, form: dict[str, str], request: Request
    ) -> None:
        """RFC 7523 client authentication: a JWT signed by a key of the client's ``jwks``,
        ``iss`` = ``sub`` = the client, for this server (its issuer or the endpoint's URL),
        short-lived, its ``jti`` used once."""
        from joserfc import jwt
        from joserfc.errors import JoseError
        from joserfc.jwk import KeySet

        def refuse(why: str) -> _OAuthError:
            return _OAuthError("invalid_client", f"The client assertion {why}", 401)

        if form.get("client_assertion_type") != _ASSERTION_TYPE:
            raise refuse(f"type must be {_ASSERTION_TYPE}")
        try:
            keys = KeySet.import_key_set(client.metadata["jwks"])
            claims = jwt.decode(form.get("client_assertion", ""), keys, algorithms=_ASSERTION_ALGS)
        except (JoseError, ValueError, KeyError, TypeError):
            raise refuse("is not signed by a key of the client") from None
        c = claims.claims
        if c.get("iss") != client.client_id or c.get("sub") != client.client_id:
            raise refuse("names another client")
        aud = c.get("aud")
        audiences = aud if isinstance(aud, list) else [aud]
        endpoint = self.issuer + urlsplit(str(request.url)).path[len(urlsplit(self.issuer).path) :]
        if not ({self.issuer, endpoint} & set(audiences)):
            raise refuse("is for another server")
        now = self._now()
        exp, jti = c.get("exp"), c.get("jti")
        if not isinstance(exp, (int, float)) or not now - 30 < exp <= now + _ASSERTION_MAX_TTL:
            raise refuse("has expired, or lives too long")
        if not isinstance(jti, str) or not jti:
            raise refuse("has no jti")
        if not await self.store.first_use(
            digest(f"{client.client_id} {jti}"), _ASSERTION_MAX_TTL + 60
        ):
            raise refuse("was already used")

    def _scopes(self, scope: str | None) -> tuple[str, ...]:
        if not scope:
            return self.default_scopes
        asked = tuple(dict.fromkeys(scope.split()))
        unknown = [s for s in asked if self.scopes_supported and s not in self.scopes_supported]
        if unknown:
            raise _OAuthError("invalid_scope", f"Unknown scope(s): {' '.join(unknown)}")
        return asked

    def _resource(self, resource: str | None) -> str:
        from mcpkit.auth.server import canonical_uri

        if resource is None:
            return self.resources[0]
        for known in self.resources:
            if canonical_uri(known) == canonical_uri(resource):
                return known
        raise _OAuthError("invalid_target", f"Tokens are not issued for {resource}")

    async def _client(self, request: Request, form: dict[str, str]) -> RegisteredClient:
        """The authenticated client of a token or revocation request."""
        from urllib.parse import unquote

        header = request.headers.get("authorization", "")
        secret: str | None = None
        used = "none"
        client_id = form.get("client_id")
        if header[:6].lower() == "basic ":
            try:
                raw = base64.b64decode(header[6:], validate=True).decode()
            except (ValueError, UnicodeDecodeError):
                raise _OAuthError("invalid_client", "Malformed Basic credentials", 401) from None
            basic_id, sep, basic_secret = raw.partition(":")
            if not sep:
                raise _OAuthError("invalid_client", "Malformed Basic credentials", 401)
            basic_id, secret = unquote(basic_id), unquote(basic_secret)
            if client_id is not None and client_id != basic_id:
                raise _OAuthError("invalid_client", "client_id differs from the Basic one", 401)
            client_id, used = basic_id, "client_secret_basic"
        elif "client_secret" in form:
            secret, used = form["client_secret"], "client_secret_post"
        elif "client_assertion" in form or "client_assertion_type" in form:
            used = "private_key_jwt"
            if client_id is None:
                client_id = _assertion_issuer(form.get("client_assertion", ""))
        try:
            client = await self.get_client(client_id or "")
        except ClientMetadataError as exc:
            raise _OAuthError("invalid_client", str(exc), 401) from None
        if client is None:
            raise _OAuthError("invalid_client", "Unknown client", 401)
        if client.auth_method != used:
            raise _OAuthError(
                "invalid_client", f"This client authenticates with {client.auth_method}", 401
            )
        if used == "private_key_jwt":
            await self._check_assertion(client, form, request)
            return client
        expected = client.secret_hash
        if expected is not None and (
            secret is None or not hmac.compare_digest(digest(secret), expected)
        ):
            raise _OAuthError("invalid_client", "Client authentication failed", 401)
        return client


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


def _assertion_issuer(assertion: str) -> str | None:
    """The ``iss`` of a JWT, unverified (to find the client whose keys verify it)."""
    import orjson

    parts = assertion.split(".")
    if len(parts) != 3:
        return None
    try:
        claims = orjson.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, orjson.JSONDecodeError):
        return None
    iss = claims.get("iss") if isinstance(claims, dict) else None
    return iss if isinstance(iss, str) else None


async def _form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body; a repeated parameter is refused."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise _OAuthError("invalid_request", "The body must be form-encoded")
    pairs = parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    form: dict[str, str] = {}
    for k, v in pairs:
        if k in form:
            raise _OAuthError("invalid_request", f"Parameter {k!r} is repeated")
        form[k] = v
    return form


def _json(body: Any, status: int, *, cors: bool = False, no_store: bool = False) -> Response:
    import orjson
    from starlette.responses import Response

    headers = {}
    if cors:
        headers["access-control-allow-origin"] = "*"
    if no_store:
        headers["cache-control"] = "no-store"
    return Response(orjson.dumps(body), status, headers, media_type="application/json")


def _error(error: str, description: str, status: int = 400) -> Response:
    response = _json({"error": error, "error_description": description}, status)
    if status == 401:
        response.headers["www-authenticate"] = 'Basic realm="token"'
    return response


def _page(status: int, message: str) -> Response:
    from html import escape

    from starlette.responses import HTMLResponse

    return HTMLResponse(
        f"<!doctype html><title>Authorization failed</title><p>{escape(message)}</p>",
        status,
        headers={"x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'"},
    )
