"""JWT client assertions for ``private_key_jwt`` (RFC 7523), signed with joserfc (the
``auth`` extra; imported on first use)."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from mcpkit.auth.errors import OAuthError

if TYPE_CHECKING:
    from mcpkit.auth.registration import PrivateKey

__all__ = ["client_assertion"]


def client_assertion(key: PrivateKey, client_id: str, audience: str, lifetime: int = 300) -> str:
    """A signed assertion: ``iss`` = ``sub`` = the client id, ``aud`` = the authorization
    server's issuer, a unique ``jti`` and a short ``exp``."""
    try:
        from joserfc import jwt
        from joserfc.jwk import ECKey, OKPKey, RSAKey
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise OAuthError(
            "private_key_jwt needs joserfc: install mcpkit with the 'auth' extra"
        ) from exc
    now = int(time.time())
    claims = {
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": now,
        "exp": now + lifetime,
        "jti": secrets.token_urlsafe(16),
    }
    header: dict[str, str] = {"alg": key.algorithm, "typ": "JWT"}
    if key.kid:
        header["kid"] = key.kid
    try:
        family = key.algorithm[:2]
        key_class: Any = ECKey if family == "ES" else RSAKey if family in ("RS", "PS") else OKPKey
        signing_key = key_class.import_key(key.pem)
        return str(jwt.encode(header, claims, signing_key, algorithms=[key.algorithm]))
    except Exception as exc:
        raise OAuthError(f"Could not sign the client assertion: {exc}") from exc
