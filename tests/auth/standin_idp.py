"""A stand-in identity provider for the OAuth proxy tests: a Starlette app on 127.0.0.1
serving one provider's published shape (its issuer, the paths of its endpoints, its
discovery document or none, the claims of its ID token and of its user endpoint), that
logs the user in at once and checks what a real provider checks: the one registered
client and its secret (by the provider's method), the exact redirect URI, PKCE S256."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from joserfc import jwt
from joserfc.jwk import RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route


@dataclass
class StandIn:
    """One provider's shape. Paths are relative to the stand-in's origin; ``issuer_path``
    is where its issuer lives (discovery at ``issuer_path + discovery``); ``issuer_suffix``
    is appended to the issuer (Auth0's trailing slash). ``id_claims`` go into the ID token
    (None: no ID token, GitHub), ``user`` is what the user endpoint answers."""

    client_id: str
    client_secret: str
    authorize: str
    token: str
    jwks: str | None = None
    userinfo: str | None = None
    revocation: str | None = None
    issuer_path: str = ""
    issuer_suffix: str = ""
    discovery: str | None = "/.well-known/openid-configuration"
    id_claims: dict[str, Any] | None = None
    user: dict[str, Any] | None = None
    auth_method: str = "client_secret_basic"
    extra_metadata: dict[str, Any] = field(default_factory=dict)
    redirect_uri: str = ""
    key: Any = field(default_factory=lambda: RSAKey.generate_key(2048, private=True))
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    issued: list[dict[str, Any]] = field(default_factory=list)
    authorize_requests: list[dict[str, str]] = field(default_factory=list)
    revoked: list[str] = field(default_factory=list)
    origin: str = ""
    #: The user refuses at the provider: the error it sends back instead of a code.
    refuse: str | None = None
    #: Sign ID tokens with HS256 and the client secret (what a forger knowing it would do).
    sign_with_secret: bool = False
    #: The lifetime of the access tokens a code gives.
    expires_in: int = 3600

    @property
    def issuer(self) -> str:
        return self.origin + self.issuer_path + self.issuer_suffix

    def app(self) -> Starlette:
        routes = [
            Route(self.authorize, self._authorize),
            Route(self.token, self._token, methods=["POST"]),
        ]
        if self.discovery is not None:
            routes.append(Route(self.issuer_path + self.discovery, self._metadata))
        if self.jwks is not None:
            routes.append(Route(self.jwks, self._jwks))
        if self.userinfo is not None:
            routes.append(Route(self.userinfo, self._userinfo))
        if self.revocation is not None:
            routes.append(Route(self.revocation, self._revoke, methods=["POST"]))
        return Starlette(routes=routes)

    async def _metadata(self, request: Request) -> Response:
        o = self.origin
        doc: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": o + self.authorize,
            "token_endpoint": o + self.token,
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": [self.auth_method],
            **self.extra_metadata,
        }
        if self.jwks:
            doc["jwks_uri"] = o + self.jwks
        if self.userinfo:
            doc["userinfo_endpoint"] = o + self.userinfo
        if self.revocation:
            doc["revocation_endpoint"] = o + self.revocation
        return JSONResponse(doc)

    async def _jwks(self, request: Request) -> Response:
        public = self.key.as_dict(private=False)
        return JSONResponse({"keys": [{**public, "kid": "k1", "alg": "RS256", "use": "sig"}]})

    async def _authorize(self, request: Request) -> Response:
        q = dict(request.query_params)
        self.authorize_requests.append(q)
        if q.get("client_id") != self.client_id:
            return Response("unknown client", 400)
        if q.get("redirect_uri") != self.redirect_uri:
            return Response("redirect_uri mismatch", 400)
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return Response("PKCE required", 400)
        code = secrets.token_urlsafe(16)
        self.codes[code] = q
        sep = "&" if "?" in self.redirect_uri else "?"
        back = {"code": code, "state": q.get("state", "")}
        if self.refuse is not None:
            back = {"error": self.refuse, "state": q.get("state", "")}
        return RedirectResponse(self.redirect_uri + sep + urlencode(back), 302)

    def _client_ok(self, request: Request, form: dict[str, str]) -> bool:
        if self.auth_method == "client_secret_basic":
            header = request.headers.get("authorization", "")
            if not header.startswith("Basic "):
                return False
            got = base64.b64decode(header[6:]).decode()
            return got == f"{self.client_id}:{self.client_secret}"
        return (
            form.get("client_id") == self.client_id
            and form.get("client_secret") == self.client_secret
        )

    async def _token(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        if not self._client_ok(request, form):
            return JSONResponse({"error": "invalid_client"}, 401)
        if form.get("grant_type") == "refresh_token":
            if form.get("refresh_token") not in {b.get("refresh_token") for b in self.issued}:
                return JSONResponse({"error": "invalid_grant"}, 400)
            fresh = {
                "access_token": "upstream-at-" + secrets.token_urlsafe(16),
                "token_type": "Bearer",
                "expires_in": 3600,
            }
            self.issued.append(fresh)
            return JSONResponse(fresh, headers={"cache-control": "no-store"})
        asked = self.codes.pop(form.get("code", ""), None)
        if asked is None or form.get("redirect_uri") != self.redirect_uri:
            return JSONResponse({"error": "invalid_grant"}, 400)
        verifier = form.get("code_verifier", "")
        challenge = (
            base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            .rstrip(b"=")
            .decode()
        )
        if challenge != asked["code_challenge"]:
            return JSONResponse({"error": "invalid_grant", "error_description": "PKCE"}, 400)
        body: dict[str, Any] = {
            "access_token": "upstream-at-" + secrets.token_urlsafe(16),
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": "upstream-rt-" + secrets.token_urlsafe(16),
            "scope": asked.get("scope", ""),
        }
        if self.id_claims is not None:
            now = int(time.time())
            claims = {
                "iss": self.issuer,
                "aud": self.client_id,
                "iat": now,
                "exp": now + 300,
                **self.id_claims,
            }
            if "nonce" in asked:
                claims.setdefault("nonce", asked["nonce"])
            if self.sign_with_secret:
                from joserfc.jwk import OctKey

                secret = OctKey.import_key(self.client_secret.encode())
                body["id_token"] = jwt.encode({"alg": "HS256"}, claims, secret)
            else:
                header = {"alg": "RS256", "kid": "k1"}
                body["id_token"] = jwt.encode(header, claims, self.key)
        self.issued.append(body)
        return JSONResponse(body, headers={"cache-control": "no-store"})

    async def _userinfo(self, request: Request) -> Response:
        tokens = {b["access_token"] for b in self.issued}
        header = request.headers.get("authorization", "")
        if not header.startswith("Bearer ") or header[7:] not in tokens:
            return JSONResponse({"message": "Bad credentials"}, 401)
        return JSONResponse(self.user or {})

    async def _revoke(self, request: Request) -> Response:
        form = dict(parse_qsl((await request.body()).decode()))
        if not self._client_ok(request, form):
            return JSONResponse({"error": "invalid_client"}, 401)
        self.revoked.append(form.get("token", ""))
        return Response(status_code=200)
