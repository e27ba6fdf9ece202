"""``fastmcp.server.auth.providers.jwt`` on mcpkit: :class:`JWTVerifier` (keys of a PEM or
a JWKS URL, by mcpkit's key sources :class:`mcpkit.auth.StaticKeys` and
:class:`mcpkit.auth.RemoteJWKS`, signatures by joserfc) with fastmcp's claim rules, and
:class:`StaticTokenVerifier`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, TypedDict

from pydantic import AnyHttpUrl, SecretStr

from mcpkit.compat.fastmcp.server.auth.auth import AccessToken, TokenVerifier
from mcpkit.compat.fastmcp.utilities.auth import parse_scopes

__all__ = ["JWKData", "JWKSData", "JWTVerifier", "RSAKeyPair", "StaticTokenVerifier"]

_ALGORITHMS = frozenset(
    {
        *(f"{kind}{bits}" for kind in ("HS", "RS", "ES", "PS") for bits in (256, 384, 512)),
        "EdDSA",
        "Ed25519",
        "Ed448",
    }
)
#: Seconds an issuer's clock may run ahead (``nbf``), as fastmcp allows.
_NBF_SKEW = 30


class JWKData(TypedDict, total=False):
    """A JSON Web Key."""

    kty: str
    kid: str
    use: str
    alg: str
    n: str
    e: str
    crv: str
    x: str
    x5c: list[str]
    x5t: str


class JWKSData(TypedDict):
    """A JSON Web Key Set."""

    keys: list[JWKData]


class JWTVerifier(TokenVerifier):
    """Verifies JWT access tokens with a public key (or HMAC secret) or a JWKS URL."""

    def __init__(
        self,
        *,
        public_key: str | bytes | None = None,
        jwks_uri: str | None = None,
        issuer: str | list[str] | None = None,
        audience: str | list[str] | None = None,
        algorithm: str | None = None,
        required_scopes: list[str] | None = None,
        base_url: AnyHttpUrl | str | None = None,
        ssrf_safe: bool = False,
        http_client: Any = None,
        jwks_refresh_interval: float = 30.0,
    ) -> None:
        if not public_key and not jwks_uri:
            raise ValueError("Either public_key or jwks_uri must be provided")
        if public_key and jwks_uri:
            raise ValueError("Provide either public_key or jwks_uri, not both")
        if ssrf_safe:
            raise NotImplementedError(
                "JWTVerifier(ssrf_safe=True) is not supported on mcpkit: a JWKS fetched "
                "from an untrusted URL is checked by mcpkit.auth.ClientMetadataDocuments "
                "(client metadata documents); give a trusted jwks_uri here"
            )
        algorithm = algorithm or "RS256"
        if algorithm not in _ALGORITHMS:
            raise ValueError(f"Unsupported algorithm: {algorithm}.")
        if algorithm.startswith("HS") and jwks_uri:
            raise ValueError(
                "Symmetric HS* algorithms cannot be used with jwks_uri; "
                "configure a shared secret via public_key instead."
            )
        super().__init__(base_url=base_url, required_scopes=parse_scopes(required_scopes))
        self.algorithm = algorithm
        self.issuer = issuer
        self.audience = audience
        self.public_key = public_key
        self.jwks_uri = jwks_uri
        self._source: Any = None
        self._refresh_interval = jwks_refresh_interval

    def _keys(self) -> Any:
        if self._source is None:
            from mcpkit.auth.jwks import RemoteJWKS, StaticKeys

            if self.jwks_uri:
                self._source = RemoteJWKS(
                    self.jwks_uri,
                    min_refresh_interval=self._refresh_interval,
                    allow_insecure_http=True,
                )
            elif self.algorithm.startswith("HS"):
                from joserfc.jwk import OctKey

                secret = self.public_key
                assert secret is not None
                self._source = StaticKeys(OctKey.import_key(secret))
            else:
                self._source = StaticKeys(self.public_key)
        return self._source

    async def load_access_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a valid JWT, None for any failure."""
        from joserfc import jwt
        from joserfc.errors import JoseError
        from joserfc.jws import JWSRegistry, extract_compact

        try:
            header = extract_compact(token.encode("ascii")).protected
            if header.get("crit") is not None:
                return None
            keys = await self._keys().candidates(header.get("kid"), self.algorithm)
            registry = JWSRegistry(algorithms=[self.algorithm], strict_check_header=False)
            claims: dict[str, Any] | None = None
            for key in keys:
                try:
                    decoded = jwt.decode(token, key, algorithms=[self.algorithm], registry=registry)
                except JoseError:
                    continue
                claims = dict(decoded.claims)
                break
        except Exception:
            return None
        if claims is None:
            return None
        return self._from_claims(token, claims)

    def _from_claims(self, token: str, claims: dict[str, Any]) -> AccessToken | None:
        now = time.time()
        client_id = claims.get("client_id") or claims.get("azp") or claims.get("sub") or "unknown"
        exp = claims.get("exp")
        nbf = claims.get("nbf")
        try:
            if exp is not None and exp < now:
                return None
            if nbf is not None and nbf > now + _NBF_SKEW:
                return None
        except TypeError:
            return None
        if self.issuer and not self._validate_issuer(claims.get("iss")):
            return None
        if self.audience and not _audience_ok(claims.get("aud"), self.audience):
            return None
        scopes = self._extract_scopes(claims)
        if self.required_scopes and not set(self.required_scopes) <= set(scopes):
            return None
        return AccessToken(
            token=token,
            client_id=str(client_id),
            scopes=scopes,
            expires_at=int(exp) if exp is not None else None,
            subject=claims.get("sub"),
            claims=claims,
        )

    def _validate_issuer(self, issuer: Any) -> bool:
        """Whether ``iss`` is the configured issuer (or one of them); subclasses widen it,
        as fastmcp's do."""
        if isinstance(self.issuer, list):
            return issuer in self.issuer
        return bool(issuer == self.issuer)

    def _extract_scopes(self, claims: dict[str, Any]) -> list[str]:
        """The token's scopes: ``scope`` (text or list), else ``scp``."""
        return _scopes(claims)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The :class:`AccessToken` of a valid JWT, None otherwise."""
        return await self.load_access_token(token)


def _audience_ok(aud: Any, expected: str | list[str]) -> bool:
    if isinstance(expected, list):
        if isinstance(aud, list):
            return any(e in aud for e in expected)
        return aud in expected
    if isinstance(aud, list):
        return expected in aud
    return bool(aud == expected)


def _scopes(claims: dict[str, Any]) -> list[str]:
    for claim in ("scope", "scp"):
        if claim in claims:
            value = claims[claim]
            if isinstance(value, str):
                return value.split()
            if isinstance(value, list):
                return value
    return []


class StaticTokenVerifier(TokenVerifier):
    """Accepts the tokens of a fixed table (token -> ``client_id``, ``scopes``,
    ``expires_at``, ``sub``...), for development and tests."""

    def __init__(
        self, tokens: dict[str, dict[str, Any]], required_scopes: list[str] | None = None
    ) -> None:
        super().__init__(required_scopes=required_scopes)
        self.tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        """The table's entry for ``token`` (unexpired, with the required scopes)."""
        data = self.tokens.get(token)
        if not data:
            return None
        expires_at = data.get("expires_at")
        if expires_at is not None and expires_at < time.time():
            return None
        scopes = data.get("scopes", [])
        if self.required_scopes and not set(self.required_scopes) <= set(scopes):
            return None
        return AccessToken(
            token=token,
            client_id=data["client_id"],
            scopes=scopes,
            expires_at=expires_at,
            subject=data.get("sub"),
            claims=data,
        )


