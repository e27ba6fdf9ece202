"""JWT access tokens (RFC 9068) verified locally with the authorization server's keys.

:class:`JWTVerifier` checks the signature with a key of a JWKS URL (:class:`RemoteJWKS`) or
of keys given up front (:class:`StaticKeys`), the algorithm against an allow-list (never
``none``; HMAC only with symmetric keys given up front), ``iss``, ``aud`` when an audience is
configured (the resource server checks it against its own URI anyway), ``exp``, ``nbf`` and
``iat`` with a leeway, and turns the claims into an :class:`AccessToken` (scopes from
``scope`` or ``scp``, ``cnf.jkt`` for DPoP-bound tokens). Signatures are checked by joserfc.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import httpx

from mcpkit.auth.jwks import KeysLike, KeySource, RemoteJWKS, StaticKeys
from mcpkit.auth.server import AccessToken
from mcpkit.auth.verification import (
    ASYMMETRIC_ALGORITHMS,
    InvalidTokenError,
    access_token_from_claims,
    audience_matches,
    check_algorithms,
    expected_audiences,
)

__all__ = ["JWTVerifier"]

#: ``typ`` header values refused for access tokens (a DPoP proof or an ID token is no
#: access token).
_NOT_ACCESS_TOKENS = {"dpop+jwt", "application/dpop+jwt"}


class JWTVerifier:
    """Verifies JWT access tokens issued by ``issuer`` (a :class:`TokenVerifier`).

    One key source: ``jwks_url`` (fetched with httpx and cached, refreshed on an unknown
    ``kid``; ``cache_ttl``, ``min_refresh_interval``, ``http_client``,
    ``allow_insecure_http``), ``keys`` (a JWKS dict, JWK, PEM, joserfc key, or a list), or
    neither: the ``jwks_uri`` of the issuer's metadata, discovered on first use.
    ``audience`` (the resource's canonical URI, or several) is checked when given.
    ``leeway`` (seconds) forgives clock skew on ``exp``/``nbf``/``iat``; the token's
    ``expires_at`` is ``exp`` plus the leeway (when the resource server stops accepting it).
    ``token_type`` requires that ``typ`` header (``"at+jwt"`` for strict RFC 9068 tokens);
    by default any ``typ`` but a DPoP proof's is accepted. The claims of the last
    ``cache_size`` tokens whose signature checked out are kept (keyed by the token's
    SHA-256), so a token used for many requests is verified once; the claims are checked
    again every time.
    """

    def __init__(
        self,
        *,
        issuer: str,
        jwks_url: str | None = None,
        keys: KeysLike = None,
        audience: str | Sequence[str] | None = None,
        algorithms: Sequence[str] | None = None,
        leeway: float = 30.0,
        require_exp: bool = True,
        token_type: str | None = None,
        max_token_size: int = 16 * 1024,
        cache_size: int = 1024,
        cache_ttl: float = 3600.0,
        min_refresh_interval: float = 30.0,
        http_client: httpx.AsyncClient | None = None,
        allow_insecure_http: bool = False,
    ) -> None:
        if jwks_url is not None and keys is not None:
            raise ValueError("give jwks_url or keys, not both")
        if not issuer:
            raise ValueError("the issuer is required")
        self.issuer = issuer
        self.source: KeySource
        if keys is None:
            self.source = RemoteJWKS(
                jwks_url,
                issuer=issuer,
                cache_ttl=cache_ttl,
                min_refresh_interval=min_refresh_interval,
                http_client=http_client,
                allow_insecure_http=allow_insecure_http,
            )
            symmetric = False
        else:
            static = StaticKeys(keys)
            self.source = static
            symmetric = any(k.key_type == "oct" for k in static.keys)
        self.algorithms = check_algorithms(
            algorithms if algorithms is not None else ASYMMETRIC_ALGORITHMS, symmetric=symmetric
        )
        self.audience = expected_audiences(audience)
        self.leeway = leeway
        self.require_exp = require_exp
        self.token_type = token_type
        self.max_token_size = max_token_size
        self.cache_size = cache_size
        self._verified: OrderedDict[bytes, dict[str, Any]] = OrderedDict()

    async def verify_token(self, token: str) -> AccessToken:
        """The :class:`AccessToken` of a valid ``token``; :class:`InvalidTokenError` else."""
        from joserfc import jwt
        from joserfc.errors import JoseError
        from joserfc.jws import extract_compact

        if len(token) > self.max_token_size:
            raise InvalidTokenError("The access token is too large")
        digest = hashlib.sha256(token.encode()).digest()
        cached = self._verified.get(digest)
        if cached is not None:
            self._verified.move_to_end(digest)
            return self._check_claims(token, cached)
        if token.count(".") != 2:
            raise InvalidTokenError("The access token is not a signed JWT")
        try:
            header = extract_compact(token.encode("ascii")).protected
        except (JoseError, ValueError, UnicodeError) as exc:
            raise InvalidTokenError("The access token is not a valid JWT") from exc
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise InvalidTokenError(f"The token's algorithm {alg!r} is not accepted")
        self._check_type(header.get("typ"))
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise InvalidTokenError("The token's kid is not a string")
        claims: dict[str, Any] | None = None
        for key in await self.source.candidates(kid, alg):
            try:
                claims = dict(jwt.decode(token, key, algorithms=[alg]).claims)
            except JoseError:
                continue
            break
        if claims is None:
            raise InvalidTokenError("The token's signature could not be verified")
        result = self._check_claims(token, claims)
        if self.cache_size > 0:
            self._verified[digest] = claims
            while len(self._verified) > self.cache_size:
                self._verified.popitem(last=False)
        return result

    def _check_type(self, typ: Any) -> None:
        value = typ.lower() if isinstance(typ, str) else None
        if value in _NOT_ACCESS_TOKENS:
            raise InvalidTokenError("A DPoP proof is not an access token")
        if self.token_type is not None:
            wanted = self.token_type.lower()
            if value not in (wanted, "application/" + wanted):
                raise InvalidTokenError(f"The token's typ must be {self.token_type!r}")

    def _check_claims(self, token: str, claims: dict[str, Any]) -> AccessToken:
        now = time.time()
        if claims.get("iss") != self.issuer:
            raise InvalidTokenError("The token was issued by another issuer")
        exp = _number(claims, "exp")
        if exp is None and self.require_exp:
            raise InvalidTokenError("The token has no expiry")
        if exp is not None and now >= exp + self.leeway:
            raise InvalidTokenError("The token has expired")
        nbf = _number(claims, "nbf")
        if nbf is not None and now + self.leeway < nbf:
            raise InvalidTokenError("The token is not valid yet")
        iat = _number(claims, "iat")
        if iat is not None and now + self.leeway < iat:
            raise InvalidTokenError("The token was issued in the future")
        if self.audience is not None and not audience_matches(claims.get("aud"), self.audience):
            raise InvalidTokenError("The token was issued for another audience")
        return access_token_from_claims(
            token, claims, expires_at=None if exp is None else exp + self.leeway
        )


def _number(claims: dict[str, Any], name: str) -> float | None:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidTokenError(f"The token's {name} claim is not a number")
    return float(value)
