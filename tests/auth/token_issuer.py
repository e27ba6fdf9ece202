"""A mock authorization server for the verifier tests: it signs real JWT access tokens (ES256
and RS256 keys made with cryptography), publishes its JWKS, answers RFC 7662 introspection,
and counts what it is asked. Served through :meth:`TokenIssuer.transport` (an
``httpx.MockTransport``) or as an ASGI app (the issuer itself) on 127.0.0.1."""

from __future__ import annotations

import base64
import functools
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from joserfc import jwt
from joserfc.jwk import ECKey, Key, RSAKey

ISSUER = "https://as.example.com"
RESOURCE = "https://rs.example.com/mcp"


@dataclass(frozen=True)
class SigningKey:
    kid: str
    alg: str
    key: Key  # private

    @property
    def public_jwk(self) -> dict[str, Any]:
        doc = dict(self.key.as_dict(private=False))
        doc.update(kid=self.kid, alg=self.alg, use="sig")
        return doc

    @property
    def public_pem(self) -> bytes:
        return self.key.as_pem(private=False)


def _pem(private: Any) -> bytes:
    return bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


@functools.cache
def es256_key(kid: str) -> SigningKey:
    private = ec.generate_private_key(ec.SECP256R1())
    return SigningKey(kid, "ES256", ECKey.import_key(_pem(private)))


@functools.cache
def rs256_key(kid: str) -> SigningKey:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return SigningKey(kid, "RS256", RSAKey.import_key(_pem(private)))


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(header: dict[str, Any], claims: dict[str, Any]) -> str:
    """A JWT with ``alg: none`` (and an empty signature)."""
    return f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}."


def hmac_signed(header: dict[str, Any], claims: dict[str, Any], secret: bytes) -> str:
    """A JWT signed with HMAC-SHA256 under ``secret`` whatever it is (joserfc itself refuses
    a public key as an HMAC secret; an attacker does not ask)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.hmac import HMAC

    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    mac = HMAC(secret, hashes.SHA256())
    mac.update(signing_input.encode())
    return f"{signing_input}.{b64(mac.finalize())}"


@dataclass
class TokenIssuer:
    issuer: str = ISSUER
    audience: str = RESOURCE
    published: list[SigningKey] = field(
        default_factory=lambda: [es256_key("ec-1"), rs256_key("rsa-1")]
    )
    # introspection: token -> response; clients allowed: client_id -> secret
    introspection: dict[str, dict[str, Any]] = field(default_factory=dict)
    clients: dict[str, str] = field(default_factory=lambda: {"rs": "rs-secret"})
    metadata_issuer: str | None = None  # what the metadata claims (None: the issuer)
    metadata_fetches: int = 0
    jwks_fetches: int = 0
    introspection_calls: list[dict[str, Any]] = field(default_factory=list)
    down: bool = False  # answer 503 to everything

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": self.audience,
            "sub": "user-1",
            "client_id": "client-1",
            "scope": "mcp:read mcp:write",
            "iat": now,
            "exp": now + 300,
            "jti": f"j{time.monotonic_ns()}",
        }
        claims.update(overrides)
        return {k: v for k, v in claims.items() if v is not None}

    def mint(
        self, key: SigningKey | None = None, *, header: dict[str, Any] | None = None, **claims: Any
    ) -> str:
        """A signed access token (``at+jwt``) with :meth:`claims` and ``claims`` over them."""
        key = key or self.published[0]
        head = {"alg": key.alg, "typ": "at+jwt", "kid": key.kid, **(header or {})}
        head = {k: v for k, v in head.items() if v is not None}
        return jwt.encode(head, self.claims(**claims), key.key, algorithms=[head["alg"]])

    def jwks(self) -> dict[str, Any]:
        return {"keys": [k.public_jwk for k in self.published]}

    # -- HTTP ------------------------------------------------------------------------------------

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Any:
        """(status, JSON body) of one request."""
        if self.down:
            return 503, {"error": "down"}
        if method == "GET" and path == "/.well-known/oauth-authorization-server":
            self.metadata_fetches += 1
            return 200, {
                "issuer": self.metadata_issuer or self.issuer,
                "jwks_uri": self.issuer + "/jwks",
                "introspection_endpoint": self.issuer + "/introspect",
                "token_endpoint": self.issuer + "/token",
            }
        if method == "GET" and path == "/jwks":
            self.jwks_fetches += 1
            return 200, self.jwks()
        if method == "POST" and path == "/introspect":
            form = dict(parse_qsl(body.decode()))
            call: dict[str, Any] = {"form": form, "authorization": headers.get("authorization")}
            self.introspection_calls.append(call)
            auth = headers.get("authorization", "")
            if auth.startswith("Basic "):
                cid, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
                cid, secret = unquote(cid), unquote(secret)
                call["method"] = "client_secret_basic"
            else:
                cid, secret = form.get("client_id", ""), form.get("client_secret", "")
                call["method"] = "client_secret_post"
            if self.clients.get(cid) != secret:
                return 401, {"error": "invalid_client"}
            return 200, self.introspection.get(form.get("token", ""), {"active": False})
        return 404, {"error": "not_found"}

    def transport(self) -> httpx.MockTransport:
        def respond(request: httpx.Request) -> httpx.Response:
            status, doc = self.handle(
                request.method, request.url.path, dict(request.headers), request.content
            )
            return httpx.Response(status, json=doc)

        return httpx.MockTransport(respond)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=self.transport())

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """The ASGI app (``/jwks``, ``/introspect``)."""
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        status, doc = self.handle(scope["method"], scope["path"], headers, body)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": json.dumps(doc).encode()})
