"""What every token verifier of the resource server shares: the refusals it raises, how
claims (of a JWT access token or an introspection response) become an :class:`AccessToken`,
and the algorithm rules.

A verifier raises :class:`InvalidTokenError` for a token it refuses (the resource server
answers 401 ``invalid_token`` with its description) and :class:`VerifierUnavailableError`
when it cannot decide (keys or the introspection endpoint unreachable: 503, the client should
retry later rather than ask for a new token).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mcpkit.auth.errors import OAuthError
from mcpkit.auth.server import AccessToken, canonical_uri

__all__ = [
    "ASYMMETRIC_ALGORITHMS",
    "InvalidDPoPProofError",
    "InvalidTokenError",
    "UseDPoPNonceError",
    "VerifierUnavailableError",
    "access_token_from_claims",
    "audience_matches",
    "check_algorithms",
    "key_type_for",
    "scopes_from_claims",
]

#: JWS algorithms with a public verification key (the default allow-lists).
ASYMMETRIC_ALGORITHMS: tuple[str, ...] = (
    "ES256",
    "ES384",
    "ES512",
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "EdDSA",
    "Ed25519",
)


class InvalidTokenError(OAuthError):
    """The access token is refused (bad signature, expired, wrong issuer or audience, ...).
    The message is sent to the client as the challenge's ``error_description``."""

    def __init__(self, message: str) -> None:
        super().__init__(message, error="invalid_token")


class VerifierUnavailableError(OAuthError):
    """The verifier could not decide: its keys or the introspection endpoint are out of
    reach. The resource server answers 503 (nothing is wrong with the client's token)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, error="temporarily_unavailable")


class InvalidDPoPProofError(OAuthError):
    """A DPoP proof (RFC 9449 section 4.3) is missing, malformed, replayed or does not match
    the request: 401 with ``DPoP error="invalid_dpop_proof"``."""

    def __init__(self, message: str) -> None:
        super().__init__(message, error="invalid_dpop_proof")


class UseDPoPNonceError(OAuthError):
    """The proof lacks the server's current nonce (RFC 9449 section 9): 401 with ``DPoP
    error="use_dpop_nonce"`` and a fresh ``DPoP-Nonce`` header."""

    def __init__(self, message: str, *, nonce: str) -> None:
        super().__init__(message, error="use_dpop_nonce")
        self.nonce = nonce


_KEY_TYPES = {"RS": "RSA", "PS": "RSA", "ES": "EC", "HS": "oct", "Ed": "OKP"}


def key_type_for(algorithm: str) -> str | None:
    """The JWK ``kty`` an algorithm verifies with (None for ``none`` and unknown ones)."""
    return _KEY_TYPES.get(algorithm[:2])


def check_algorithms(algorithms: Iterable[str], *, symmetric: bool = False) -> tuple[str, ...]:
    """Validate an allow-list: never ``none``; HMAC (``HS*``) only where ``symmetric`` keys
    are configured, never next to published public keys."""
    try:
        from joserfc.jws import JWSRegistry
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise OAuthError("Token verifiers need joserfc (the 'auth' extra)") from exc
    out = tuple(algorithms)
    if not out:
        raise ValueError("the algorithm allow-list is empty")
    for alg in out:
        if alg.lower() == "none":
            raise ValueError("the 'none' algorithm is never accepted")
        if alg not in JWSRegistry.algorithms or key_type_for(alg) is None:
            raise ValueError(f"unknown or unsupported JWS algorithm {alg!r}")
        if key_type_for(alg) == "oct" and not symmetric:
            raise ValueError(f"{alg} is an HMAC algorithm: not allowed with public keys")
    return out


def expected_audiences(audience: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """A verifier's ``audience`` option as a tuple (``None``: the audience is not checked)."""
    if audience is None:
        return None
    return (audience,) if isinstance(audience, str) else tuple(audience)


def audience_matches(aud: Any, expected: Sequence[str]) -> bool:
    """Whether an ``aud`` value (a string or a list of them) names one of ``expected``
    (compared as canonical URIs: scheme and host case, trailing slash)."""
    values = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    wanted = {canonical_uri(e) for e in expected}
    return any(isinstance(v, str) and canonical_uri(v) in wanted for v in values)


def scopes_from_claims(claims: Mapping[str, Any]) -> frozenset[str]:
    """The scopes of a space-separated ``scope`` claim, else of an ``scp`` list (or string)."""
    scope = claims.get("scope")
    if isinstance(scope, str):
        return frozenset(scope.split())
    scp = claims.get("scp")
    if isinstance(scp, str):
        return frozenset(scp.split())
    if isinstance(scp, list):
        return frozenset(s for s in scp if isinstance(s, str) and s)
    return frozenset()


def access_token_from_claims(
    token: str, claims: Mapping[str, Any], *, expires_at: float | None = None
) -> AccessToken:
    """An :class:`AccessToken` of verified claims: ``client_id`` (else ``azp``), the scopes,
    ``aud`` as the resource, ``sub``, and ``cnf.jkt`` (the DPoP key it is bound to)."""
    client_id = claims.get("client_id", claims.get("azp"))
    subject = claims.get("sub")
    aud = claims.get("aud")
    resource: str | list[str] | None = None
    if isinstance(aud, str):
        resource = aud
    elif isinstance(aud, list):
        resource = [a for a in aud if isinstance(a, str)]
    cnf = claims.get("cnf")
    jkt = cnf.get("jkt") if isinstance(cnf, dict) else None
    if isinstance(cnf, dict) and any(k != "jkt" for k in cnf):
        # mTLS-bound (x5t#S256) or other confirmation methods cannot be checked here
        raise InvalidTokenError("The token is bound with an unsupported confirmation method")
    if expires_at is None:
        exp = claims.get("exp")
        expires_at = float(exp) if isinstance(exp, (int, float)) else None
    return AccessToken(
        token=token,
        client_id=client_id if isinstance(client_id, str) else None,
        scopes=scopes_from_claims(claims),
        expires_at=expires_at,
        resource=resource,
        subject=subject if isinstance(subject, str) else None,
        claims=dict(claims),
        jkt=jkt if isinstance(jkt, str) and jkt else None,
    )


def is_number(value: Any) -> bool:
    """Whether a claim is a JSON number (``True``/``False`` are not)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
