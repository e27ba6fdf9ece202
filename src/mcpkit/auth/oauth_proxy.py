"""An OAuth proxy: MCP clients log in with an identity provider that has no dynamic client
registration (GitHub, Google, Entra ID, Okta...) through mcpkit's embedded authorization
server.

::

    proxy = OAuthProxy("https://mcp.example.com", client_id=..., client_secret=...,
                       authorization_endpoint=..., token_endpoint=..., jwks_uri=...)
    app = Server("private", auth=proxy)      # its endpoints served beside /mcp

MCP clients register with mcpkit (RFC 7591) and authorize at mcpkit's ``/authorize``;
mcpkit sends the browser on to the provider's authorization endpoint as ONE client
registered there beforehand (``client_id``/``client_secret``, redirect URI
``<base_url>/oauth/callback``), with its own PKCE (S256), a single-use ``state`` and a
cookie binding the login to the browser that started it. The callback exchanges the
provider's code, learns who the user is (the ID token, checked against the provider's keys,
or its userinfo endpoint) and finishes the authorization as the embedded server does
(consent page, code, tokens): MCP clients get mcpkit's own audience-bound tokens with the
provider's subject as ``sub`` and its ``email``, ``name``... as claims. The provider's
tokens stay server-side, encrypted (AES-GCM, with a key derived from ``secret``), for
:meth:`OAuthProxy.upstream_tokens`; revoking mcpkit's grant drops them (and revokes them
upstream when the provider has a revocation endpoint) and ends its access tokens.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import orjson

from mcpkit.auth.as_store import AuthStore, MemoryAuthStore, digest
from mcpkit.auth.authorization_server import (
    AuthorizationRequest,
    AuthorizationServer,
    UserScopes,
)
from mcpkit.auth.cimd import ClientMetadataDocuments, ClientMetadataError
from mcpkit.auth.proxy_store import MemoryProxyStore, ProxyStore
from mcpkit.errors import AuthError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from mcpkit.auth.server import AccessToken, ResourceServer

__all__ = ["OAuthProxy", "UpstreamError"]

#: The cookie binding an upstream login to the browser that started it.
COOKIE = "mcpkit_oauth_tx"
#: Seconds a login at the provider may take.
LOGIN_TTL = 600
#: Claims of the upstream identity copied into mcpkit's access tokens (when present).
DEFAULT_CLAIMS = ("email", "email_verified", "name", "preferred_username", "login")


#: The ID token signatures accepted (asymmetric only: the client secret never verifies one).
_ID_TOKEN_ALGS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"]


class UpstreamError(AuthError):
    """The identity provider refused the code exchange or the identity could not be read."""


class OAuthProxy:
    """An authorization server for MCP clients in front of a provider without dynamic
    registration (see the module docstring).

    ``base_url``: the MCP server's origin (mcpkit's issuer); ``resource``: the MCP
    endpoint its tokens are for (default ``base_url + "/mcp"``). ``client_id`` /
    ``client_secret``: the client registered at the provider, with the redirect URI
    :attr:`callback_url`. The provider's ``authorization_endpoint``, ``token_endpoint``,
    and how the user is known: ``issuer`` + ``jwks_uri`` (the ID token) and/or
    ``userinfo_endpoint``. ``upstream_scopes``: asked of the provider. ``subject_claim``:
    the claim naming the user (``sub``; GitHub: ``id``). ``claims``: copied into mcpkit's
    tokens. ``token_auth_method``: ``client_secret_basic`` or ``client_secret_post`` at the
    provider's token endpoint. ``secret``: the deployment secret the upstream tokens are
    encrypted with (every replica the same; random when omitted: one replica).
    ``scopes_supported``, ``store``, ``signing_key``, ``consent``,
    ``client_id_metadata_documents``, ``user_scopes`` (called with the provider's subject
    and the claims kept, ``email``...), lifetimes: as
    :class:`~mcpkit.auth.AuthorizationServer`. ``proxy_store``: the pending logins and the
    upstream tokens (:class:`~mcpkit.auth.proxy_store.MemoryProxyStore` by default).
    ``check_revocation``: the resource server refuses the access tokens of a revoked grant
    (one store read per request), not only its refresh tokens.
    """

    #: Bind the login to the ID token (OpenID Connect's ``nonce``, when ``openid`` is
    #: asked for); a subclass that knows the user otherwise may send none.
    uses_nonce = True

    def __init__(
        self,
        base_url: str,
        *,
        client_id: str,
        client_secret: str,
        authorization_endpoint: str | None = None,
        token_endpoint: str | None = None,
        issuer: str | None = None,
        discovery_url: str | None = None,
        jwks_uri: str | None = None,
        userinfo_endpoint: str | None = None,
        revocation_endpoint: str | None = None,
        upstream_scopes: Iterable[str] = ("openid", "email", "profile"),
        subject_claim: str = "sub",
        claims: Iterable[str] = DEFAULT_CLAIMS,
        token_auth_method: str = "client_secret_basic",
        extra_authorize_params: Mapping[str, str] | None = None,
        secret: str | bytes | None = None,
        resource: str | Sequence[str] | None = None,
        scopes_supported: Iterable[str] = (),
        default_scopes: Iterable[str] | None = None,
        store: AuthStore | None = None,
        proxy_store: ProxyStore | None = None,
        signing_key: Any = None,
        consent: bool = True,
        client_id_metadata_documents: bool | ClientMetadataDocuments = True,
        user_scopes: UserScopes | None = None,
        access_token_ttl: int = 3600,
        refresh_token_ttl: int | None = 30 * 24 * 3600,
        check_revocation: bool = True,
        callback_path: str = "/oauth/callback",
    ) -> None:
        if token_auth_method not in ("client_secret_basic", "client_secret_post"):
            raise ValueError(f"unsupported token_auth_method {token_auth_method!r}")
        base = base_url.rstrip("/")
        self.server = AuthorizationServer(
            base,
            resource=resource if resource is not None else base + "/mcp",
            approve=self._login,
            scopes_supported=scopes_supported,
            default_scopes=default_scopes,
            store=store if store is not None else MemoryAuthStore(),
            signing_key=signing_key,
            access_token_ttl=access_token_ttl,
            refresh_token_ttl=refresh_token_ttl,
            consent=consent,
            client_id_metadata_documents=client_id_metadata_documents,
            user_scopes=user_scopes,
            check_revocation=check_revocation,
        )
        self.server.on_revoke = self._revoked
        self.client_id = client_id
        self._client_secret = client_secret
        self.authorization_endpoint = authorization_endpoint
        self.token_endpoint = token_endpoint
        self.upstream_issuer = issuer
        self.jwks_uri = jwks_uri
        self.userinfo_endpoint = userinfo_endpoint
        self.revocation_endpoint = revocation_endpoint
        self.discovery_url = discovery_url
        #: The provider's OpenID configuration, once read.
        self.configuration: dict[str, Any] = {}
        self._discovered = discovery_url is None
        if self._discovered:
            self._check_endpoints()
        self.upstream_scopes = tuple(upstream_scopes)
        self.subject_claim = subject_claim
        self.claims = tuple(claims)
        self.token_auth_method = token_auth_method
        self.extra_authorize_params = dict(extra_authorize_params or {})
        self.proxy_store: ProxyStore = (
            proxy_store if proxy_store is not None else MemoryProxyStore()
        )
        self.callback_path = urlsplit(base).path.rstrip("/") + callback_path
        #: The redirect URI to register at the provider.
        self.callback_url = base + callback_path
        raw = secret.encode() if isinstance(secret, str) else secret
        self._aead = _aead(raw if raw is not None else secrets.token_bytes(32))
        self._jwks: Any = None
        self._secure = base.startswith("https://")

    def _check_endpoints(self) -> None:
        if not self.authorization_endpoint or not self.token_endpoint:
            raise ValueError("the provider needs an authorization_endpoint and a token_endpoint")
        if self.jwks_uri is None and self.userinfo_endpoint is None:
            raise ValueError("the provider needs a jwks_uri (ID tokens) or a userinfo_endpoint")

    async def discover(self) -> None:
        """Read the provider's endpoints from its OpenID configuration (``discovery_url``),
        once; endpoints given to the constructor win. :class:`UpstreamError` when it cannot
        be read or names another issuer."""
        if self._discovered:
            return
        doc = await self._get_json(str(self.discovery_url))
        self.configuration = doc
        if self.upstream_issuer is not None and doc.get("issuer") != self.upstream_issuer:
            raise UpstreamError(
                f"The provider's configuration names the issuer {doc.get('issuer')!r}, "
                f"not {self.upstream_issuer!r}"
            )
        for name in (
            "authorization_endpoint",
            "token_endpoint",
            "jwks_uri",
            "userinfo_endpoint",
            "revocation_endpoint",
        ):
            if getattr(self, name) is None and isinstance(doc.get(name), str):
                setattr(self, name, doc[name])
        try:
            self._check_endpoints()
        except ValueError as exc:
            raise UpstreamError(str(exc)) from None
        self._discovered = True

    # -- what a Server needs ---------------------------------------------------------------------

    @property
    def issuer(self) -> str:
        """mcpkit's issuer (the base URL)."""
        return self.server.issuer

    def resource_server(self, resource: str | None = None, **options: Any) -> ResourceServer:
        """The :class:`~mcpkit.auth.ResourceServer` accepting mcpkit's tokens (and, with
        ``check_revocation``, none of a revoked grant)."""
        return self.server.resource_server(resource, **options)

    @property
    def check_revocation(self) -> bool:
        """Whether the resource server refuses the access tokens of a revoked grant."""
        return self.server.check_revocation

    def install(self, app: Any) -> None:
        """Serve the authorization server's endpoints and the callback beside ``app``."""
        self.server.install(app)
        app.custom_route(self.callback_path, ["GET"])(self.callback)

    async def upstream_tokens(
        self, token: AccessToken, *, refresh: bool = True
    ) -> dict[str, Any] | None:
        """The provider's tokens (its token response, with ``obtained_at``) behind an
        mcpkit access token, to call the provider's API for the user; None when gone
        (revoked). An access token that has run out (``expires_in``) is refreshed at the
        provider first when it gave a refresh token (``refresh=False``: as stored);
        :class:`UpstreamError` when the provider refuses."""
        sid = token.claims.get("sid")
        if not isinstance(sid, str):
            return None
        name = "upstream:" + sid
        sealed = await self.proxy_store.get(name)
        if sealed is None:
            return None
        tokens = dict(orjson.loads(self._open(sealed, name.encode())))
        expires_in = tokens.get("expires_in")
        obtained = tokens.get("obtained_at")
        stale = (
            isinstance(expires_in, (int, float))
            and isinstance(obtained, (int, float))
            and obtained + expires_in - 30 <= time.time()
        )
        if refresh and stale and isinstance(tokens.get("refresh_token"), str):
            form = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
            fresh = await self._token_request(form, "the refresh token")
            tokens = {**tokens, **fresh, "obtained_at": time.time()}
            await self.proxy_store.put(
                name, self._seal(orjson.dumps(tokens), name.encode()), self.server.refresh_token_ttl
            )
        return tokens

    # -- the login at the provider -----------------------------------------------------------

    async def _login(self, request: AuthorizationRequest) -> Response:
        """``approve`` of the embedded server: send the browser to the provider."""
        from starlette.responses import RedirectResponse

        try:
            await self.discover()
        except UpstreamError as exc:
            return _page(502, str(exc))
        query = request.http.query_params
        state = secrets.token_urlsafe(32)
        verifier = secrets.token_urlsafe(48)
        nonce = secrets.token_urlsafe(16)
        browser = secrets.token_urlsafe(24)
        pending = {
            "client_id": request.client_id,
            "redirect_uri": query["redirect_uri"],
            "code_challenge": query["code_challenge"],
            "scopes": list(request.scopes),
            "resource": request.resource,
            "state": query.get("state"),
            "verifier": verifier,
            "nonce": nonce,
            "browser": digest(browser),
            "exp": time.time() + LOGIN_TTL,
        }
        key = "login:" + digest(state)
        await self.proxy_store.put(key, self._seal(orjson.dumps(pending), key.encode()), LOGIN_TTL)
        params = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.callback_url,
            "scope": " ".join(self.upstream_scopes),
            "state": state,
            "code_challenge": _s256(verifier),
            "code_challenge_method": "S256",
            **self.extra_authorize_params,
            **self.authorize_params(request),
        }
        if self.uses_nonce and "openid" in self.upstream_scopes:
            params["nonce"] = nonce
        endpoint = str(self.authorization_endpoint)
        sep = "&" if urlsplit(endpoint).query else "?"
        response = RedirectResponse(endpoint + sep + urlencode(params), status_code=302)
        response.set_cookie(
            COOKIE,
            browser,
            max_age=LOGIN_TTL,
            path=self.callback_path,
            secure=self._secure,
            httponly=True,
            samesite="lax",  # the provider's redirect back is a cross-site navigation
        )
        return response

    def authorize_params(self, request: AuthorizationRequest) -> dict[str, str]:
        """Parameters of the redirect to the provider taken from the client's request
        (none here; a subclass may forward some)."""
        return {}

    async def callback(self, request: Request) -> Response:
        """The provider's redirect back: the ``state`` (once, from the browser that
        started the login), the code exchanged, the user identified, the authorization
        finished by the embedded server (consent page or code)."""
        query = request.query_params
        state = query.get("state", "")
        key = "login:" + digest(state)
        sealed = await self.proxy_store.take(key) if state else None
        if sealed is None:
            return _page(400, "This login is unknown, expired or already used: start again")
        pending = orjson.loads(self._open(sealed, key.encode()))
        cookie = request.cookies.get(COOKIE, "")
        if not cookie or not hmac.compare_digest(digest(cookie), pending["browser"]):
            return _page(403, "This login was not started in this browser")
        if float(pending["exp"]) <= time.time():
            return _page(400, "This login has expired: start again")
        try:
            client = await self.server.get_client(pending["client_id"])
        except ClientMetadataError as exc:
            return _page(400, str(exc))
        if client is None:
            return _page(400, "Unknown client")
        if "error" in query or "code" not in query:
            response = self._back(pending, "access_denied", "The identity provider refused")
        else:
            try:
                tokens = await self._exchange(query["code"], pending["verifier"])
                subject, claims = await self._identify(tokens, pending["nonce"])
            except UpstreamError as exc:
                response = self._back(pending, "server_error", str(exc))
            else:
                family = uuid.uuid4().hex
                name = "upstream:" + family
                await self.proxy_store.put(
                    name,
                    self._seal(orjson.dumps(tokens), name.encode()),
                    self.server.refresh_token_ttl,
                )
                grant = {
                    k: pending[k]
                    for k in (
                        "client_id",
                        "redirect_uri",
                        "code_challenge",
                        "scopes",
                        "resource",
                        "state",
                    )
                }
                grant |= {
                    "subject": subject,
                    "family": family,
                    "claims": {**claims, "sid": family},
                }
                response = await self.server.grant(client, grant)
        response.delete_cookie(COOKIE, path=self.callback_path)
        return response

    def _back(self, pending: dict[str, Any], error: str, description: str) -> Response:
        from starlette.responses import RedirectResponse

        out = {"error": error, "error_description": description, "iss": self.issuer}
        if pending.get("state") is not None:
            out["state"] = pending["state"]
        redirect = pending["redirect_uri"]
        sep = "&" if urlsplit(redirect).query else "?"
        return RedirectResponse(redirect + sep + urlencode(out), status_code=302)

    async def _exchange(self, code: str, verifier: str) -> dict[str, Any]:
        """The provider's token response for ``code``."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.callback_url,
            "code_verifier": verifier,
        }
        tokens = await self._token_request(form, "the code")
        tokens["obtained_at"] = time.time()
        return tokens

    async def _token_request(self, form: dict[str, str], what: str) -> dict[str, Any]:
        import httpx

        # A replica (or a restarted process) may get the callback, or a refresh, of a login
        # another one started: it reads the provider's configuration first.
        await self.discover()

        auth: Any = None
        if self.token_auth_method == "client_secret_basic":
            auth = httpx.BasicAuth(self.client_id, self._client_secret)
        else:
            form |= {"client_id": self.client_id, "client_secret": self._client_secret}
        try:
            async with httpx.AsyncClient(timeout=30) as http:
                r = await http.post(
                    str(self.token_endpoint),
                    data=form,
                    auth=auth,
                    headers={"accept": "application/json"},
                )
        except httpx.HTTPError as exc:
            raise UpstreamError(f"The identity provider is unreachable: {exc}") from None
        try:
            body = r.json()
        except ValueError:
            body = None
        if r.status_code != 200 or not isinstance(body, dict) or "access_token" not in body:
            error = body.get("error") if isinstance(body, dict) else None
            raise UpstreamError(f"The identity provider refused {what} ({error or r.status_code})")
        return body

    async def _identify(self, tokens: dict[str, Any], nonce: str) -> tuple[str, dict[str, Any]]:
        """Who logged in: the ID token's claims (signature, issuer, audience, expiry,
        nonce checked), then the userinfo endpoint's."""
        found: dict[str, Any] = {}
        id_token = tokens.get("id_token")
        if isinstance(id_token, str) and self.jwks_uri is not None:
            found = await self._id_token_claims(id_token, nonce)
        elif self.userinfo_endpoint is None:
            raise UpstreamError("The identity provider returned no ID token")
        if self.userinfo_endpoint is not None:
            info = await self._userinfo(str(tokens["access_token"]))
            if "sub" in found and "sub" in info and str(info["sub"]) != str(found["sub"]):
                raise UpstreamError("The userinfo subject differs from the ID token's")
            found = {**info, **found}
        subject = found.get(self.subject_claim)
        if subject is None or subject == "":
            raise UpstreamError(f"The identity has no {self.subject_claim!r} claim")
        claims = {k: found[k] for k in self.claims if k in found}
        idp = found.get("iss") if "iss" in found else self.upstream_issuer
        if isinstance(idp, str):
            claims["idp"] = idp
        return str(subject), claims

    async def _id_token_claims(self, id_token: str, nonce: str) -> dict[str, Any]:
        from joserfc import jwt
        from joserfc.errors import JoseError
        from joserfc.jwk import KeySet

        try:
            if self._jwks is None:
                self._jwks = KeySet.import_key_set(await self._jwks_document())
            try:
                token = jwt.decode(id_token, self._jwks, algorithms=_ID_TOKEN_ALGS)
            except JoseError:  # the provider may have rotated its keys
                self._jwks = KeySet.import_key_set(await self._jwks_document())
                token = jwt.decode(id_token, self._jwks, algorithms=_ID_TOKEN_ALGS)
        except (JoseError, ValueError) as exc:
            raise UpstreamError(f"The ID token is invalid: {exc}") from None
        claims = dict(token.claims)
        aud = claims.get("aud")
        auds = aud if isinstance(aud, list) else [aud]
        if not self.issuer_accepted(claims):
            raise UpstreamError("The ID token was issued by another issuer")
        if self.client_id not in auds:
            raise UpstreamError("The ID token is for another client")
        exp = claims.get("exp")
        if not isinstance(exp, (int, float)) or exp <= time.time() - 60:
            raise UpstreamError("The ID token has expired")
        if "openid" in self.upstream_scopes and claims.get("nonce") != nonce:
            raise UpstreamError("The ID token's nonce does not match")
        return claims

    async def _jwks_document(self) -> Any:
        return await self._get_json(str(self.jwks_uri))

    def issuer_accepted(self, claims: Mapping[str, Any]) -> bool:
        """Whether an ID token's ``iss`` is the provider's (a preset may accept several:
        a multi-tenant provider's issuer names the user's tenant)."""
        return self.upstream_issuer is None or claims.get("iss") == self.upstream_issuer

    async def _userinfo(self, access_token: str) -> dict[str, Any]:
        return await self._get_json(
            str(self.userinfo_endpoint), {"authorization": f"Bearer {access_token}"}
        )

    async def _get_json(self, url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        import httpx

        try:
            async with httpx.AsyncClient(timeout=30) as http:
                r = await http.get(url, headers={"accept": "application/json", **(headers or {})})
        except httpx.HTTPError as exc:
            raise UpstreamError(f"The identity provider is unreachable: {exc}") from None
        try:
            body = r.json()
        except ValueError:
            body = None
        if r.status_code != 200 or not isinstance(body, dict):
            raise UpstreamError(f"The identity provider answered HTTP {r.status_code} at {url}")
        return body

    async def _revoked(self, family: str) -> None:
        """A grant was revoked: its upstream tokens are dropped (and revoked upstream)."""
        name = "upstream:" + family
        sealed = await self.proxy_store.take(name)
        if sealed is None:
            return
        try:
            await self.discover()
        except UpstreamError:
            return  # dropped here; the provider cannot be told
        if self.revocation_endpoint is None:
            return
        import httpx

        tokens = orjson.loads(self._open(sealed, name.encode()))
        token = tokens.get("refresh_token") or tokens.get("access_token")
        form = {"token": token}
        auth: Any = None
        if self.token_auth_method == "client_secret_basic":
            auth = httpx.BasicAuth(self.client_id, self._client_secret)
        else:
            form |= {"client_id": self.client_id, "client_secret": self._client_secret}
        try:
            async with httpx.AsyncClient(timeout=30) as http:
                await http.post(self.revocation_endpoint, data=form, auth=auth)
        except httpx.HTTPError:
            pass  # dropped here whatever the provider says

    # -- encryption at rest --------------------------------------------------------------------

    def _seal(self, data: bytes, name: bytes) -> bytes:
        nonce = secrets.token_bytes(12)
        return nonce + bytes(self._aead.encrypt(nonce, data, name))

    def _open(self, sealed: bytes, name: bytes) -> bytes:
        return bytes(self._aead.decrypt(sealed[:12], sealed[12:], name))


def _aead(secret: bytes) -> Any:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    key = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=None, info=b"mcpkit oauth proxy tokens"
    ).derive(secret)
    return AESGCM(key)


def _s256(verifier: str) -> str:
    return (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )


def _page(status: int, message: str) -> Response:
    from html import escape

    from starlette.responses import HTMLResponse

    return HTMLResponse(
        f"<!doctype html><title>Login failed</title><p>{escape(message)}</p>",
        status,
        headers={
            "x-frame-options": "DENY",
            "content-security-policy": "frame-ancestors 'none'",
            "cache-control": "no-store",
        },
    )
