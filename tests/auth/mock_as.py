"""A small in-process OAuth 2.1 authorization server (ASGI) for the auth tests.

It behaves like the conformance suite's mock: metadata at a configurable well-known location,
``/authorize`` answers 302 to the redirect URI at once (no user), ``/token`` checks PKCE,
client authentication and the ``resource`` parameter, ``/register`` does RFC 7591. Every
request is recorded in :attr:`MockAS.log`, and :meth:`MockAS.verify` is a token verifier for
the protected MCP server (the tokens it issued, with scopes, client and audience).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mcpkit.auth import AccessToken


@dataclass
class Grant:
    client_id: str
    scope: str | None
    resource: str | None
    expires_at: float
    refresh: str | None = None


@dataclass
class MockAS:
    """Knobs for one authorization server; ``base`` is set once it is served."""

    prefix: str = ""  # issuer path ("/tenant1")
    metadata_kind: Literal["oauth", "oidc-insert", "oidc-append"] = "oauth"
    dcr: bool = True
    cimd: bool = False
    auth_methods: list[str] | None = field(default_factory=lambda: ["none"])
    grant_types: list[str] = field(
        default_factory=lambda: ["authorization_code", "refresh_token", "client_credentials"]
    )
    scopes_supported: list[str] | None = None
    pkce: bool = True
    iss_supported: bool = True
    iss_mode: Literal["correct", "omit", "wrong", "slash", "value"] = "correct"
    iss_value: str = ""  # the iss sent with iss_mode="value"
    authorize_error: str | None = None  # answer /authorize with this error (and the iss)
    metadata_issuer: str | None = None  # override (issuer mismatch)
    extra_scopes: list[str] = field(default_factory=list)  # granted beyond the request
    expires_in: int = 3600
    issue_refresh: bool = True
    # client_id -> (secret, method)
    clients: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    public_keys: dict[str, Any] = field(default_factory=dict)  # client_id -> joserfc key
    registered_method: str | None = None  # what DCR answers, None: the requested one
    token_endpoint: str | None = None  # advertise another token endpoint
    dpop: bool = False  # advertise ES256 and bind tokens to a DPoP proof's key
    dpop_nonce: str | None = None  # demand this nonce in token request proofs
    dpop_keys: dict[str, str] = field(default_factory=dict)  # token -> jkt
    base: str = ""
    log: list[dict[str, Any]] = field(default_factory=list)
    grants: dict[str, Grant] = field(default_factory=dict)
    _codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    _seq: Any = field(default_factory=lambda: itertools.count(1))

    @property
    def issuer(self) -> str:
        return self.base + self.prefix

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.log if e["kind"] == kind]

    # -- the ASGI app ---------------------------------------------------------------------------

    def app(self) -> Starlette:
        p = self.prefix
        if self.metadata_kind == "oauth":
            meta_path = "/.well-known/oauth-authorization-server" + p
        elif self.metadata_kind == "oidc-insert":
            meta_path = "/.well-known/openid-configuration" + p
        else:
            meta_path = p + "/.well-known/openid-configuration"
        return Starlette(
            routes=[
                Route(meta_path, self.metadata),
                Route(p + "/authorize", self.authorize),
                Route(p + "/token", self.token, methods=["POST"]),
                Route(p + "/register", self.register, methods=["POST"]),
            ]
        )

    async def metadata(self, request: Request) -> Response:
        self.log.append({"kind": "metadata", "path": request.url.path})
        doc: dict[str, Any] = {
            "issuer": self.metadata_issuer or self.issuer,
            "authorization_endpoint": self.issuer + "/authorize",
            "token_endpoint": self.token_endpoint or self.issuer + "/token",
            "response_types_supported": ["code"],
            "grant_types_supported": self.grant_types,
        }
        if self.pkce:
            doc["code_challenge_methods_supported"] = ["S256"]
        if self.dcr:
            doc["registration_endpoint"] = self.issuer + "/register"
        if self.cimd:
            doc["client_id_metadata_document_supported"] = True
        if self.iss_supported:
            doc["authorization_response_iss_parameter_supported"] = True
        if self.auth_methods is not None:
            doc["token_endpoint_auth_methods_supported"] = self.auth_methods
        if self.scopes_supported is not None:
            doc["scopes_supported"] = self.scopes_supported
        if self.dpop:
            doc["dpop_signing_alg_values_supported"] = ["ES256"]
        return JSONResponse(doc)

    async def authorize(self, request: Request) -> Response:
        q = dict(request.query_params)
        self.log.append({"kind": "authorize", "query": q})
        if self.authorize_error is not None:
            params = {"error": self.authorize_error, "error_description": "said no"}
        else:
            code = f"code-{next(self._seq)}"
            self._codes[code] = q
            params = {"code": code}
        if "state" in q:
            params["state"] = q["state"]
        if self.iss_mode == "correct":
            params["iss"] = self.issuer
        elif self.iss_mode == "wrong":
            params["iss"] = "https://evil.example.com"
        elif self.iss_mode == "slash":
            params["iss"] = self.issuer + "/"
        elif self.iss_mode == "value":
            params["iss"] = self.iss_value
        return RedirectResponse(q["redirect_uri"] + "?" + urlencode(params), status_code=302)

    def _client_auth(self, request: Request, form: dict[str, str]) -> tuple[str | None, str]:
        """(client_id, method) of a token request; client_id None when authentication fails."""
        header = request.headers.get("authorization", "")
        if header.startswith("Basic "):
            raw = base64.b64decode(header[6:]).decode()
            cid, _, secret = raw.partition(":")
            cid, secret = unquote(cid), unquote(secret)
            known = self.clients.get(cid)
            ok = known is not None and known[0] == secret
            return (cid if ok else None), "client_secret_basic"
        if "client_assertion" in form:
            from joserfc import jwt

            cid = form.get("client_id", "")
            key = self.public_keys.get(cid)
            if key is None:
                return None, "private_key_jwt"
            try:
                tok = jwt.decode(form["client_assertion"], key)
            except Exception:
                return None, "private_key_jwt"
            c = tok.claims
            ok = (
                form.get("client_assertion_type")
                == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
                and c.get("iss") == cid
                and c.get("sub") == cid
                and c.get("aud") == self.issuer
                and c.get("exp", 0) > time.time()
            )
            return (cid if ok else None), "private_key_jwt"
        public = form.get("client_id")
        if "client_secret" in form:
            known = self.clients.get(public or "")
            ok = known is not None and known[0] == form["client_secret"]
            return (public if ok else None), "client_secret_post"
        if public is not None and (public.startswith("https://") or public in self.clients):
            return public, "none"
        return None, "none"

    def _issue(self, client_id: str, scope: str | None, resource: str | None) -> dict[str, Any]:
        token = f"tok-{next(self._seq)}"
        refresh = f"ref-{next(self._seq)}" if self.issue_refresh else None
        self.grants[token] = Grant(
            client_id, scope, resource, time.time() + self.expires_in, refresh
        )
        body: dict[str, Any] = {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
        }
        if refresh:
            body["refresh_token"] = refresh
        if scope:
            body["scope"] = scope
        return body

    async def token(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        cid, method = self._client_auth(request, form)
        entry = {
            "kind": "token",
            "form": form,
            "method": method,
            "authorization": request.headers.get("authorization"),
        }
        self.log.append(entry)
        if cid is None:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        grant = form.get("grant_type")
        jkt = None
        if self.dpop and "dpop" in request.headers:
            claims, jkt = check_proof(request.headers["dpop"], "POST", self.issuer + "/token")
            entry["dpop"] = claims
            if self.dpop_nonce is not None and claims.get("nonce") != self.dpop_nonce:
                return JSONResponse(
                    {"error": "use_dpop_nonce"},
                    status_code=400,
                    headers={"dpop-nonce": self.dpop_nonce},
                )
        if grant == "authorization_code":
            q = self._codes.pop(form.get("code", ""), None)
            if q is None or q.get("client_id") != cid:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            digest = hashlib.sha256(form.get("code_verifier", "").encode()).digest()
            challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
            if challenge != q.get("code_challenge") or q.get("code_challenge_method") != "S256":
                return JSONResponse({"error": "invalid_grant", "error_description": "PKCE"}, 400)
            if form.get("redirect_uri") != q.get("redirect_uri"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            if form.get("resource") != q.get("resource"):
                return JSONResponse({"error": "invalid_target"}, status_code=400)
            scope = " ".join([*(q.get("scope") or "").split(), *self.extra_scopes]).strip()
            body = self._issue(cid, scope or None, form.get("resource"))
            if jkt is not None:
                body["token_type"] = "DPoP"
                self.dpop_keys[body["access_token"]] = jkt
            return JSONResponse(body)
        if grant == "refresh_token":
            old = next(
                (t for t, g in self.grants.items() if g.refresh == form.get("refresh_token")),
                None,
            )
            if old is None:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            g = self.grants.pop(old)
            return JSONResponse(self._issue(cid, g.scope, form.get("resource") or g.resource))
        if grant == "client_credentials":
            return JSONResponse(self._issue(cid, form.get("scope"), form.get("resource")))
        if grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            if not form.get("assertion", "").startswith("jag:"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            return JSONResponse(self._issue(cid, form.get("scope"), form.get("resource")))
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)

    async def register(self, request: Request) -> Response:
        body = await request.json()
        self.log.append({"kind": "register", "body": body})
        method = self.registered_method or body.get("token_endpoint_auth_method") or "none"
        cid = f"client-{next(self._seq)}"
        secret = None if method == "none" else f"secret-{cid}"
        self.clients[cid] = (secret, method)
        out = {**body, "client_id": cid, "token_endpoint_auth_method": method}
        if secret:
            out["client_secret"] = secret
        return JSONResponse(out, status_code=201)

    # -- for the resource server ----------------------------------------------------------------

    def verify(self, token: str) -> AccessToken | None:
        g = self.grants.get(token)
        if g is None:
            return None
        return AccessToken(
            token=token,
            client_id=g.client_id,
            scopes=frozenset((g.scope or "").split()),
            expires_at=g.expires_at,
            resource=g.resource,
            subject="user-1",
        )


def check_proof(proof: str, method: str, url: str) -> tuple[dict[str, Any], str]:
    """Verify a DPoP proof (RFC 9449 section 4.3): its claims and its key's thumbprint."""
    from joserfc import jws, jwt
    from joserfc.jwk import ECKey

    header = jws.extract_compact(proof.encode()).protected
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    key = ECKey.import_key(header["jwk"])
    claims = dict(jwt.decode(proof, key, algorithms=["ES256"]).claims)
    assert claims["htm"] == method and claims["htu"] == url, claims
    assert abs(claims["iat"] - time.time()) < 60 and claims["jti"]
    return claims, key.thumbprint()


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
