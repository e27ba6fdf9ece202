"""DPoP on the resource server (RFC 9449 sections 4.3, 7 and 9): checking the proof that comes
with a DPoP-bound access token (``Authorization: DPoP <token>`` plus a ``DPoP`` header).

:class:`DPoPVerifier` checks a proof: ``typ`` ``dpop+jwt``, an allowed asymmetric ``alg``, a
public ``jwk`` in the header whose key verifies the signature (joserfc), ``htm`` equal to the
request method, ``htu`` equal to the request URL without query and fragment (both normalised
as RFC 3986 section 6 says), ``iat`` within ``iat_window`` seconds of now, ``ath`` the
SHA-256 of the access token, a ``jti`` never seen while the proof is acceptable
(:class:`MemoryReplayCache` keeps each id until its proof's window ends; give a shared
:class:`ReplayCache` when several instances serve one resource; a resource server records the
id only once the token passed too), and
optionally the server's current nonce (stateless HMAC nonces, rotated every
``nonce_lifetime`` seconds). It returns the RFC 7638 thumbprint of the proof's key, which the
resource server compares with the token's ``cnf.jkt``.
"""

from __future__ import annotations

import base64
import hashlib
import heapq
import hmac
import os
import re
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from mcpkit.auth.verification import (
    InvalidDPoPProofError,
    UseDPoPNonceError,
    VerifierUnavailableError,
    check_algorithms,
    key_type_for,
)

__all__ = [
    "DPOP_ALGORITHMS",
    "CheckedProof",
    "DPoPVerifier",
    "MemoryReplayCache",
    "ReplayCache",
    "access_token_hash",
    "normalize_htu",
]

#: The proof algorithms accepted by default.
DPOP_ALGORITHMS: tuple[str, ...] = ("ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA")

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _pct(m: re.Match[str]) -> str:
    char = chr(int(m.group(1), 16))
    return char if char in _UNRESERVED else "%" + m.group(1).upper()


def _remove_dot_segments(path: str) -> str:
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == ".":
            if last:
                out.append("")
        elif seg == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(seg)
    return "/".join(out) or "/"


def normalize_htu(url: str) -> str:
    """``url`` without query and fragment, normalised (RFC 3986 sections 6.2.2 and 6.2.3):
    scheme and host in lower case, no default port, an empty path as ``/``, percent-encoding
    in upper case with unreserved characters decoded, dot segments removed."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host += f":{port}"
    path = _remove_dot_segments(_PCT.sub(_pct, parts.path or "/"))
    return f"{scheme}://{host}{path}"


def access_token_hash(token: str) -> str:
    """The ``ath`` of a proof: base64url(SHA-256(access token)), unpadded."""
    digest = hashlib.sha256(token.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class ReplayCache(Protocol):
    """Remembers proof ids (``jti``) for a while."""

    async def add(self, key: str, ttl: float) -> bool:
        """Record ``key`` for ``ttl`` seconds; False when it was already recorded."""
        ...


class MemoryReplayCache:
    """Proof ids of this process, each kept until its own time is up (the end of the proof's
    acceptance window). Nothing is evicted to make room: past ``max_entries`` live ids a new
    one is refused with :class:`~mcpkit.auth.verification.VerifierUnavailableError` (the
    request gets 503), so a flood of proofs cannot push a used one out and replay it. Memory
    is bounded by the accepted proofs of one window."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self._seen: dict[str, float] = {}
        self._expiry: list[tuple[float, str]] = []  # a heap of (expires, key)

    def __len__(self) -> int:
        self._expire(time.monotonic())
        return len(self._seen)

    def _expire(self, now: float) -> None:
        heap, seen = self._expiry, self._seen
        while heap and heap[0][0] <= now:
            expires, key = heapq.heappop(heap)
            if seen.get(key) == expires:
                del seen[key]

    async def add(self, key: str, ttl: float) -> bool:
        """Record ``key`` for ``ttl`` seconds; False when it was already recorded."""
        now = time.monotonic()
        self._expire(now)
        if key in self._seen:
            return False
        if len(self._seen) >= self.max_entries:
            raise VerifierUnavailableError(
                "The DPoP replay cache is full: try again shortly (MemoryReplayCache.max_entries)"
            )
        expires = now + ttl
        self._seen[key] = expires
        heapq.heappush(self._expiry, (expires, key))
        return True


@dataclass(frozen=True, slots=True)
class CheckedProof:
    """A DPoP proof whose checks passed, not yet recorded: the RFC 7638 ``thumbprint`` of
    its key, its replay-cache ``key`` and the seconds until its acceptance window ends."""

    thumbprint: str
    key: str
    ttl: float