@dataclass(frozen=True, kw_only=True, repr=False)
class RSAKeyPair:
    """An RSA key pair that signs test tokens (:meth:`create_token`)."""

    private_key: SecretStr
    public_key: str

    @classmethod
    def generate(cls) -> RSAKeyPair:
        """A new 2048-bit pair (PEM)."""
        from joserfc.jwk import RSAKey

        key = RSAKey.generate_key(2048)
        return cls(
            private_key=SecretStr(key.as_pem(private=True).decode()),
            public_key=key.as_pem(private=False).decode(),
        )

    def create_token(
        self,
        subject: str = "fastmcp-user",
        issuer: str = "https://fastmcp.example.com",
        audience: str | list[str] | None = None,
        scopes: list[str] | None = None,
        expires_in_seconds: int = 3600,
        additional_claims: dict[str, Any] | None = None,
        kid: str | None = None,
    ) -> str:
        """An RS256 JWT with these claims."""
        from joserfc import jwt
        from joserfc.jwk import RSAKey

        header: dict[str, Any] = {"alg": "RS256"}
        if kid:
            header["kid"] = kid
        now = int(time.time())
        payload: dict[str, Any] = {
            "sub": subject,
            "iss": issuer,
            "iat": now,
            "exp": now + expires_in_seconds,
        }
        if audience:
            payload["aud"] = audience
        if scopes:
            payload["scope"] = " ".join(scopes)
        payload.update(additional_claims or {})
        key = RSAKey.import_key(self.private_key.get_secret_value())
        return jwt.encode(header, payload, key, algorithms=["RS256"])
