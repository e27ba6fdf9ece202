"""PKCE (RFC 7636, S256 only) and the ``state`` value of an authorization request."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass

__all__ = ["PKCE", "new_state", "s256"]


def s256(verifier: str) -> str:
    """BASE64URL(SHA256(verifier)) without padding: the S256 code challenge."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True, slots=True)
class PKCE:
    """A code verifier (43-128 unreserved characters) and its S256 challenge."""

    verifier: str
    challenge: str
    method: str = "S256"

    @classmethod
    def generate(cls) -> PKCE:
        verifier = secrets.token_urlsafe(64)[:96]  # 96 characters of [A-Za-z0-9_-]
        return cls(verifier, s256(verifier))


def new_state() -> str:
    """An unguessable ``state`` value (binds the redirect to this authorization request)."""
    return secrets.token_urlsafe(32)