class DPoPVerifier:
    """Checks DPoP proofs (see the module docstring); give it as ``ResourceServer(dpop=...)``.

    ``required`` refuses plain bearer tokens (only DPoP-bound ones are accepted).
    ``nonce=True`` makes clients use a server nonce (``use_dpop_nonce``); ``nonce_secret``
    (bytes) lets several instances accept each other's nonces.
    """

    def __init__(
        self,
        *,
        algorithms: Sequence[str] = DPOP_ALGORITHMS,
        iat_window: float = 60.0,
        required: bool = False,
        nonce: bool = False,
        nonce_secret: bytes | None = None,
        nonce_lifetime: float = 300.0,
        replay_cache: ReplayCache | None = None,
        max_proof_size: int = 8 * 1024,
    ) -> None:
        self.algorithms = check_algorithms(algorithms)
        self.iat_window = iat_window
        self.required = required
        self.use_nonce = nonce
        self.nonce_lifetime = nonce_lifetime
        self._nonce_key = nonce_secret or os.urandom(32)
        self.replay_cache: ReplayCache = (
            replay_cache if replay_cache is not None else MemoryReplayCache()
        )
        self.max_proof_size = max_proof_size

    @property
    def algs(self) -> str:
        """The ``algs`` parameter of a ``DPoP`` challenge."""
        return " ".join(self.algorithms)

    # -- nonces ----------------------------------------------------------------------------------

    def _nonce_for(self, step: int) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.hmac import HMAC

        raw = struct.pack(">Q", step)
        mac = HMAC(self._nonce_key, hashes.SHA256())
        mac.update(raw)
        return base64.urlsafe_b64encode(raw + mac.finalize()[:16]).rstrip(b"=").decode()

    def current_nonce(self) -> str:
        """The nonce clients should put in their proofs now."""
        return self._nonce_for(int(time.time() // self.nonce_lifetime))

    def nonce_ok(self, nonce: Any) -> bool:
        """Whether ``nonce`` is the current or the previous nonce."""
        if not isinstance(nonce, str):
            return False
        step = int(time.time() // self.nonce_lifetime)
        return any(
            hmac.compare_digest(nonce.encode(), self._nonce_for(s).encode())
            for s in (step, step - 1)
        )

    # -- proofs ----------------------------------------------------------------------------------

    async def verify(self, proof: str, *, method: str, url: str, access_token: str | None) -> str:
        """Check ``proof`` for a request (``method``, ``url``) presenting ``access_token`` and
        record its ``jti``; the thumbprint (RFC 7638) of its key, or
        :class:`InvalidDPoPProofError` / :class:`UseDPoPNonceError`. A resource server checks
        the token between :meth:`check` and :meth:`record` instead."""
        checked = await self.check(proof, method=method, url=url, access_token=access_token)
        await self.record(checked)
        return checked.thumbprint

    async def record(self, checked: CheckedProof) -> None:
        """Record a checked proof's ``jti`` until its window ends (once the token passed
        too); :class:`InvalidDPoPProofError` when it was used before."""
        if not await self.replay_cache.add(checked.key, checked.ttl):
            raise InvalidDPoPProofError("The DPoP proof was already used")

    async def check(
        self, proof: str, *, method: str, url: str, access_token: str | None
    ) -> CheckedProof:
        """Every check of ``proof`` but the replay cache (see :meth:`verify`)."""
        from joserfc import jwt
        from joserfc.errors import JoseError
        from joserfc.jwk import JWKRegistry
        from joserfc.jws import extract_compact

        if len(proof) > self.max_proof_size or proof.count(".") != 2:
            raise InvalidDPoPProofError("The DPoP proof is not a signed JWT")
        try:
            header = extract_compact(proof.encode("ascii")).protected
        except (JoseError, ValueError, UnicodeError) as exc:
            raise InvalidDPoPProofError("The DPoP proof is not a valid JWT") from exc
        if header.get("typ") != "dpop+jwt":
            raise InvalidDPoPProofError("The DPoP proof's typ must be dpop+jwt")
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            raise InvalidDPoPProofError(f"The DPoP proof's algorithm {alg!r} is not accepted")
        jwk = header.get("jwk")
        if not isinstance(jwk, dict) or jwk.get("kty") != key_type_for(alg):
            raise InvalidDPoPProofError("The DPoP proof needs a public jwk matching its alg")
        if "d" in jwk or "k" in jwk or "p" in jwk:
            raise InvalidDPoPProofError("The DPoP proof's jwk must not hold a private key")
        if jwk["kty"] == "RSA" and not 256 <= len(str(jwk.get("n", ""))) * 3 // 4 <= 1024:
            raise InvalidDPoPProofError("The DPoP proof's RSA key size is not accepted")
        try:
            key = JWKRegistry.import_key(jwk)
            claims: dict[str, Any] = dict(jwt.decode(proof, key, algorithms=[alg]).claims)
        except (JoseError, ValueError, TypeError) as exc:
            raise InvalidDPoPProofError("The DPoP proof's signature is invalid") from exc
        if claims.get("htm") != method.upper():
            raise InvalidDPoPProofError("The DPoP proof is for another HTTP method")
        htu = claims.get("htu")
        try:
            htu_ok = isinstance(htu, str) and normalize_htu(htu) == normalize_htu(url)
        except ValueError:
            htu_ok = False
        if not htu_ok:
            raise InvalidDPoPProofError("The DPoP proof is for another URL")
        iat = claims.get("iat")
        if isinstance(iat, bool) or not isinstance(iat, (int, float)):
            raise InvalidDPoPProofError("The DPoP proof has no iat")
        if abs(time.time() - iat) > self.iat_window:
            raise InvalidDPoPProofError("The DPoP proof is too old or from the future")
        if access_token is not None:
            if not access_token.isascii():
                raise InvalidDPoPProofError("The access token is not ASCII")
            ath = claims.get("ath")
            if not isinstance(ath, str) or not hmac.compare_digest(
                ath.encode(), access_token_hash(access_token).encode()
            ):
                raise InvalidDPoPProofError("The DPoP proof's ath does not match the token")
        jti = claims.get("jti")
        if not isinstance(jti, str) or not jti or len(jti) > 256:
            raise InvalidDPoPProofError("The DPoP proof has no jti")
        if self.use_nonce and not self.nonce_ok(claims.get("nonce")):
            raise UseDPoPNonceError(
                "The DPoP proof needs the server's nonce", nonce=self.current_nonce()
            )
        thumbprint = str(key.thumbprint())
        # the proof is accepted while |now - iat| <= window: its id is kept until then
        ttl = max(iat + self.iat_window - time.time(), 0.0) + 1.0
        return CheckedProof(thumbprint, f"{thumbprint}:{jti}", ttl)
