"""DPoP (RFC 9449): sender-constrained tokens. A per-client key pair signs a fresh proof JWT
for every token request and every request that presents the token (``Authorization: DPoP``).
Signing uses joserfc (the ``auth`` extra), imported on first use."""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcpkit.auth.errors import OAuthError

__all__ = ["DPoPKey", "htu_of"]


def htu_of(url: str) -> str:
    """The ``htu`` claim: the request URL without query and fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class DPoPKey:
    """An asymmetric key (ES256 by default) that signs DPoP proofs."""

    def __init__(self, algorithm: str = "ES256") -> None:
        if algorithm != "ES256":
            raise OAuthError(f"Unsupported DPoP algorithm {algorithm!r} (mcpkit signs ES256)")
        try:
            from joserfc.jwk import ECKey
        except ImportError as exc:  # pragma: no cover - depends on the installed extras
            raise OAuthError("DPoP needs joserfc: install mcpkit with the 'auth' extra") from exc
        self.algorithm = algorithm
        self._key: Any = ECKey.generate_key("P-256")
        public: dict[str, Any] = dict(self._key.as_dict(private=False))
        self.public_jwk = {k: public[k] for k in ("kty", "crv", "x", "y")}

    @property
    def thumbprint(self) -> str:
        """The RFC 7638 JWK thumbprint (what a bound token's ``cnf.jkt`` holds)."""
        return str(self._key.thumbprint())

    def proof(
        self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None
    ) -> str:
        """A fresh proof for one HTTP request (new ``jti`` each time)."""
        from joserfc import jwt

        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method.upper(),
            "htu": htu_of(url),
            "iat": int(time.time()),
        }
        if access_token is not None:
            digest = hashlib.sha256(access_token.encode("ascii")).digest()
            claims["ath"] = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        if nonce is not None:
            claims["nonce"] = nonce
        header = {"typ": "dpop+jwt", "alg": self.algorithm, "jwk": self.public_jwk}
        return str(jwt.encode(header, claims, self._key, algorithms=[self.algorithm]))
